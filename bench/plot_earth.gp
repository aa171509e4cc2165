# Chart of bench/earth (the CSV written by bench/earth): speed-up against
# one rank with one worker vs processing elements (ranks x workers), log
# scales, one panel per problem; weft and openmpi_pthreads, each a line
# through 1, 2, 4, 8 ranks of one worker (beyond this machine's 2 cores
# the ranks are oversubscribed) and a lone marker for 1 rank x 2 workers;
# bars from min to max. The EARTH paper's fib(32) figures, from its text
# (16 dual-processor nodes = 32 processors: 15 with RTS 2.0 and two
# execution modules, 10.5 with RTS 1.2), as reference markers; the ideal
# (speed-up = processing elements) dotted, this machine's 2 cores dashed.
# Usage: gnuplot -e "csv='bench-out/earth.csv'; out='bench-out/earth.png'" plot_earth.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 problem, 10 pes, 11 ranks, 12 workers. Rows of a curve are
# contiguous.

if (!exists("csv")) csv = "bench-out/earth.csv"
if (!exists("out")) out = "bench-out/earth.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200, 560 noenhanced font ",10"
} else {
    set terminal png size 1200, 560 noenhanced
}
set output out
set datafile separator ","

# Column c of a speed-up row of (problem p, variant v) whose points have
# one worker per rank (w = 1) or several (w = 0), else NaN.
sel(p, v, w, c) = (strcol(9) eq p && strcol(3) eq v && strcol(4) eq "speedup" \
                   && (column(12) == 1) == w) ? column(c) : NaN

# The paper's figures from its text: processors, speed-up.
$paper20 << EOD
32,15
EOD
$paper12 << EOD
32,10.5
EOD

set logscale xy 2
set xrange [0.8:40]
set yrange [0.25:40]
set xtics (1, 2, 4, 8, 16, 32)
set ytics (0.25, 0.5, 1, 2, 4, 8, 16, 32)
set xlabel "processing elements (ranks x workers)"
set ylabel "speed-up vs 1 rank x 1 worker"
set grid xtics ytics
set key top left

variants = "weft openmpi_pthreads"
problems = "fib queens"
set multiplot layout 1, 2 title "bench/earth: speed-up (median; bars min-max), EARTH's fib and N-queens over MPI ranks with work stealing"
do for [k = 1:words(problems)] {
    p = word(problems, k)
    set title p
    if (p eq "fib") {
        plot x with lines dt 3 lc rgb "gray" title "ideal", \
             (x < 2 ? x : 2) with lines dt 2 lc rgb "gray50" title "this machine: 2 cores", \
             for [i = 1:words(variants)] csv every ::1 \
                 using (sel(p, word(variants, i), 1, 10)):5:6:7 with yerrorlines \
                 lc i pt 7 title word(variants, i)." (ranks x 1)", \
             for [i = 1:words(variants)] csv every ::1 \
                 using (sel(p, word(variants, i), 0, 10)):5:6:7 with yerrorbars \
                 lc i pt 5 ps 1.5 title word(variants, i)." (1 x 2 workers)", \
             $paper20 using 1:2 with points pt 9 ps 2 lc rgb "black" title "EARTH RTS 2.0, 2 EMs (paper)", \
             $paper12 using 1:2 with points pt 8 ps 2 lc rgb "black" title "EARTH RTS 1.2 (paper)"
    } else {
        plot x with lines dt 3 lc rgb "gray" title "ideal", \
             (x < 2 ? x : 2) with lines dt 2 lc rgb "gray50" title "this machine: 2 cores", \
             for [i = 1:words(variants)] csv every ::1 \
                 using (sel(p, word(variants, i), 1, 10)):5:6:7 with yerrorlines \
                 lc i pt 7 title word(variants, i)." (ranks x 1)", \
             for [i = 1:words(variants)] csv every ::1 \
                 using (sel(p, word(variants, i), 0, 10)):5:6:7 with yerrorbars \
                 lc i pt 5 ps 1.5 title word(variants, i)." (1 x 2 workers)"
    }
}
unset multiplot
