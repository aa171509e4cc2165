# Runs an MPI job one of whose ranks dies of a signal:
#   cmake -DMPIRUN=... -DNP=... -DPROG=... -DARGS="a;b" -DSTATUS=n
#         -DMESSAGES="<regex>;<regex>..." [-DABSENT=<regex>] -P expect_crash.cmake
# passes if mpirun exits with STATUS, its stderr matches every regex of
# MESSAGES and, if given, not ABSENT.
execute_process(COMMAND ${MPIRUN} -n ${NP} --timeout 60 ${PROG} ${ARGS}
  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
message(STATUS "job exit status: ${rc}\nstdout:\n${out}stderr:\n${err}")
if(NOT rc STREQUAL "${STATUS}")
  message(FATAL_ERROR "mpirun exited with ${rc}, want ${STATUS}")
endif()
foreach(re IN LISTS MESSAGES)
  if(NOT err MATCHES "${re}")
    message(FATAL_ERROR "mpirun's stderr does not match '${re}'")
  endif()
endforeach()
if(DEFINED ABSENT AND err MATCHES "${ABSENT}")
  message(FATAL_ERROR "mpirun's stderr matches '${ABSENT}', which it must not")
endif()
