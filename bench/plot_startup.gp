# Chart of bench/startup (the CSV written by bench/startup): wall time of
# mpirun (fork to exit) of MPI_Init + MPI_Barrier + MPI_Finalize against
# the job's ranks, per variant (weft, weft_hwloc_io, openmpi), both
# axes log scale; error bars from min to max over the repeats.
# Usage: gnuplot -e "csv='bench-out/startup.csv'; out='bench-out/startup.png'" plot_startup.gp
# CSV columns: 1 bench, 2 case ("n64"), 3 variant, 4 metric, 5 median,
# 6 min, 7 max, 8 unit.

if (!exists("csv")) csv = "bench-out/startup.csv"
if (!exists("out")) out = "bench-out/startup.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 800, 500 noenhanced font ",10"
} else {
    set terminal png size 800, 500 noenhanced
}
set output out
set datafile separator ","

# Ranks from the case ("n64" -> 64). The variants' rows interleave in the
# CSV, and a line breaks at every other variant's row, so each variant's
# wall_ms rows are read apart (awk), in seconds.
ranks(c) = real(substr(c, 2, strlen(c)))
rows(v) = sprintf("< awk -F, '$3 == \"%s\" && $4 == \"wall_ms\"' '%s'", v, csv)

set logscale xy
set xrange [3:360]
set xtics (4, 16, 64, 256)
set xlabel "ranks (one host)"
set ylabel "wall time of mpirun, s (log scale)"
set grid xtics ytics
set key top left
set title "bench/startup: mpirun -n N of MPI_Init + MPI_Barrier + MPI_Finalize (median, bars: min-max)"

vars = "weft weft_hwloc_io openmpi"
plot for [i = 1:3] rows(word(vars, i)) \
        using (ranks(strcol(2))):($5 / 1000):($6 / 1000):($7 / 1000) \
        with yerrorlines lc i pt 7 title word(vars, i)
