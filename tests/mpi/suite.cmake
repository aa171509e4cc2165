# A suite of MPI test programs: plain MPI programs (no Weft header needed)
# run through our mpirun with several rank counts. Each suite directory
# holds the programs (<program>.c) and a `testlist`, one test a line:
#   <program> <ranks> [env=VAR=VALUE ...]
# Each line becomes the CTest test mpi_<program>_np<ranks>[_<ENV>] (label
# mpi). Lines run over the default transport (shared memory between the
# ranks of one host); each program's first line with several ranks runs
# once more over TCP (WEFT_MPI_TRANSPORT=tcp, test name suffix _tcp). If
# Open MPI is installed (mpicc.openmpi), the same programs are also built
# with its mpicc and run with its mpirun (tests ompi_..., labels
# mpi;openmpi): the tests must test MPI, not Weft's quirks.
# A line may also carry the word `pmix`: the Weft build then runs once
# more under Open MPI's mpirun (test pmix_<program>_np<ranks>[_<ENV>],
# labels mpi;pmix), joining that job through PMIx, and must pass exactly as
# under Weft's mpirun. Those tests exist when Open MPI is installed and
# Weft was built with PMIx.
# Programs include "mpi_test_util.h" (tests/mpi/common).
#
# A suite's CMakeLists.txt is: include(../suite.cmake) then
# mpi_test_suite(), plus any special tests it adds with mpi_test_program().
# mpi_test_suite(WRAPPED) builds the programs with our mpicc/mpicxx
# wrappers instead (tests/mpi/apps).
find_package(Threads REQUIRED)
find_program(OMPI_MPICC NAMES mpicc.openmpi)
find_program(OMPI_MPICXX NAMES mpicxx.openmpi)
find_program(OMPI_MPIRUN NAMES mpirun.openmpi)

set(MPI_TEST_MPIRUN ${CMAKE_BINARY_DIR}/bin/mpirun)
set(MPI_TEST_COMMON ${CMAKE_CURRENT_LIST_DIR}/common)
set(MPI_TEST_TIMEOUT 60) # seconds, mpirun --timeout; CTest gets 30 more

set(MPI_TEST_PMIX OFF) # Weft's ranks can join a PMIx launcher's job
# libpmix's own leftovers, which sanitized builds must not count as leaks.
set(MPI_TEST_PMIX_LSAN
  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan_pmix.supp:print_suppressions=0")
if(TARGET weft_mpi_boot)
  get_target_property(MPI_TEST_BOOT_DEFS weft_mpi_boot INTERFACE_COMPILE_DEFINITIONS)
  if(WMPI_HAVE_PMIX IN_LIST MPI_TEST_BOOT_DEFS)
    set(MPI_TEST_PMIX ON)
  endif()
endif()

# mpi_test_program(<program> [WRAPPED]): the Weft build and, with Open
# MPI, the other (target ompi_<program>, ompi/<program>). WRAPPED builds
# <program>.c with bin/mpicc (or <program>.cpp with bin/mpicxx) into
# wrapped/<program>, as a user would, instead of as a CMake executable.
# Sets MPI_TEST_BUILT to whether the program could be built (C++ needs a
# compiler).
function(mpi_test_program prog)
  cmake_parse_arguments(T "WRAPPED" "" "" ${ARGN})
  set(dir ${CMAKE_CURRENT_SOURCE_DIR})
  if(T_WRAPPED AND EXISTS ${dir}/${prog}.cpp)
    if(NOT CMAKE_CXX_COMPILER)
      message(STATUS "no C++ compiler: ${prog} is skipped")
      set(MPI_TEST_BUILT OFF PARENT_SCOPE)
      return()
    endif()
    mpi_test_wrapped_program(${prog} ${dir}/${prog}.cpp mpicxx
                             WEFT_MPICXX_CXX=${CMAKE_CXX_COMPILER})
    mpi_test_ompi_program(${prog} ${dir}/${prog}.cpp "${OMPI_MPICXX}")
  elseif(T_WRAPPED)
    mpi_test_wrapped_program(${prog} ${dir}/${prog}.c mpicc
                             WEFT_MPICC_CC=${CMAKE_C_COMPILER})
    mpi_test_ompi_program(${prog} ${dir}/${prog}.c "${OMPI_MPICC}")
  else()
    add_executable(${prog} ${dir}/${prog}.c)
    target_include_directories(${prog} PRIVATE ${MPI_TEST_COMMON})
    target_link_libraries(${prog} PRIVATE weft_mpi Threads::Threads m)
    mpi_test_ompi_program(${prog} ${dir}/${prog}.c "${OMPI_MPICC}"
                 -std=c11 -D_GNU_SOURCE -I${MPI_TEST_COMMON})
  endif()
  set(MPI_TEST_BUILT ON PARENT_SCOPE)
endfunction()

# mpi_test_wrapped_program(<program> <source> <wrapper> <VAR=compiler>):
# for mpi_test_program(WRAPPED), as part of the default build.
function(mpi_test_wrapped_program prog src wrapper compiler)
  set(bin ${CMAKE_CURRENT_BINARY_DIR}/wrapped)
  set(san ${WEFT_SANITIZE_FLAGS}) # the libraries need the sanitizer's runtime
  file(GLOB headers ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  add_custom_command(OUTPUT ${bin}/${prog}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${bin}
    COMMAND ${CMAKE_COMMAND} -E env ${compiler}
            ${CMAKE_BINARY_DIR}/bin/${wrapper} -O2 -g -Wall -Wextra -Werror ${san}
            -o ${bin}/${prog} ${src} -lm
    DEPENDS ${src} ${headers} ${PROJECT_SOURCE_DIR}/mpi_shim/include/mpi.h
            ${PROJECT_SOURCE_DIR}/mpi_shim/mpicc.in weft_mpi weft
    COMMENT "Building ${prog} with ${wrapper}" VERBATIM)
  add_custom_target(${prog} ALL DEPENDS ${bin}/${prog})
endfunction()

# mpi_test_ompi_program(<program> <source> <compiler> [flags...]):
# ompi/<program> built with Open MPI's <compiler>, unless that is empty.
function(mpi_test_ompi_program prog src cc)
  if(NOT cc)
    return()
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/ompi/${prog})
  file(GLOB headers ${CMAKE_CURRENT_SOURCE_DIR}/*.h ${MPI_TEST_COMMON}/*.h)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/ompi
    COMMAND ${cc} ${ARGN} -O2 -o ${out} ${src} -pthread -lm
    DEPENDS ${src} ${headers} VERBATIM)
  add_custom_target(ompi_${prog} ALL DEPENDS ${out})
endfunction()

# mpi_test_run(<program> <ranks> [WRAPPED] [WEFT_ONLY] [ENV VAR=VALUE...]
#              [WEFT_ENV VAR=VALUE...] [SUFFIX s]); WEFT_ONLY: no Open MPI
#              counterpart (nor is there one when every ENV variable is a
#              WEFT_* one); WEFT_ENV: set for the Weft run only.
function(mpi_test_run prog np)
  cmake_parse_arguments(T "WRAPPED;WEFT_ONLY" "SUFFIX" "ENV;WEFT_ENV" ${ARGN})
  set(name mpi_${prog}_np${np}${T_SUFFIX})
  set(exe $<TARGET_FILE:${prog}>)
  if(T_WRAPPED)
    set(exe ${CMAKE_CURRENT_BINARY_DIR}/wrapped/${prog})
  endif()
  add_test(NAME ${name}
    COMMAND ${MPI_TEST_MPIRUN} -n ${np} --timeout ${MPI_TEST_TIMEOUT} ${exe})
  math(EXPR limit "${MPI_TEST_TIMEOUT} + 30")
  set_tests_properties(${name} PROPERTIES LABELS mpi TIMEOUT ${limit}
    ENVIRONMENT "${T_WEFT_ENV};${T_ENV}")
  # Settings that only Weft reads change nothing for Open MPI: a run whose
  # environment holds nothing else would repeat the run without it.
  set(other_env "${T_ENV}")
  list(FILTER other_env EXCLUDE REGEX "^WEFT_")
  if(T_ENV AND NOT other_env)
    set(T_WEFT_ONLY TRUE)
  endif()
  if(TARGET ompi_${prog} AND OMPI_MPIRUN AND NOT T_WEFT_ONLY)
    add_test(NAME ompi_${prog}_np${np}${T_SUFFIX}
      COMMAND ${OMPI_MPIRUN} -n ${np} --oversubscribe --timeout ${MPI_TEST_TIMEOUT}
              ${CMAKE_CURRENT_BINARY_DIR}/ompi/${prog})
    set_tests_properties(ompi_${prog}_np${np}${T_SUFFIX} PROPERTIES
      LABELS "mpi;openmpi" TIMEOUT ${limit}
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;${T_ENV}")
  endif()
endfunction()

# mpi_test_run_pmix(<program> <ranks> [WRAPPED] [ENV VAR=VALUE...]
#                   [WEFT_ENV VAR=VALUE...] [SUFFIX s]): the Weft build
# started by Open MPI's mpirun, which Weft's ranks join through PMIx.
function(mpi_test_run_pmix prog np)
  cmake_parse_arguments(T "WRAPPED" "SUFFIX" "ENV;WEFT_ENV" ${ARGN})
  if(NOT OMPI_MPIRUN OR NOT MPI_TEST_PMIX)
    return()
  endif()
  set(name pmix_${prog}_np${np}${T_SUFFIX})
  set(exe $<TARGET_FILE:${prog}>)
  if(T_WRAPPED)
    set(exe ${CMAKE_CURRENT_BINARY_DIR}/wrapped/${prog})
  endif()
  add_test(NAME ${name}
    COMMAND ${OMPI_MPIRUN} -n ${np} --oversubscribe --timeout ${MPI_TEST_TIMEOUT} ${exe})
  math(EXPR limit "${MPI_TEST_TIMEOUT} + 30")
  set_tests_properties(${name} PROPERTIES LABELS "mpi;pmix" TIMEOUT ${limit}
    ENVIRONMENT
      "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;${MPI_TEST_PMIX_LSAN};${T_WEFT_ENV};${T_ENV}")
endfunction()

# mpi_test_suite([WRAPPED] [TRANSPORT t]): every line of this directory's
# testlist, programs built as mpi_test_program(... WRAPPED) says. With
# TRANSPORT, the lines' Weft runs (but the TCP one) set WEFT_MPI_TRANSPORT=t,
# so a transport that cannot start fails them instead of giving way to TCP.
function(mpi_test_suite)
  cmake_parse_arguments(T "WRAPPED" "TRANSPORT" "" ${ARGN})
  set(weft_env "")
  if(T_TRANSPORT)
    set(weft_env WEFT_MPI_TRANSPORT=${T_TRANSPORT})
  endif()
  set(wrapped "")
  if(T_WRAPPED)
    set(wrapped WRAPPED)
  endif()
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/testlist lines REGEX "^[^#]")
  set(seen "")
  set(skipped "")
  set(over_tcp "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "[ \t]+" ";" fields "${line}")
    list(POP_FRONT fields prog np)
    if(prog IN_LIST skipped)
      continue()
    endif()
    if(NOT prog IN_LIST seen)
      mpi_test_program(${prog} ${wrapped})
      list(APPEND seen ${prog})
      if(NOT MPI_TEST_BUILT)
        list(APPEND skipped ${prog})
        continue()
      endif()
    endif()
    set(env "")
    set(pmix OFF)
    foreach(f IN LISTS fields)
      if(f STREQUAL "pmix")
        set(pmix ON)
        continue()
      endif()
      string(REGEX REPLACE "^env=" "" kv "${f}")
      list(APPEND env "${kv}")
    endforeach()
    set(suffix "")
    if(env)
      string(MAKE_C_IDENTIFIER "${env}" suffix)
      set(suffix "_${suffix}")
    endif()
    mpi_test_run(${prog} ${np} ${wrapped} ENV ${env} WEFT_ENV ${weft_env}
                 SUFFIX "${suffix}")
    if(pmix)
      mpi_test_run_pmix(${prog} ${np} ${wrapped} ENV ${env} WEFT_ENV ${weft_env}
                        SUFFIX "${suffix}")
    endif()
    # Ranks of one host talk through shared memory; each program's first
    # multi-rank line runs once more over TCP, the transport between hosts.
    if(np GREATER 1 AND NOT prog IN_LIST over_tcp)
      list(APPEND over_tcp ${prog})
      mpi_test_run(${prog} ${np} ${wrapped} WEFT_ONLY
                   ENV ${env} WEFT_MPI_TRANSPORT=tcp SUFFIX "${suffix}_tcp")
    endif()
  endforeach()
endfunction()
