# A suite of MPI test programs: plain MPI programs (no Weft header needed)
# run through our mpirun with several rank counts. Each suite directory
# holds the programs (<program>.c) and a `testlist`, one test a line:
#   <program> <ranks> [env=VAR=VALUE ...]
# Each line becomes the CTest test mpi_<program>_np<ranks>[_<ENV>] (label
# mpi). If Open MPI is installed (mpicc.openmpi), the same programs are
# also built with its mpicc and run with its mpirun (tests ompi_..., labels
# mpi;openmpi): the tests must test MPI, not Weft's quirks.
# Programs include "mpi_test_util.h" (tests/mpi/common).
#
# A suite's CMakeLists.txt is: include(../suite.cmake) then
# mpi_test_suite(), plus any special tests it adds with mpi_test_program().
find_package(Threads REQUIRED)
find_program(OMPI_MPICC NAMES mpicc.openmpi)
find_program(OMPI_MPIRUN NAMES mpirun.openmpi)

set(MPI_TEST_MPIRUN ${CMAKE_BINARY_DIR}/bin/mpirun)
set(MPI_TEST_COMMON ${CMAKE_CURRENT_LIST_DIR}/common)
set(MPI_TEST_TIMEOUT 60) # seconds, mpirun --timeout; CTest gets 30 more

# mpi_test_program(<program>): the Weft build and, with Open MPI, the other.
function(mpi_test_program prog)
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  add_executable(${prog} ${dir}/${prog}.c)
  target_include_directories(${prog} PRIVATE ${MPI_TEST_COMMON})
  target_link_libraries(${prog} PRIVATE weft_mpi Threads::Threads m)
  if(OMPI_MPICC)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/ompi/${prog})
    file(GLOB headers ${dir}/*.h ${MPI_TEST_COMMON}/*.h)
    add_custom_command(OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/ompi
      COMMAND ${OMPI_MPICC} -std=c11 -D_GNU_SOURCE -O2 -I${MPI_TEST_COMMON}
              -o ${out} ${dir}/${prog}.c -pthread -lm
      DEPENDS ${dir}/${prog}.c ${headers} VERBATIM)
    add_custom_target(ompi_${prog} ALL DEPENDS ${out})
  endif()
endfunction()

# mpi_test_run(<program> <ranks> [ENV VAR=VALUE...] [SUFFIX s])
function(mpi_test_run prog np)
  cmake_parse_arguments(T "" "SUFFIX" "ENV" ${ARGN})
  set(name mpi_${prog}_np${np}${T_SUFFIX})
  add_test(NAME ${name}
    COMMAND ${MPI_TEST_MPIRUN} -n ${np} --timeout ${MPI_TEST_TIMEOUT}
            $<TARGET_FILE:${prog}>)
  math(EXPR limit "${MPI_TEST_TIMEOUT} + 30")
  set_tests_properties(${name} PROPERTIES LABELS mpi TIMEOUT ${limit}
    ENVIRONMENT "${T_ENV}")
  if(OMPI_MPICC AND OMPI_MPIRUN)
    add_test(NAME ompi_${prog}_np${np}${T_SUFFIX}
      COMMAND ${OMPI_MPIRUN} -n ${np} --oversubscribe --timeout ${MPI_TEST_TIMEOUT}
              ${CMAKE_CURRENT_BINARY_DIR}/ompi/${prog})
    set_tests_properties(ompi_${prog}_np${np}${T_SUFFIX} PROPERTIES
      LABELS "mpi;openmpi" TIMEOUT ${limit}
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;${T_ENV}")
  endif()
endfunction()

# mpi_test_suite(): every line of this directory's testlist.
function(mpi_test_suite)
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/testlist lines REGEX "^[^#]")
  set(seen "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
    list(POP_FRONT fields prog np)
    if(NOT prog IN_LIST seen)
      mpi_test_program(${prog})
      list(APPEND seen ${prog})
    endif()
    set(env "")
    foreach(f IN LISTS fields)
      string(REGEX REPLACE "^env=" "" kv "${f}")
      list(APPEND env "${kv}")
    endforeach()
    set(suffix "")
    if(env)
      string(MAKE_C_IDENTIFIER "${env}" suffix)
      set(suffix "_${suffix}")
    endif()
    mpi_test_run(${prog} ${np} ENV ${env} SUFFIX "${suffix}")
  endforeach()
endfunction()
