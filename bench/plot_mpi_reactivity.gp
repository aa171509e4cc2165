# Chart of bench/mpi_reactivity (the CSV written by bench/mpi_reactivity):
# echo round trip through MPI vs the number N of compute threads in the
# echoing rank, log scale; weft and openmpi (both at their defaults:
# shared memory; Open MPI up to N = 50), each with its median (solid), p99
# (dashed) and mean (dotted), error bars from min to max over the repeats;
# Open MPI 4.1.4's figures measured earlier as open symbols; the goal's
# 10 us bound on Weft's median as a red dashed line.
# Usage: gnuplot -e "csv='bench-out/mpi_reactivity.csv'; out='bench-out/mpi_reactivity.png'" plot_mpi_reactivity.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit, 9 n, 10 round_trips. Rows of one curve are contiguous.

if (!exists("csv")) csv = "bench-out/mpi_reactivity.csv"
if (!exists("out")) out = "bench-out/mpi_reactivity.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1000, 600 noenhanced font ",10"
} else {
    set terminal png size 1000, 600 noenhanced
}
set output out
set datafile separator ","

# N -> x position (the N values are not evenly spaced).
xpos(n) = n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n == 5 ? 3 : \
          n == 10 ? 4 : n == 50 ? 5 : n == 100 ? 6 : n == 1000 ? 7 : NaN
# Column c of the row if it is (variant v, metric m), else NaN.
sel(v, m, c) = (strcol(3) eq v && strcol(4) eq m) ? column(c) : NaN

# Open MPI 4.1.4's figures measured earlier, in us: x position, median, p99, mean
# (NaN where it gives none); comma-separated like the CSV.
$ref << EOD
0,2.3,NaN,NaN
1,2.3,4000,250
2,2.3,NaN,NaN
3,2.3,NaN,NaN
4,2.3,40000,1900
5,2.3,206000,NaN
EOD

set logscale y
set ylabel "round trip, us (log scale)"
set xlabel "compute threads N in the echoing rank"
set xrange [-0.5:7.5]
set xtics ("0" 0, "1" 1, "2" 2, "5" 3, "10" 4, "50" 5, "100" 6, "1000" 7)
set grid ytics xtics
set key outside right top vertical
set title "bench/mpi_reactivity: 8 B echo (MPI_Recv/MPI_Send) vs compute threads (median over repeats, bars: min-max)"

libs = "weft openmpi"
metrics = "rtt_median rtt_p99 rtt_mean"
plot for [i = 1:2] for [j = 1:3] csv every ::1 \
        using (xpos(column(9))):(sel(word(libs, i), word(metrics, j), 5)):(sel(word(libs, i), word(metrics, j), 6)):(sel(word(libs, i), word(metrics, j), 7)) \
        with yerrorlines lc i lw (j == 1 ? 2 : 1.5) dt j pt 7 \
        title word(libs, i) . " " . word(metrics, j)[5:], \
     $ref using 1:2 with points lc rgb "gray40" pt 6 ps 1.5 title "Open MPI 4.1.4 (earlier) median", \
     $ref using 1:3 with points lc rgb "gray40" pt 8 ps 1.5 title "Open MPI 4.1.4 (earlier) p99", \
     $ref using 1:4 with points lc rgb "gray40" pt 4 ps 1.5 title "Open MPI 4.1.4 (earlier) mean", \
     10 with lines lc rgb "red" lw 1 dt 4 title "goal: weft median <= 10 us"
