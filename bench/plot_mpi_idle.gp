# Chart of bench/mpi_idle (the CSV written by bench/mpi_idle): CPU of the
# rank waiting in MPI_Recv, % of one CPU, per scenario (quiet, load) and
# library (weft, openmpi), log scale; error bars from min to max over the
# repeats; Weft's goal (2 %) and the issue's Open MPI figure (~96 %) as
# lines.
# Usage: gnuplot -e "csv='bench-out/mpi_idle.csv'; out='bench-out/mpi_idle.png'" plot_mpi_idle.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max,
# 8 unit.

if (!exists("csv")) csv = "bench-out/mpi_idle.csv"
if (!exists("out")) out = "bench-out/mpi_idle.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 800, 500 noenhanced font ",10"
} else {
    set terminal png size 800, 500 noenhanced
}
set output out
set datafile separator ","

# Scenario -> x position; variant -> offset within it.
xcase(c) = c eq "quiet" ? 0 : c eq "load" ? 1 : NaN
# Column c of the row if its variant is v, else NaN; a floor for log scale.
floor = 0.01
sel(v, c) = strcol(3) eq v ? (column(c) > floor ? column(c) : floor) : NaN

set logscale y
set yrange [floor:200]
set ylabel "CPU while waiting, % of one CPU (log scale)"
set xrange [-0.6:1.6]
set xtics ("quiet" 0, "load (busy processes)" 1)
set grid ytics
set key outside right top vertical
set style fill solid 0.6 border -1
set boxwidth 0.3
set title "bench/mpi_idle: a rank waiting in MPI_Recv (median over repeats, bars: min-max)"

libs = "weft openmpi"
plot for [i = 1:2] csv every ::1 \
        using (xcase(strcol(2)) + (i - 1.5) * 0.32):(sel(word(libs, i), 5)) \
        with boxes lc i title word(libs, i), \
     for [i = 1:2] csv every ::1 \
        using (xcase(strcol(2)) + (i - 1.5) * 0.32):(sel(word(libs, i), 5)):(sel(word(libs, i), 6)):(sel(word(libs, i), 7)) \
        with yerrorbars lc rgb "black" pt 0 notitle, \
     2 with lines lc rgb "dark-green" dt 2 lw 2 title "weft goal: 2 %", \
     96 with lines lc rgb "gray40" dt 3 lw 2 title "Open MPI (issue): ~96 %"
