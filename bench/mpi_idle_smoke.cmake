# The smoke test of bench/mpi_idle (CTest bench_mpi_idle_smoke, label
# bench): one repeat of 200 ms waits; checks the exit status, the table's
# rows, the `result:` lines and the CSV's header -- never the figures.
# Usage: cmake -DIDLE=<mpi_idle> -DWANT_OMPI=0|1 -P mpi_idle_smoke.cmake

set(csv bench-out/mpi_idle-smoke.csv)
execute_process(COMMAND ${IDLE} --wait-ms 200 --reps 1 --csv ${csv}
                        --png bench-out/mpi_idle-smoke.png
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpi_idle: exit ${rc}\n${out}\n${err}")
endif()

# Each regular expression must match somewhere in the output.
function(expect)
  foreach(re IN LISTS ARGN)
    if(NOT out MATCHES "${re}")
      message(FATAL_ERROR "missing: ${re}\nin:\n${out}")
    endif()
  endforeach()
endfunction()

set(num "[0-9][0-9.e+-]*")
set(variants weft)
if(WANT_OMPI)
  list(APPEND variants openmpi)
endif()
expect("bench=mpi_idle: CPU of rank 0 while it waits 200 ms"
       "scenario +variant +n +cpu % +wait s +goal +result")
foreach(case quiet load)
  expect("\n${case} +weft +1 +${num} \\[${num}-${num}\\] +${num} +<= 2 % +(PASS|FAIL)\n")
  foreach(v IN LISTS variants)
    expect("result: bench=mpi_idle case=${case} variant=${v} metric=cpu_percent value=${num} unit=percent\n")
  endforeach()
endforeach()
if(NOT WANT_OMPI)
  expect("openmpi: Open MPI is not installed")
endif()

file(STRINGS ${csv} lines)
list(GET lines 0 header)
if(NOT header STREQUAL "bench,case,variant,metric,median,min,max,unit")
  message(FATAL_ERROR "CSV header: ${header}")
endif()
