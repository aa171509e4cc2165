# Chart of bench/clam (the CSV written by bench/clam), in the paper's
# layout: work done (per second of the worker's CPU, % of the no-traffic
# baseline's) and packets lost per second against the mean inter-arrival
# time (Poisson source, log x), and the same against rho (the paper's
# Markov source); one line per schedule, Weft's (solid) and the paper's
# (dashed).
# Usage: gnuplot -e "csv='bench-out/clam.csv'; out='bench-out/clam.png'" plot_clam.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 kind, 10 x. Rows of one curve are contiguous.

if (!exists("csv")) csv = "bench-out/clam.csv"
if (!exists("out")) out = "bench-out/clam.png"

set datafile separator ","
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400, 1000 noenhanced font ",10"
} else {
    set terminal png size 1400, 1000 noenhanced
}
set output out

weft = "polling signal blocker default"
paper = "SPR SNR SANR SINR SAINR"
# The median of the row if it is (kind k, variant v, metric m), else NaN.
sel(k, v, m) = (strcol(9) eq k && strcol(3) eq v && strcol(4) eq m) ? column(5) : NaN

set grid
set key outside right top vertical
set multiplot layout 2, 2 title "bench/clam: receive-thread schedules (CLAM paper, times / 100)"

set logscale x
set xrange [70:3500]
set xlabel "mean inter-arrival time, us (Poisson; log scale)"
# The goal: the default keeps 90 % of the work.
set arrow 1 from graph 0, first 90 to graph 1, first 90 nohead lc rgb "black" dt 3
set ylabel "work per worker CPU second, % of no-traffic baseline"
set title "work done vs inter-arrival time (paper Figs. 3a, 5a, 7a, 8a, 9a)"
plot for [i = 1:words(weft)] csv every ::1 using 10:(sel("poisson", word(weft, i), "work_cpu_pct")) \
        with linespoints lc i lw 2 pt 7 title word(weft, i), \
     for [i = 1:words(paper)] csv every ::1 using 10:(sel("poisson", word(paper, i), "work_cpu_pct")) \
        with linespoints lc (i + 4) lw 1.5 dt 2 pt 6 title word(paper, i)

unset arrow 1
set ylabel "packets lost per second"
set title "packet loss vs inter-arrival time (paper Figs. 3b, 5b, 7b, 8b, 9b)"
plot for [i = 1:words(weft)] csv every ::1 using 10:(sel("poisson", word(weft, i), "lost_per_s")) \
        with linespoints lc i lw 2 pt 7 title word(weft, i), \
     for [i = 1:words(paper)] csv every ::1 using 10:(sel("poisson", word(paper, i), "lost_per_s")) \
        with linespoints lc (i + 4) lw 1.5 dt 2 pt 6 title word(paper, i)

unset logscale x
set xrange [-0.7:1.0]
set xlabel "correlation rho (Markov source: 100 us in H, 1 ms in L)"
set arrow 1 from graph 0, first 90 to graph 1, first 90 nohead lc rgb "black" dt 3
set ylabel "work per worker CPU second, % of no-traffic baseline"
set title "work done vs rho (paper Figs. 10a, 11a)"
plot for [i = 1:words(weft)] csv every ::1 using 10:(sel("markov", word(weft, i), "work_cpu_pct")) \
        with linespoints lc i lw 2 pt 7 title word(weft, i), \
     for [i = 1:words(paper)] csv every ::1 using 10:(sel("markov", word(paper, i), "work_cpu_pct")) \
        with linespoints lc (i + 4) lw 1.5 dt 2 pt 6 title word(paper, i)

unset arrow 1
set ylabel "packets lost per second"
set title "packet loss vs rho (paper Figs. 10b, 11b)"
plot for [i = 1:words(weft)] csv every ::1 using 10:(sel("markov", word(weft, i), "lost_per_s")) \
        with linespoints lc i lw 2 pt 7 title word(weft, i), \
     for [i = 1:words(paper)] csv every ::1 using 10:(sel("markov", word(paper, i), "lost_per_s")) \
        with linespoints lc (i + 4) lw 1.5 dt 2 pt 6 title word(paper, i)
unset multiplot
