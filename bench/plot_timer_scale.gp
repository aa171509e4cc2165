# Log-log chart of bench/timer_scale (the CSV it writes): ns per operation
# against pending events, one line per variant (Weft heap: insert, cancel,
# cancel_cold; ARIADNE's delta queue: dq_insert, dq_cancel), whiskers from
# min to max over the repeats.
# Usage: gnuplot -e "csv='bench-out/timer_scale.csv'; out='bench-out/timer_scale.png'" plot_timer_scale.gp
# CSV columns: 1 bench, 2 case, 3 variant, 4 metric, 5 median, 6 min, 7 max, 8 unit.

if (!exists("csv")) csv = "bench-out/timer_scale.csv"
if (!exists("out")) out = "bench-out/timer_scale.png"

if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 900,560 noenhanced font ",10"
} else {
    set terminal png size 900,560 noenhanced
}
set output out
set datafile separator ","

variants = "insert cancel cancel_cold dq_insert dq_cancel"
pending(c) = c eq "pending_1k" ? 1e3 : (c eq "pending_100k" ? 1e5 : (c eq "pending_1M" ? 1e6 : NaN))
# Column c of the current row if it is variant v, else NaN.
vcol(v, c) = strcol(3) eq v && strcol(4) eq "time" ? column(c) : NaN

set title "bench/timer_scale: cost per operation vs pending events (median; min..max)"
set logscale xy
set xlabel "pending events"
set ylabel "ns per operation (log scale)"
set xrange [500:2e6]
set xtics ("1k" 1e3, "10k" 1e4, "100k" 1e5, "1M" 1e6)
set grid
set key outside right top vertical
# The CSV lists a variant's rows together, so its line is unbroken.
plot for [i=1:words(variants)] csv every ::1 \
        using (pending(strcol(2))):(vcol(word(variants, i), 5)) \
        with linespoints lw 2 pt 7 lc i title word(variants, i), \
     for [i=1:words(variants)] csv every ::1 \
        using (pending(strcol(2))):(vcol(word(variants, i), 5)):(vcol(word(variants, i), 6)):(vcol(word(variants, i), 7)) \
        with yerrorbars lc i pt 7 ps 0.3 notitle
