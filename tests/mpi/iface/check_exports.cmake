# libweft_mpi exports the MPI interface and nothing of the engine:
# `cmake -DLIB=<libweft_mpi.so> -P check_exports.cmake` fails if a defined
# dynamic function symbol is neither MPI_/PMPI_ nor wmpi_pub_ (the callbacks
# mpi.h's macros name). Data objects (predefined handles) are allowed.
execute_process(COMMAND nm -D --defined-only ${LIB}
  OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[0-9a-f]+ [TtWi] [A-Za-z_][A-Za-z0-9_]*" funcs "${syms}")
set(bad "")
foreach(f IN LISTS funcs)
  string(REGEX REPLACE "^[0-9a-f]+ [TtWi] " "" name "${f}")
  if(NOT name MATCHES "^P?MPI_" AND NOT name MATCHES "^wmpi_pub_"
     AND NOT name MATCHES "^_(init|fini)$")
    list(APPEND bad ${name})
  endif()
endforeach()
list(LENGTH funcs n)
if(bad)
  message(FATAL_ERROR "internal functions exported by ${LIB}: ${bad}")
endif()
message(STATUS "${n} exported functions, all MPI_, PMPI_ or wmpi_pub_")
