# Runs an MPI job that must fail promptly: `cmake -DMPIRUN=... -DNP=...
# -DPROG=... -P expect_failure.cmake` passes if the job exits non-zero and
# not through mpirun's --timeout (status 124): an error, never a hang.
execute_process(COMMAND ${MPIRUN} -n ${NP} --timeout 60 ${PROG}
  RESULT_VARIABLE rc)
message(STATUS "job exit status: ${rc}")
if(rc STREQUAL "0")
  message(FATAL_ERROR "the job succeeded; it should have failed")
elseif(rc STREQUAL "124")
  message(FATAL_ERROR "the job hung until mpirun's timeout")
endif()
