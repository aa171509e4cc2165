# Chart of bench/timer_precision (the CSV it writes): sleep offset (actual -
# requested) per load, one bar per variant (median), a point for p99.
# Left: 1 ms sleeps; right: 10 ms sleeps. Log scale (offsets span 1 us to
# several ms).
# Usage: gnuplot -e "csv='bench-out/timer_precision.csv'; out='bench-out/timer_precision.png'" plot_timer_precision.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max, 8 unit.

if (!exists("csv")) csv = "bench-out/timer_precision.csv"
if (!exists("out")) out = "bench-out/timer_precision.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,520 noenhanced font ",10"
} else {
    set terminal png size 1200,520 noenhanced
}
set output out
set datafile separator ","

loads = "N0 N2 N10 P2"
variants = "weft nanosleep setitimer"
pos(list, s, i) = i > words(list) ? NaN : (word(list, i) eq s ? i : pos(list, s, i + 1))
bw = 0.26
# "sleep_1ms_N10" -> load "N10", duration "1ms"
load_of(c) = c[strstrt(c[7:], "_") + 7:]
dur_of(c) = c[7:strstrt(c[7:], "_") + 5]
xbar(c, v) = pos(loads, load_of(c), 1) - 1 + (pos(variants, v, 1) - 2) * bw
# Column 5 if the row is (duration d, variant v, metric m), else NaN; >= 0.1 for the log scale.
val(d, v, m) = (dur_of(strcol(2)) eq d && strcol(3) eq v && strcol(4) eq m) ? \
               (column(5) > 0.1 ? column(5) : 0.1) : NaN

set multiplot layout 1,2 title "bench/timer_precision: sleep offset, median (bars) and p99 (points)"
set logscale y
set ylabel "offset, us (log scale)"
set yrange [0.1:*]
set xrange [-0.6:3.6]
set xtics ("N0" 0, "N2" 1, "N10" 2, "P2 (processes)" 3)
set grid ytics
set key outside top center horizontal
set style fill solid 0.8 border -1
set boxwidth bw
do for [d in "1ms 10ms"] {
    set title "sleeps of ".d
    plot for [i=1:words(variants)] csv every ::1 \
            using (xbar(strcol(2), strcol(3))):(val(d, word(variants, i), "offset_median")) \
            with boxes lc i title word(variants, i), \
         for [i=1:words(variants)] csv every ::1 \
            using (xbar(strcol(2), strcol(3))):(val(d, word(variants, i), "offset_p99")) \
            with points lc rgb "black" pt 7 ps 0.6 notitle
}
unset multiplot
