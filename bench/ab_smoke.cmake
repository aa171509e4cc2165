# The smoke test of bench/ab (CTest bench_ab_smoke, label bench): runs ab
# over ab_fake, whose figures its environment and its build set, and
# checks the ratios ab parses, the order of the runs, the variant filter,
# dropped pairs and the exit statuses. Under a second.
# Usage: cmake -DAB=<ab> -DFAKE=<ab_fake> -DFAKE_OLD=<ab_fake_old> -P ab_smoke.cmake

# Run ab with ARGN, want exit status `want_rc`; its stdout goes to `out`.
function(run_ab want_rc)
  execute_process(COMMAND ${AB} --csv bench-out/ab-smoke.csv ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT rc STREQUAL want_rc)
    message(FATAL_ERROR "ab ${ARGN}: exit ${rc}, want ${want_rc}\n${o}\n${e}")
  endif()
  set(out "${o}" PARENT_SCOPE)
endfunction()

# Each argument must be in `out`, literally.
function(expect)
  foreach(text IN LISTS ARGN)
    string(FIND "${out}" "${text}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "missing: ${text}\nin:\n${out}")
    endif()
  endforeach()
endfunction()

set(ratio "result: bench=ab case=fake/N=1")

run_ab(0 --help)
expect("usage: ab" "--versus CMD_B")
run_ab(2 --pairs 0 --disable fake -- ${FAKE})
run_ab(2 --disable fake)

# --disable joins an existing WEFT_DISABLE; rtt doubles, throughput stays;
# --variant weft leaves out the openmpi line.
set(ENV{WEFT_DISABLE} other)
run_ab(0 --pairs 1 --verbose --disable fake -- ${FAKE})
unset(ENV{WEFT_DISABLE})
expect("WEFT_DISABLE=other,fake" "3 result lines (2 kept)"
       "${ratio}/rtt variant=on metric=median value=10.0 unit=us"
       "${ratio}/rtt variant=off metric=median value=20.0 unit=us"
       "${ratio}/rtt variant=ratio metric=median value=2.000 unit=ratio"
       "${ratio}/throughput variant=ratio metric=median value=1.000 unit=ratio")

# --env, labels, two pairs in the order A B, B A; the chart if gnuplot is there.
run_ab(0 --pairs 2 --env AB_FAKE_SCALE=3 --labels x,y --png bench-out/ab-smoke.png
       -- ${FAKE})
expect("run 1/4: pair 1, A (x)" "run 2/4: pair 1, B (y)"
       "run 3/4: pair 2, B (y)" "run 4/4: pair 2, A (x)"
       "${ratio}/throughput variant=ratio metric=median value=3.000 unit=ratio"
       "${ratio}/throughput variant=ratio metric=pair_max value=3.000 unit=ratio"
       "${ratio}/rtt variant=ratio metric=median value=1.000 unit=ratio")

# --versus: the old build's figures are 4 times the new one's.
run_ab(0 --pairs 1 --versus ${FAKE_OLD} -- ${FAKE})
expect("${ratio}/rtt variant=old metric=median value=40.0 unit=us"
       "${ratio}/rtt variant=ratio metric=median value=4.000 unit=ratio")

# --variant all keeps the openmpi figures, the variant in the case.
run_ab(0 --pairs 1 --variant all --disable fake -- ${FAKE})
expect("${ratio}/openmpi/rtt variant=ratio metric=median value=1.000 unit=ratio"
       "${ratio}/weft/rtt variant=ratio metric=median value=2.000 unit=ratio")

# Failed runs drop their pair and make the exit status 1.
run_ab(1 --pairs 2 --env AB_FAKE_FAIL=1 -- ${FAKE})
expect("note: pair 1 dropped: B (env) exit status 3"
       "note: pair 2 dropped: B (env) exit status 3")
run_ab(1 --pairs 1 --env AB_FAKE_SILENT=1 -- ${FAKE})
expect("note: pair 1 dropped: B (env) printed no result line")
run_ab(1 --pairs 1 --versus ./ab-no-such-program -- ${FAKE})
expect("note: pair 1 dropped: B (old) exit status 127")
