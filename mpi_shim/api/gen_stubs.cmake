# gen_stubs.cmake: from the one list of MPI functions
# (include/weft_mpi_functions.h) and the bindings (binding/*.c), generate
#   OUT_DIR/weft_mpi_stubs.c      a stub for every listed function no
#                                 binding defines (linked into libweft_mpi)
#   OUT_DIR/weft_mpi_api_table.h  the table of every listed function and
#                                 whether it is implemented (mpirun
#                                 --list-unsupported prints it)
# Run at build time as
#   cmake -DLIST=<weft_mpi_functions.h> -DBINDINGS=<a.c|b.c|...> \
#         -DOUT_DIR=<dir> -P gen_stubs.cmake
# BINDINGS are the binding files the library is built from ('|'-separated,
# as the build passes them: a file created after the build globbed its
# sources must not hide a stub before it is compiled). CMake only: CI
# machines need not have Python.
#
# A function counts as implemented when one of those files contains
# WMPI_ALIAS(<Name>) (every binding ends with one, binding/binding.h); a
# line WMPI_UNSUPPORTED_ON(<Name>, "<kind>") lists it as still refusing
# that kind of communicator.
# A stub of an int function reports MPI_ERR_UNSUPPORTED_OPERATION through
# the error handler of its first MPI_Comm parameter (none: MPI_COMM_WORLD's)
# with "MPI_<Name> is not supported by Weft yet" (binding/unsupported.c); a
# stub of another function (it cannot return an error class) aborts the
# job with that message. Outputs are rewritten only when their text
# changes, so an edit to a binding that does not change the set rebuilds
# nothing here.

cmake_minimum_required(VERSION 3.20)

foreach(var LIST BINDINGS OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "gen_stubs.cmake: -D${var}=... is required")
  endif()
endforeach()

# ------------------------------------------------------------ the list
file(READ "${LIST}" text)
# Drop comments (the head comment quotes WMPI_FN itself).
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
string(REGEX MATCHALL
  "WMPI_FN\\([^,()]+,[ \t\r\n]*[A-Za-z0-9_]+,[ \t\r\n]*\\([^()]*\\)\\)"
  entries "${text}")
list(LENGTH entries n_entries)
if(n_entries LESS 100)
  message(FATAL_ERROR "gen_stubs.cmake: only ${n_entries} entries parsed from ${LIST}")
endif()

# ------------------------------------------------------- the bindings
string(REPLACE "|" ";" binding_files "${BINDINGS}")
set(implemented "")
set(partial "")
set(n_partial 0)
foreach(f IN LISTS binding_files)
  file(READ "${f}" src)
  # WMPI_UNSUPPORTED_ON(<Name>, "<kind>"): implemented, but not for <kind>
  string(REGEX MATCHALL "\nWMPI_UNSUPPORTED_ON\\([A-Za-z0-9_]+, *\"[^\"]*\"\\)" ons "${src}")
  foreach(o IN LISTS ons)
    string(REGEX REPLACE ".*WMPI_UNSUPPORTED_ON\\(([A-Za-z0-9_]+), *\"([^\"]*)\"\\)" "\\1" on_name "${o}")
    string(REGEX REPLACE ".*WMPI_UNSUPPORTED_ON\\(([A-Za-z0-9_]+), *\"([^\"]*)\"\\)" "\\2" on_kind "${o}")
    string(APPEND partial "    { \"MPI_${on_name}\", \"${on_kind}\" },\n")
    math(EXPR n_partial "${n_partial} + 1")
  endforeach()
  string(REGEX MATCHALL "WMPI_ALIAS\\([A-Za-z0-9_]+\\)" aliases "${src}")
  foreach(a IN LISTS aliases)
    string(REGEX REPLACE "WMPI_ALIAS\\(([A-Za-z0-9_]+)\\)" "\\1" a "${a}")
    list(APPEND implemented "${a}")
  endforeach()
endforeach()

# --------------------------------------------------------- generation
set(stubs "")
set(table "")
set(listed "")
set(n_unsupported 0)
foreach(e IN LISTS entries)
  string(REGEX REPLACE "[ \t\r\n]+" " " e "${e}")
  string(REGEX MATCH "^WMPI_FN\\(([^,]+), ?([A-Za-z0-9_]+), ?\\((.*)\\)\\)$" m "${e}")
  set(ret "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  set(params "${CMAKE_MATCH_3}")
  string(STRIP "${ret}" ret)
  list(APPEND listed "${name}")
  list(FIND implemented "${name}" found)
  if(found GREATER -1)
    string(APPEND table "    { \"MPI_${name}\", 1 },\n")
    continue()
  endif()
  math(EXPR n_unsupported "${n_unsupported} + 1")
  string(APPEND table "    { \"MPI_${name}\", 0 },\n")

  # The communicator whose handler reports the error: the first
  # parameter of type MPI_Comm (not MPI_Comm *).
  set(comm "MPI_COMM_NULL")
  string(REPLACE "," ";" plist "${params}")
  foreach(p IN LISTS plist)
    string(STRIP "${p}" p)
    if(p MATCHES "^MPI_Comm ([A-Za-z0-9_]+)$")
      set(comm "${CMAKE_MATCH_1}")
      break()
    endif()
  endforeach()

  string(APPEND stubs "${ret} PMPI_${name}(${params})\n{\n")
  if(ret STREQUAL "int")
    string(APPEND stubs "    return wbind_unsupported(${comm}, \"MPI_${name}\");\n")
  else()
    string(APPEND stubs "    wbind_unsupported_fatal(\"MPI_${name}\");\n")
  endif()
  string(APPEND stubs "}\nWMPI_ALIAS(${name})\n\n")
endforeach()

# A binding of a function that is not in the list is a typo or a missing
# entry: the list must stay the one source of truth.
foreach(a IN LISTS implemented)
  list(FIND listed "${a}" found)
  if(found EQUAL -1)
    message(WARNING "gen_stubs.cmake: binding WMPI_ALIAS(${a}) is not in ${LIST}")
  endif()
endforeach()

set(stub_file "/* Generated by mpi_shim/api/gen_stubs.cmake from
 * include/weft_mpi_functions.h and the binding/ files: do not edit.
 * The MPI functions no binding defines yet (${n_unsupported} of ${n_entries}).
 */
#include \"binding/binding.h\"
#include \"binding/unsupported.h\"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored \"-Wunused-parameter\"
#endif

${stubs}")

set(table_file "/* Generated by mpi_shim/api/gen_stubs.cmake from
 * include/weft_mpi_functions.h and the binding/ files: do not edit.
 * Every MPI function of the interface, and whether a binding implements
 * it (0: a stub reporting MPI_ERR_UNSUPPORTED_OPERATION).
 */
#ifndef WMPI_API_TABLE_H
#define WMPI_API_TABLE_H

#define WMPI_API_COUNT ${n_entries}
#define WMPI_API_UNSUPPORTED_COUNT ${n_unsupported}
#define WMPI_API_PARTIAL_COUNT ${n_partial}

static const struct wmpi_api_entry {
    const char *name;
    int implemented;
} wmpi_api_table[WMPI_API_COUNT] = {
${table}};

/* Implemented functions that still refuse one kind of communicator
 * (WMPI_UNSUPPORTED_ON in the bindings). */
static const struct wmpi_api_partial {
    const char *name;
    const char *kind;
} wmpi_api_partial[WMPI_API_PARTIAL_COUNT + 1] = {
${partial}    { 0, 0 }
};

#endif /* WMPI_API_TABLE_H */
")

# Write only on change, so dependents are not rebuilt for nothing.
function(write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()

file(MAKE_DIRECTORY "${OUT_DIR}")
write_if_changed("${OUT_DIR}/weft_mpi_stubs.c" "${stub_file}")
write_if_changed("${OUT_DIR}/weft_mpi_api_table.h" "${table_file}")
