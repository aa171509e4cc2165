# Chart of bench/reactivity (the CSV written by bench/reactivity): echo
# round trip vs the number N of compute threads in the server, log scale.
# One panel per quantum (10 ms, and Weft's default if it differs); per
# variant a solid line (median) and a dashed one (p99); the floors with no
# compute as horizontal lines; the paper's Table 1 (means) as thin dotted
# lines.
# Usage: gnuplot -e "csv='bench-out/reactivity.csv'; out='bench-out/reactivity.png'" plot_reactivity.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 n, 10 q_ms, 11 round_trips. Rows of one curve are contiguous.

if (!exists("csv")) csv = "bench-out/reactivity.csv"
if (!exists("out")) out = "bench-out/reactivity.png"

set datafile separator ","
# The quanta present (column 10 is empty on floor and idle rows).
stats csv every ::1 using 10 nooutput
q1 = 10
q2 = (STATS_min != 10) ? STATS_min : STATS_max
npanels = (q2 != q1) ? 2 : 1

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 800 * npanels + 300, 600 noenhanced font ",10"
} else {
    set terminal png size 800 * npanels + 300, 600 noenhanced
}
set output out

variants = "naive enhanced blocker adaptive"
# N -> x position (the N values are not evenly spaced).
xpos(n) = n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n == 5 ? 3 : \
          n == 10 ? 4 : n == 100 ? 5 : n == 1000 ? 6 : NaN
# Median of the row if it is (variant v, metric m, quantum q), else NaN.
sel(v, m, q) = (strcol(3) eq v && strcol(4) eq m && column(10) == q) ? column(5) : NaN
floorv(v) = (strcol(3) eq v && strcol(4) eq "rtt_median") ? column(5) : NaN

# The paper's Table 1 in us (x position, naive, enhanced, blocking calls);
# comma-separated like the CSV, since the separator applies to both.
$paper << EOD
0,130,134,451
1,5011,4846,453
2,10022,4837,452
3,25010,5471,457
4,50010,4848,453
EOD

set logscale y
set ylabel "round trip, us (log scale)"
set xlabel "compute threads N in the server"
set xrange [-0.5:6.5]
set xtics ("0" 0, "1" 1, "2" 2, "5" 3, "10" 4, "100" 5, "1000" 6)
set grid ytics xtics
set key outside right top vertical

set multiplot layout 1, npanels title "bench/reactivity: echo round trip over TCP loopback vs compute threads"
do for [p = 1:npanels] {
    q = (p == 1) ? q1 : q2
    set title sprintf("quantum %g ms (solid: median, dashed: p99)", q)
    plot for [i = 1:words(variants)] csv every ::1 \
            using (xpos(column(9))):(sel(word(variants, i), "rtt_median", q)) \
            with linespoints lc i lw 2 pt 7 title word(variants, i), \
         for [i = 1:words(variants)] csv every ::1 \
            using (xpos(column(9))):(sel(word(variants, i), "rtt_p99", q)) \
            with linespoints lc i lw 1 dt 2 pt 6 notitle, \
         csv every ::1 using (-0.5):(floorv("raw_block")):(7):(0) \
            with vectors nohead lc rgb "black" lw 1.5 dt 3 title "raw_block floor", \
         csv every ::1 using (-0.5):(floorv("raw_busy")):(7):(0) \
            with vectors nohead lc rgb "gray40" lw 1.5 dt 5 title "raw_busy floor", \
         $paper using 1:2 with lines lc 1 lw 1.5 dt 3 title "paper naive (mean)", \
         $paper using 1:3 with lines lc 2 lw 1.5 dt 3 title "paper enhanced", \
         $paper using 1:4 with lines lc 3 lw 1.5 dt 3 title "paper blocking"
}
unset multiplot
