# iface_list_unsupported: `mpirun --list-unsupported` prints the unsupported
# functions, one a line, then "<n> of <total> MPI functions are not
# supported by Weft yet", and exits 0; n is the number of names listed.
#   cmake -DMPIRUN=<mpirun> -P list_unsupported.cmake
execute_process(COMMAND ${MPIRUN} --list-unsupported
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "mpirun --list-unsupported exited ${rc}:\n${out}${err}")
endif()
if(NOT out MATCHES "\nMPI_Win_create\n" OR NOT out MATCHES "\nMPI_File_open\n")
  message(FATAL_ERROR "MPI_Win_create or MPI_File_open is not listed:\n${out}")
endif()
if(out MATCHES "\nMPI_Send\n" OR out MATCHES "\nMPI_Init\n")
  message(FATAL_ERROR "an implemented function is listed:\n${out}")
endif()
if(NOT out MATCHES "\n([0-9]+) of ([0-9]+) MPI functions are not supported by Weft yet\n$")
  message(FATAL_ERROR "no count line:\n${out}")
endif()
set(n ${CMAKE_MATCH_1})
set(total ${CMAKE_MATCH_2})
string(REGEX MATCHALL "\nMPI_[A-Za-z0-9_]+" names "\n${out}")
list(LENGTH names listed)
if(NOT listed EQUAL n OR n GREATER_EQUAL total OR total LESS 400)
  message(FATAL_ERROR "count line says ${n} of ${total}, ${listed} names listed")
endif()
message(STATUS "${n} of ${total} functions unsupported")
