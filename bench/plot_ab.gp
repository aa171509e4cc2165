# Chart of bench/ab results (the CSV written by bench/ab): for each figure,
# B/A of every kept pair (small points) and the ratio of the medians (a
# diamond, whiskers over the pairs' min..max). A line marks 1 (no change);
# log scale, so that B twice as large and half as large lie equally far.
# Usage: gnuplot -e "csv='bench-out/ab.csv'; out='bench-out/ab.png'" plot_ab.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 unit, 6 better,
# 7 A's label, 8 B's label, 9 pairs, 10-12 A median/min/max, 13-15 B's,
# 16 ratio of medians, 17-18 min/max of the per-pair ratios, 19.. r1..rN.

if (!exists("csv")) csv = "bench-out/ab.csv"
if (!exists("out")) out = "bench-out/ab.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1200,600 noenhanced font ",10"
} else {
    set terminal png size 1200,600 noenhanced
}
set output out
set datafile separator ","

# The labels of A and B and the bench, from the first row.
a = "A"; b = "B"; bench = ""
stats csv every ::1::1 using (a = strcol(7), b = strcol(8), bench = strcol(1), 0) nooutput

set title sprintf("bench/ab, %s: %s / %s for each figure", bench, b, a)
set ylabel sprintf("%s / %s (log scale)", b, a)
set logscale y
# At least 0.8..1.25 shown, wider if a pair's ratio is outside it.
lo = 0.8; hi = 1.25
stats csv every ::1 using 17 nooutput
if (STATS_records > 0 && STATS_min / 1.1 < lo) lo = STATS_min / 1.1
stats csv every ::1 using 18 nooutput
if (STATS_records > 0 && STATS_max * 1.1 > hi) hi = STATS_max * 1.1
set yrange [lo:hi]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 5, 10, 20, 50, 100)
set grid ytics
set xtics rotate by -40 left
set bmargin 10
set key outside top center horizontal
set offsets 0.5, 0.5, 0, 0
label(n) = strcol(2) . " " . strcol(3) . " " . strcol(4)

plot 1 with lines lc rgb "gray40" dt 2 notitle, \
     for [c=19:*] csv every ::1 using 0:c with points pt 7 ps 0.6 \
        lc rgb "#4477aa" title (c == 19 ? "per pair" : ""), \
     csv every ::1 using 0:16:17:18:xtic(label(0)) with yerrorbars \
        pt 13 ps 1.6 lc rgb "#cc3311" title "ratio of the medians (pairs' min..max)"
