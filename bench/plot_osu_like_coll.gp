# Chart of bench/osu_like's collectives (the CSV written by bench/osu_like,
# osu_like_coll.csv): one panel per collective, latency per call vs message
# size (the barrier: vs rank count), one colour per variant (weft and
# openmpi at their defaults, shared memory; openmpi_tcp), 2 ranks solid,
# 4 dashed, 8 dotted (the key, in the barrier's panel, names the colours);
# log-log scales, error bars from min to max over the repeats.
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

variants = "weft openmpi openmpi_tcp weft_msg"
nps = "2 4 8"
colls = "bcast reduce allreduce allgather alltoall"
# Column c of the row if it is (variant v, collective k, np n), else NaN.
sel(v, k, n, c) = (strcol(3) eq v && strcol(9) eq k && column(11) == n) ? column(c) : NaN

set grid xtics ytics
set key top left
set multiplot layout 2, 3 title "bench/osu_like collectives: ranks on one machine (median, bars: min-max; solid 2 ranks, dashed 4, dotted 8)"

set title "barrier"
set xlabel "ranks"
set ylabel "us per call (log scale)"
set logscale y
set logscale x 2
set xrange [1.6:10]
set xtics (2, 4, 8)
plot for [i = 1:words(variants)] csv every ::1 \
        using 11:(strcol(3) eq word(variants, i) && strcol(9) eq "barrier" ? column(5) : NaN):6:7 \
        with yerrorlines lc i lw 2 pt 7 title word(variants, i)

set logscale xy
set xrange [5:1.6e6]
set xtics ("8" 8, "64" 64, "512" 512, "4K" 4096, "32K" 32768, "256K" 262144, "1M" 1048576)
set xlabel "message size, bytes"
do for [k = 1:words(colls)] {
    set title word(colls, k)
    plot for [j = 1:words(nps)] for [i = 1:words(variants)] csv every ::1 \
            using 10:(sel(word(variants, i), word(colls, k), int(word(nps, j)), 5)):(sel(word(variants, i), word(colls, k), int(word(nps, j)), 6)):(sel(word(variants, i), word(colls, k), int(word(nps, j)), 7)) \
            with yerrorlines lc i lw (j == 1 ? 2 : 1.5) dt j pt (j == 1 ? 7 : 6) notitle
}

unset multiplot
