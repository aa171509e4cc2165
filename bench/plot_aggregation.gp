# Chart of bench/aggregation (the CSV written by bench/aggregation): the
# completion time of the compute task vs the number K of waiting service
# threads, one line per variant (median, whiskers min..max), the server's
# process CPU time over the same runs dashed, the paper's Table 2 (K = 1..8)
# dotted. Log scale: naive grows by orders of
# magnitude at K = 1000.
# Usage: gnuplot -e "csv='bench-out/aggregation.csv'; out='bench-out/aggregation.png'" plot_aggregation.gp
# CSV columns: 1 bench, 2 case (K=<k>), 3 variant, 4 metric, 5 median,
# 6 min, 7 max, 8 unit. Rows of one variant are contiguous.

if (!exists("csv")) csv = "bench-out/aggregation.csv"
if (!exists("out")) out = "bench-out/aggregation.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000,560 noenhanced font ",10"
} else {
    set terminal png size 1000,560 noenhanced
}
set output out
set datafile separator ","

# K -> x position: 1..8 evenly, then 100 and 1000.
kval(c) = real(substr(c, 3, strlen(c)))
xpos(k) = k <= 8 ? k - 1 : k == 100 ? 8 : k == 1000 ? 9 : NaN
# Column c of the row if it is (variant v, metric m), else NaN.
sel(v, m, c) = (strcol(3) eq v && strcol(4) eq m) ? column(c) : NaN

# The paper's Table 2 in ms (x position, enhanced, naive), comma-separated
# like the CSV.
$paper << EOD
0,81.2,80.3
1,84.0,101.3
2,84.0,119.0
3,84.7,137.2
4,86.4,156.6
5,87.9,175.7
6,89.6,195.2
7,91.6,215.7
EOD

set title "bench/aggregation: compute task completion vs waiting service threads"
set logscale y
set ylabel "completion time, ms (log scale)"
set xlabel "K service threads waiting on their own socket"
set xrange [-0.5:9.5]
set xtics ("1" 0, "2" 1, "3" 2, "4" 3, "5" 4, "6" 5, "7" 6, "8" 7, "100" 8, "1000" 9)
set grid ytics xtics
set key outside right top vertical

variants = "aggregated naive"
plot for [i = 1:2] csv every ::1 \
        using (xpos(kval(strcol(2)))):(sel(word(variants, i), "completion", 5)) \
        with linespoints lc i lw 2 pt 7 title word(variants, i)." completion", \
     for [i = 1:2] csv every ::1 \
        using (xpos(kval(strcol(2)))):(sel(word(variants, i), "completion", 5)): \
              (sel(word(variants, i), "completion", 6)):(sel(word(variants, i), "completion", 7)) \
        with yerrorbars lc i pt 0 notitle, \
     for [i = 1:2] csv every ::1 \
        using (xpos(kval(strcol(2)))):(sel(word(variants, i), "cpu", 5)) \
        with linespoints lc i lw 1 dt 2 pt 6 title word(variants, i)." cpu", \
     $paper using 1:2 with lines lc 1 lw 1.5 dt 3 title "paper enhanced", \
     $paper using 1:3 with lines lc 2 lw 1.5 dt 3 title "paper naive"
