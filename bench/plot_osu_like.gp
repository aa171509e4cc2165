# Chart of bench/osu_like (the CSV written by bench/osu_like): left, one-way
# latency vs message size; right, bandwidth (solid) and bi-directional
# bandwidth (dashed) vs message size; one colour per variant (weft and
# openmpi at their defaults, shared memory; weft_tcp, openmpi_tcp and
# raw_tcp over TCP loopback), log-log scales, error bars from min to max
# over the repeats. The 0 B latency is drawn at x = 0.5. (The
# multi-threaded latency is in the tables only.)
# Usage: gnuplot -e "csv='bench-out/osu_like.csv'; out='bench-out/osu_like.png'" plot_osu_like.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 kind, 10 bytes. Rows of one curve are contiguous.

if (!exists("csv")) csv = "bench-out/osu_like.csv"
if (!exists("out")) out = "bench-out/osu_like.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1600, 650 noenhanced font ",10"
} else {
    set terminal png size 1600, 650 noenhanced
}
set output out
set datafile separator ","

variants = "weft weft_tcp openmpi openmpi_tcp raw_tcp"
xb(b) = b > 0 ? b : 0.5
# Column c of the row if it is (variant v, kind k), else NaN.
sel(v, k, c) = (strcol(3) eq v && strcol(9) eq k) ? column(c) : NaN

set logscale xy
set grid xtics ytics
set xtics ("0" 0.5, "1" 1, "16" 16, "256" 256, "4K" 4096, "64K" 65536, \
           "1M" 1048576, "4M" 4194304)
set xrange [0.35:6e6]
set xlabel "message size, bytes"
set key top left

set multiplot layout 1, 2 title "bench/osu_like: two processes on one machine (median, bars: min-max)"

set title "one-way latency (ping-pong / 2)"
set ylabel "us (log scale)"
plot for [i = 1:words(variants)] csv every ::1 \
        using (xb(column(10))):(sel(word(variants, i), "latency", 5)):(sel(word(variants, i), "latency", 6)):(sel(word(variants, i), "latency", 7)) \
        with yerrorlines lc i lw 2 pt 7 title word(variants, i)

set title "bandwidth (solid) and bi-directional bandwidth (dashed), window 64"
set ylabel "MB/s (log scale)"
set key top left
set xrange [0.7:6e6]
plot for [i = 1:words(variants)] csv every ::1 \
        using (column(10)):(sel(word(variants, i), "bw", 5)):(sel(word(variants, i), "bw", 6)):(sel(word(variants, i), "bw", 7)) \
        with yerrorlines lc i lw 2 pt 7 title word(variants, i) . " bw", \
     for [i = 1:words(variants)] csv every ::1 \
        using (column(10)):(sel(word(variants, i), "bibw", 5)):(sel(word(variants, i), "bibw", 6)):(sel(word(variants, i), "bibw", 7)) \
        with yerrorlines lc i lw 1.5 dt 2 pt 6 title word(variants, i) . " bibw"

unset multiplot
