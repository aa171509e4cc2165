# Chart of bench/rma (the CSV written by bench/rma), three panels, log
# scales, each point the median over the repeats with a bar from min to
# max: (1) 8 B put and get latency, (2) put bandwidth at 64 KiB and 1 MiB,
# each for weft, openmpi (its defaults) and openmpi_tcp (btl tcp, osc
# pt2pt); (3) the 8 B get while the target computes, p50 (solid) and p99
# (dashed) against N compute threads per target CPU, and as crosses the
# gets that stalled (how long they took, in us) - an MPI that serves a get
# only when the target calls MPI again.
# Usage: gnuplot -e "csv='bench-out/rma.csv'; out='bench-out/rma.png'" plot_rma.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 n (0 for the first two panels). Rows of one curve are contiguous.

if (!exists("csv")) csv = "bench-out/rma.csv"
if (!exists("out")) out = "bench-out/rma.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1500, 600 noenhanced font ",10"
} else {
    set terminal png size 1500, 600 noenhanced
}
set output out
set datafile separator ","

variants = "weft openmpi openmpi_tcp"
# Column c of the row if it is (case k, variant v), else NaN.
selc(k, v, c) = (strcol(2) eq k && strcol(3) eq v) ? column(c) : NaN
# Column c (times scale) of the row if it is (variant v, metric m).
selm(v, m, c, scale) = (strcol(3) eq v && strcol(4) eq m) ? column(c) * scale : NaN
off(i) = (i - 2) * 0.2

set multiplot layout 1, 3 title "bench/rma: one-sided MPI, weft vs Open MPI (median over repeats, bars: min-max)"
set logscale y
set grid ytics
set key top left

set title "8 B latency, MPI_Win_flush after each op"
set ylabel "us per operation (log scale)"
set xrange [-0.5:1.5]
set xtics ("put" 0, "get" 1)
plot for [i = 1:3] csv every ::1 \
        using (0 + off(i)):(selc("put_lat_8B", word(variants, i), 5)):(selc("put_lat_8B", word(variants, i), 6)):(selc("put_lat_8B", word(variants, i), 7)) \
        with yerrorbars lc i pt 7 ps 1.2 title word(variants, i), \
     for [i = 1:3] csv every ::1 \
        using (1 + off(i)):(selc("get_lat_8B", word(variants, i), 5)):(selc("get_lat_8B", word(variants, i), 6)):(selc("get_lat_8B", word(variants, i), 7)) \
        with yerrorbars lc i pt 7 ps 1.2 notitle

set title "put bandwidth, 64 puts per flush"
set key bottom right
set ylabel "MB/s (log scale)"
set xtics ("64 KiB" 0, "1 MiB" 1)
plot for [i = 1:3] csv every ::1 \
        using (0 + off(i)):(selc("put_bw_64KiB", word(variants, i), 5)):(selc("put_bw_64KiB", word(variants, i), 6)):(selc("put_bw_64KiB", word(variants, i), 7)) \
        with yerrorbars lc i pt 7 ps 1.2 title word(variants, i), \
     for [i = 1:3] csv every ::1 \
        using (1 + off(i)):(selc("put_bw_1MiB", word(variants, i), 5)):(selc("put_bw_1MiB", word(variants, i), 6)):(selc("put_bw_1MiB", word(variants, i), 7)) \
        with yerrorbars lc i pt 7 ps 1.2 notitle

set title "8 B get while the target computes (no MPI call)"
set ylabel "us (log scale)"
set xlabel "compute threads per target CPU, N"
set logscale x
set xrange [0.7:150]
set xtics ("1" 1, "10" 10, "100" 100)
set key below horizontal maxrows 3 width -4
plot for [i = 1:3] csv every ::1 \
        using 9:(selm(word(variants, i), "get_p50", 5, 1)):(selm(word(variants, i), "get_p50", 6, 1)):(selm(word(variants, i), "get_p50", 7, 1)) \
        with yerrorlines lc i lw 2 dt 1 pt 7 title word(variants, i) . " p50", \
     for [i = 1:3] csv every ::1 \
        using 9:(selm(word(variants, i), "get_p99", 5, 1)):(selm(word(variants, i), "get_p99", 6, 1)):(selm(word(variants, i), "get_p99", 7, 1)) \
        with yerrorlines lc i lw 1.5 dt 2 pt 5 title word(variants, i) . " p99", \
     for [i = 1:3] csv every ::1 \
        using 9:(selm(word(variants, i), "stalled_get", 5, 1000)) \
        with points lc i pt 2 ps 2.5 lw 2 title word(variants, i) . " stalled get"
unset multiplot
