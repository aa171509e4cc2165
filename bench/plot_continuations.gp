# Bar charts of bench/continuations results (the CSV it writes).
# Left: throughput (buffers per second) per case, blocking vs continuation,
# whiskers from min to max. Right: context switches per buffer.
# Usage: gnuplot -e "csv='bench-out/continuations.csv'; out='bench-out/continuations.png'" plot_continuations.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max, 8 unit.

if (!exists("csv")) csv = "bench-out/continuations.csv"
if (!exists("out")) out = "bench-out/continuations.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,460 noenhanced font ",10"
} else {
    set terminal png size 1000,460 noenhanced
}
set output out
set datafile separator ","

cases = "uncontended contended"
variants = "blocking continuation"
pos(list, s, i) = i > words(list) ? NaN : (word(list, i) eq s ? i : pos(list, s, i + 1))
bw = 0.35
xbar(c, v) = pos(cases, c, 1) - 1 + (pos(variants, v, 1) - 1.5) * bw
# Column c of the current row if it is metric m of variant v, else NaN.
mcol(m, v, c, scale) = (strcol(4) eq m && strcol(3) eq v) ? column(c) / scale : NaN

set multiplot layout 1,2 title "bench/continuations: buffer pool give-back (median bars, min..max whiskers)"
set style fill solid 0.8 border -1
set boxwidth bw
set grid ytics
set key top left
set xrange [-0.6:1.6]
set xtics ("uncontended" 0, "contended" 1)

set title "throughput (higher is better)"
set ylabel "million buffers per second"
set yrange [0:*]
plot for [i=1:2] csv every ::1 using (xbar(strcol(2), strcol(3))):(mcol("throughput", word(variants, i), 5, 1e6)) \
        with boxes lc i title word(variants, i), \
     for [i=1:2] csv every ::1 using (xbar(strcol(2), strcol(3))):(mcol("throughput", word(variants, i), 5, 1e6)): \
        (mcol("throughput", word(variants, i), 6, 1e6)):(mcol("throughput", word(variants, i), 7, 1e6)) \
        with yerrorbars lc rgb "black" pt 7 ps 0.4 notitle

set title "context switches per buffer (lower is better)"
set ylabel "switches per buffer"
plot for [i=1:2] csv every ::1 using (xbar(strcol(2), strcol(3))):(mcol("switches_per_op", word(variants, i), 5, 1)) \
        with boxes lc i title word(variants, i), \
     for [i=1:2] csv every ::1 using (xbar(strcol(2), strcol(3))):(mcol("switches_per_op", word(variants, i), 5, 1)): \
        (mcol("switches_per_op", word(variants, i), 6, 1)):(mcol("switches_per_op", word(variants, i), 7, 1)) \
        with yerrorbars lc rgb "black" pt 7 ps 0.4 notitle

unset multiplot
