# Runs an MPI job that must end with a given status and message:
#   cmake -DMPIRUN=... -DNP=... -DPROG=... -DARGS="a;b" -DSTATUS=n
#         -DMESSAGE=<regex> -P expect_exit.cmake
# passes if mpirun exits with STATUS (never 124: a hang until --timeout)
# and its stderr matches MESSAGE.
execute_process(COMMAND ${MPIRUN} -n ${NP} --timeout 60 ${PROG} ${ARGS}
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
message(STATUS "job exit status: ${rc}\nstdout:\n${out}stderr:\n${err}")
if(NOT rc STREQUAL "${STATUS}")
  message(FATAL_ERROR "mpirun exited with ${rc}, want ${STATUS}")
endif()
if(NOT err MATCHES "${MESSAGE}")
  message(FATAL_ERROR "mpirun's stderr does not match '${MESSAGE}'")
endif()
