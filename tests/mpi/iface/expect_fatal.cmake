# iface_unsupported_fatal: under MPI_ERRORS_ARE_FATAL (the default) a call
# of an unsupported function stops the job, non-zero, naming the function.
#   cmake -DMPIRUN=<mpirun> -DPROG=<iface_all> -P expect_fatal.cmake
execute_process(COMMAND ${MPIRUN} -n 1 --timeout 60 ${PROG} fatal
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "job exit status: ${rc}\n${out}${err}")
if(rc STREQUAL "0")
  message(FATAL_ERROR "the job succeeded; MPI_Comm_spawn should have stopped it")
elseif(rc STREQUAL "124")
  message(FATAL_ERROR "the job hung until mpirun's timeout")
endif()
if(NOT "${out}${err}" MATCHES "MPI_Comm_spawn is not supported by Weft yet")
  message(FATAL_ERROR "the message does not name MPI_Comm_spawn as unsupported")
endif()
if("${out}${err}" MATCHES "returned under MPI_ERRORS_ARE_FATAL")
  message(FATAL_ERROR "MPI_Comm_spawn returned instead of stopping the job")
endif()
