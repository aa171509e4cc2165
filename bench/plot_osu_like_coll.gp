# Chart of bench/osu_like's collectives (the CSV written by bench/osu_like,
# osu_like_coll.csv): one panel per collective, latency per call vs message
# size (the barrier: vs rank count), weft and openmpi_tcp in one colour
# each, 4 ranks solid, 8 ranks dashed; log-log scales, error bars from min
# to max over the repeats.
# Usage: gnuplot -e "csv='bench-out/osu_like_coll.csv'; out='bench-out/osu_like_coll.png'" plot_osu_like_coll.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 coll, 10 bytes, 11 np. Rows of one curve are contiguous.

if (!exists("csv")) csv = "bench-out/osu_like_coll.csv"
if (!exists("out")) out = "bench-out/osu_like_coll.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1500, 900 noenhanced font ",10"
} else {
    set terminal png size 1500, 900 noenhanced
}
set output out
set datafile separator ","

variants = "weft openmpi_tcp"
colls = "bcast reduce allreduce allgather alltoall"
# Column c of the row if it is (variant v, collective k, np n), else NaN.
sel(v, k, n, c) = (strcol(3) eq v && strcol(9) eq k && column(11) == n) ? column(c) : NaN

set grid xtics ytics
set key top left
set multiplot layout 2, 3 title "bench/osu_like collectives: ranks on one machine (median, bars: min-max; solid 4 ranks, dashed 8)"

set title "barrier"
set xlabel "ranks"
set ylabel "us per call (log scale)"
set logscale y
set xrange [3:9]
set xtics (4, 8)
plot for [i = 1:words(variants)] csv every ::1 \
        using 11:(strcol(3) eq word(variants, i) && strcol(9) eq "barrier" ? column(5) : NaN):6:7 \
        with yerrorlines lc i lw 2 pt 7 title word(variants, i)

set logscale xy
set xrange [5:1.6e6]
set xtics ("8" 8, "64" 64, "512" 512, "4K" 4096, "32K" 32768, "256K" 262144, "1M" 1048576)
set xlabel "message size, bytes"
do for [k = 1:words(colls)] {
    set title word(colls, k)
    plot for [i = 1:words(variants)] csv every ::1 \
            using 10:(sel(word(variants, i), word(colls, k), 4, 5)):(sel(word(variants, i), word(colls, k), 4, 6)):(sel(word(variants, i), word(colls, k), 4, 7)) \
            with yerrorlines lc i lw 2 pt 7 title word(variants, i) . " np4", \
         for [i = 1:words(variants)] csv every ::1 \
            using 10:(sel(word(variants, i), word(colls, k), 8, 5)):(sel(word(variants, i), word(colls, k), 8, 6)):(sel(word(variants, i), word(colls, k), 8, 7)) \
            with yerrorlines lc i lw 1.5 dt 2 pt 6 title word(variants, i) . " np8"
}

unset multiplot
