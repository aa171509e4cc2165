# Bar chart of bench/threads results (the CSV written by bench/threads).
# Left: times per operation in ns, log scale, grouped by case, one bar per
# variant, whiskers from min to max. Right: preempt_overhead throughput,
# Weft's tick on and off, then the bare signal's floor on and off.
# Usage: gnuplot -e "csv='bench-out/threads.csv'; out='bench-out/threads.png'" plot_threads.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max, 8 unit.

if (!exists("csv")) csv = "bench-out/threads.csv"
if (!exists("out")) out = "bench-out/threads.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,520 noenhanced font ",10"
} else {
    set terminal png size 1200,520 noenhanced
}
set output out
set datafile separator ","

cases = "yield_rt create_join mutex_uncontended mutex_contended"
variants = "weft pthread pthread_xcpu ucontext"
# Position (1-based) of word s in the space-separated list, NaN if absent.
pos(list, s, i) = i > words(list) ? NaN : (word(list, i) eq s ? i : pos(list, s, i + 1))
bw = 0.19
xcase(c) = pos(cases, c, 1) - 1
xbar(c, v) = xcase(c) + (pos(variants, v, 1) - 2.5) * bw
is_time(v) = strcol(8) eq "ns" && strcol(3) eq v
# Column c of the current row if it is a time of variant v, else NaN.
tcol(v, c) = is_time(v) ? column(c) : NaN

set multiplot layout 1,2 title "bench/threads: median (bars), min..max (whiskers)"

set size 0.72, 0.95
set origin 0, 0
set title "time per operation (lower is better)"
set logscale y
set ylabel "ns (log scale)"
set yrange [1:*]
set xrange [-0.6:3.6]
set xtics ("yield_rt" 0, "create_join" 1, "mutex_uncontended" 2, "mutex_contended" 3)
set grid ytics
set key outside top center horizontal
set style fill solid 0.8 border -1
set boxwidth bw
plot for [i=1:words(variants)] csv every ::1 \
        using (xbar(strcol(2), strcol(3))):(tcol(word(variants, i), 5)) \
        with boxes lc i title word(variants, i), \
     for [i=1:words(variants)] csv every ::1 \
        using (xbar(strcol(2), strcol(3))):(tcol(word(variants, i), 5)): \
              (tcol(word(variants, i), 6)):(tcol(word(variants, i), 7)) \
        with yerrorbars lc rgb "black" pt 7 ps 0.4 notitle

set size 0.28, 0.95
set origin 0.72, 0
set title "preempt_overhead (higher is better)"
unset logscale y
set ylabel "compute loop, 10^9 iterations per CPU second"
set yrange [0:*]
set xrange [-0.6:3.6]
set bmargin 4
set xtics ("weft\n1 ms" 0, "weft\noff" 1, "signal\n1 ms" 2, "no\nsignal" 3)
set key off
set boxwidth 0.6
qvariants = "quantum_1ms no_preempt bare_signal_1ms no_signal"
qpos(v) = pos(qvariants, v, 1) - 1
# Column c of the current row in 10^9 if it is preempt_overhead, else NaN.
pcol(c) = strcol(2) eq "preempt_overhead" ? column(c) / 1e9 : NaN
plot csv every ::1 using (qpos(strcol(3))):(pcol(5)) \
        with boxes lc 3, \
     csv every ::1 using (qpos(strcol(3))):(pcol(5)):(pcol(6)):(pcol(7)) \
        with yerrorbars lc rgb "black" pt 7 ps 0.4

unset multiplot
