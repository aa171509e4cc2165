# iface_ompi_names: every MPI-3.1 function Open MPI's mpi.h declares is in
# Weft's one list (mpi_shim/include/weft_mpi_functions.h), and every
# MPI-3.1 constant and type it defines is in Weft's mpi.h. Open MPI 4.1
# also declares what MPI-3.0 removed (as compile errors) and a few extras
# of its own; those are not MPI-3.1 and are left out. Skipped (SKIPPED: in
# the output) when Open MPI is not installed.
#   cmake -DLIST=<weft_mpi_functions.h> -DMPI_H=<Weft's mpi.h>
#         [-DOMPI_MPICC=<mpicc.openmpi>] -P ompi_names.cmake
cmake_minimum_required(VERSION 3.20)
set(removed_in_mpi30 Address Type_extent Type_hindexed Type_hvector Type_lb
    Type_struct Type_ub Errhandler_create Errhandler_get Errhandler_set)
set(not_mpi31_constants MPI_LB MPI_UB MPI_COMBINER_HINDEXED_INTEGER
    MPI_COMBINER_HVECTOR_INTEGER MPI_COMBINER_STRUCT_INTEGER
    MPI_CXX_COMPLEX MPI_LOGICAL1 MPI_LOGICAL2 MPI_LOGICAL4 MPI_LOGICAL8)

if(NOT OMPI_MPICC)
  message("SKIPPED: Open MPI's mpicc is not installed")
  return()
endif()
execute_process(COMMAND ${OMPI_MPICC} --showme:incdirs
  OUTPUT_VARIABLE incdirs OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
set(header "")
if(rc EQUAL 0)
  separate_arguments(incdirs)
  foreach(d IN LISTS incdirs)
    if(EXISTS "${d}/mpi.h" AND NOT header)
      set(header "${d}/mpi.h")
    endif()
  endforeach()
endif()
if(NOT header)
  message("SKIPPED: Open MPI's mpi.h not found")
  return()
endif()

# Open MPI declares each function as "OMPI_DECLSPEC <type> MPI_<Name> (" and
# defines MPI_Aint_add/diff as macros "#define MPI_Aint_add(".
file(READ "${header}" ompi)
string(REGEX MATCHALL "(OMPI_DECLSPEC[ \t]+[A-Za-z_ *]+[ \t*]|#define[ \t]+)MPI_[A-Z][A-Za-z0-9_]*[ \t]*\\("
  decls "${ompi}")
set(ompi_names "")
foreach(d IN LISTS decls)
  string(REGEX REPLACE ".*MPI_([A-Za-z0-9_]+)[ \t]*\\($" "\\1" n "${d}")
  if(n MATCHES "[a-z]") # functions, not constants (MPI_T_ENUM_NULL)
    list(APPEND ompi_names ${n})
  endif()
endforeach()
list(REMOVE_DUPLICATES ompi_names)
list(REMOVE_ITEM ompi_names ${removed_in_mpi30})
list(LENGTH ompi_names n_ompi)
if(n_ompi LESS 350)
  message(FATAL_ERROR "only ${n_ompi} functions found in ${header}: the pattern is out of date")
endif()

file(READ "${LIST}" text)
string(REGEX MATCHALL "WMPI_FN\\([^,()]+,[ \t\r\n]*[A-Za-z0-9_]+," entries "${text}")
set(ours "")
foreach(e IN LISTS entries)
  string(REGEX REPLACE ".*,[ \t\r\n]*([A-Za-z0-9_]+),$" "\\1" n "${e}")
  list(APPEND ours ${n})
endforeach()

set(missing "")
foreach(n IN LISTS ompi_names)
  if(NOT n IN_LIST ours)
    list(APPEND missing "MPI_${n}")
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "in Open MPI's mpi.h but not in ${LIST}: ${missing}")
endif()
message(STATUS "all ${n_ompi} MPI-3.1 functions of ${header} are in the list")

# Constants (upper-case names) and types (typedef names) of Open MPI's
# header, comments dropped; each must be a word of Weft's mpi.h.
string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" ompi "${ompi}")
# ';' separates CMake list items and brackets group them: mark statement
# ends with '@' and drop brackets, so matches stay whole list items.
string(REPLACE ";" "@" ompi "${ompi}")
string(REGEX REPLACE "[][]" " " ompi "${ompi}")
# Whole words only (not OMPI_MPI_H): every separator doubled, so that two
# adjacent words each keep one on both sides.
string(REGEX REPLACE "([^A-Za-z0-9_])" "\\1\\1" doubled "${ompi}")
string(REGEX MATCHALL "[^A-Za-z0-9_]MPI_[A-Z][A-Z0-9_]*[^A-Za-z0-9_]" tokens "${doubled}")
set(names "")
foreach(t IN LISTS tokens)
  string(LENGTH "${t}" len)
  math(EXPR len "${len} - 2")
  string(SUBSTRING "${t}" 1 ${len} t)
  list(APPEND names ${t})
endforeach()
string(REGEX MATCHALL "typedef[^@]*@" typedefs "${ompi}")
foreach(t IN LISTS typedefs)
  if(t MATCHES "\\((MPI_[A-Za-z0-9_]+)\\)")
    list(APPEND names ${CMAKE_MATCH_1})
  elseif(t MATCHES "(MPI_[A-Za-z0-9_]+)[ \t]*@$")
    list(APPEND names ${CMAKE_MATCH_1})
  endif()
endforeach()
list(REMOVE_DUPLICATES names)
list(REMOVE_ITEM names ${not_mpi31_constants})
list(LENGTH names n_names)
file(READ "${MPI_H}" weft)
set(missing "")
foreach(n IN LISTS names)
  if(NOT weft MATCHES "[^A-Za-z0-9_]${n}[^A-Za-z0-9_]")
    list(APPEND missing ${n})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "in Open MPI's mpi.h but not in ${MPI_H}: ${missing}")
endif()
message(STATUS "all ${n_names} MPI-3.1 constants and types of ${header} are in mpi.h")
