# test_mpicc_findmpi: configure tests/mpi/findmpi with FindMPI pointed at
# our mpicc, build it, build the same hello with mpicc directly, and run
# both with our mpirun on 2 ranks. With -DMPICXX=<mpicxx> the same for C++
# (find_package(MPI COMPONENTS C CXX), and mpicxx directly).
#   cmake -DSRC=... -DBIN=... -DMPICC=... -DMPIRUN=... -DGENERATOR=...
#         [-DMPICXX=...] [-DSANITIZE_FLAGS=-fsanitize=...] -P run.cmake
# With SANITIZE_FLAGS the hello programs are built with the sanitizer too
# (the libraries need its runtime loaded first).
foreach(v SRC BIN MPICC MPIRUN GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()
set(san_flags "${SANITIZE_FLAGS}")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

function(check_hello prog)
  run("mpirun -n 2 ${prog}" ${MPIRUN} -n 2 --timeout 60 ${prog})
  foreach(r 0 1)
    if(NOT last_out MATCHES "hello from rank ${r} of 2")
      message(FATAL_ERROR "${prog}: rank ${r} did not say hello:\n${last_out}")
    endif()
  endforeach()
endfunction()

set(cxx_args "")
if(MPICXX)
  set(cxx_args -DWITH_CXX=ON -DMPI_CXX_COMPILER=${MPICXX} "-DCMAKE_CXX_FLAGS=${san_flags}")
endif()

file(REMOVE_RECURSE ${BIN})
run("configure" ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -G ${GENERATOR}
    -DMPI_C_COMPILER=${MPICC} -DMPIEXEC_EXECUTABLE=${MPIRUN}
    "-DCMAKE_C_FLAGS=${san_flags}" ${cxx_args})
run("build" ${CMAKE_COMMAND} --build ${BIN})
check_hello(${BIN}/hello)

run("mpicc" ${MPICC} ${san_flags} ${SRC}/hello.c -o ${BIN}/hello_mpicc)
check_hello(${BIN}/hello_mpicc)
message(STATUS "find_package(MPI) and mpicc: ok")

if(MPICXX)
  check_hello(${BIN}/hello_cxx)
  run("mpicxx" ${MPICXX} ${san_flags} ${SRC}/hello_cxx.cpp -o ${BIN}/hello_mpicxx)
  check_hello(${BIN}/hello_mpicxx)
  message(STATUS "find_package(MPI COMPONENTS C CXX) and mpicxx: ok")
endif()
