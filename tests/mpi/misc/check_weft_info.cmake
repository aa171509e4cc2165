# weft_info against the rest of Weft:
#   cmake -DWEFT_INFO=... -DMPIRUN=... -DVERSION=... -DREADME=... -P check_weft_info.cmake
# passes if `weft_info --parsable --all` gives VERSION, MPI function counts
# and lists equal to mpirun --list-unsupported's, a setting for every
# WEFT_* variable of the README's environment table, and says where a
# setting comes from; and if --help and a bad option behave.
function(run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
    TIMEOUT 20)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${ARGN}: status ${rc}\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# The value of key in parsable output (the first line "key:value").
function(value_of out_var text key)
  string(REGEX MATCH "(^|\n)${key}:([^\n]*)" m "${text}")
  if(NOT m)
    message(FATAL_ERROR "weft_info --parsable has no '${key}:' line")
  endif()
  set(${out_var} "${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()

run(info ${WEFT_INFO} --parsable --all)
value_of(v "${info}" version)
if(NOT v STREQUAL VERSION)
  message(FATAL_ERROR "weft_info says version ${v}, the project ${VERSION}")
endif()

# mpirun --list-unsupported: functions, then "F on KIND" lines, then
# "U of N MPI functions are not supported by Weft yet, P more not on ...".
run(list ${MPIRUN} --list-unsupported)
string(REGEX MATCH "([0-9]+) of ([0-9]+) MPI functions are not supported[^0-9]*([0-9]+) more"
  m "${list}")
if(NOT m)
  message(FATAL_ERROR "no counts in mpirun --list-unsupported:\n${list}")
endif()
set(want_unsupported ${CMAKE_MATCH_1})
set(want_functions ${CMAKE_MATCH_2})
set(want_partial ${CMAKE_MATCH_3})
math(EXPR want_supported "${want_functions} - ${want_unsupported}")
foreach(k functions supported unsupported partial)
  value_of(got "${info}" mpi:${k})
  if(NOT got EQUAL want_${k})
    message(FATAL_ERROR "weft_info: mpi:${k}:${got}; mpirun --list-unsupported: ${want_${k}}")
  endif()
endforeach()
string(REGEX MATCHALL "\nmpi:unsupported_function:[^\n]*" names "\n${info}")
list(LENGTH names n)
if(NOT n EQUAL want_unsupported)
  message(FATAL_ERROR "weft_info --all lists ${n} unsupported functions, not ${want_unsupported}")
endif()
foreach(line IN LISTS names)
  string(REPLACE "\nmpi:unsupported_function:" "" fn "${line}")
  if(NOT list MATCHES "(^|\n)${fn}\n")
    message(FATAL_ERROR "${fn}: unsupported for weft_info, not for mpirun")
  endif()
endforeach()

# Every variable of the README's environment table is a setting.
file(STRINGS ${README} rows REGEX "^\\| `WEFT_[A-Z0-9_]+` \\|")
if(NOT rows)
  message(FATAL_ERROR "no WEFT_* rows in ${README}")
endif()
foreach(row IN LISTS rows)
  string(REGEX MATCH "WEFT_[A-Z0-9_]+" var "${row}")
  if(NOT info MATCHES "(^|\n)setting:${var}:source:")
    message(FATAL_ERROR "the README's environment table has ${var}, weft_info does not: "
      "add it to settings[] in mpi_shim/info/weft_info.c")
  endif()
  value_of(src "${info}" setting:${var}:source)
  if(NOT src STREQUAL "default" AND NOT DEFINED ENV{${var}})
    message(FATAL_ERROR "${var}: source ${src}, but it is not in the environment")
  endif()
endforeach()

# A variable set in the environment is the value in force, and says so.
run(env ${CMAKE_COMMAND} -E env WEFT_WORKERS=1 WEFT_MPI_TRANSPORT=tcp
  ${WEFT_INFO} --parsable)
foreach(pair "WEFT_WORKERS;1" "WEFT_MPI_TRANSPORT;tcp")
  list(GET pair 0 var)
  list(GET pair 1 want)
  value_of(got "${env}" setting:${var}:value)
  value_of(src "${env}" setting:${var}:source)
  if(NOT got STREQUAL want OR NOT src STREQUAL "environment")
    message(FATAL_ERROR "${var}=${want} in the environment: weft_info says ${got} (${src})")
  endif()
endforeach()

run(help ${WEFT_INFO} --help)
if(NOT help MATCHES "--parsable" OR NOT help MATCHES "--all")
  message(FATAL_ERROR "weft_info --help does not name --all and --parsable:\n${help}")
endif()
execute_process(COMMAND ${WEFT_INFO} --no-such-option RESULT_VARIABLE rc
  OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 20)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown option")
  message(FATAL_ERROR "weft_info --no-such-option: status ${rc}, stderr '${err}'")
endif()
