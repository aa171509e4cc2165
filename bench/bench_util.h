/* Helpers shared by the benchmarks in bench/: options, clocks, repeated
 * timing with statistics, a result table printed as text, `result:` lines
 * and CSV, sub-benchmarks run in child processes, and gnuplot charts.
 *
 * A benchmark collects its figures in a bench_table. A figure is a row
 * (case, variant, metric, median/min/max over the repeats, unit). The
 * table is printed three ways: a human table, one `result:` line per row
 * (the format of DESIGN.md), and a CSV file with the columns
 * bench,case,variant,metric,median,min,max,unit.
 *
 * Sub-benchmarks that need their own process environment (e.g. another
 * WEFT_WORKERS) re-run the program with `--case NAME`; the child prints
 * its rows as `row ...` lines and notes as `note ...` lines on stdout, and
 * the parent merges them into its own table (bench_spawn_case).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>

#define BENCH_NAME_MAX  40
#define BENCH_ROWS_MAX  64
#define BENCH_NOTES_MAX 16
#define BENCH_NOTE_LEN  200
#define BENCH_REPEATS_MAX 100 /* upper bound of --repeats */

#define BENCH_COUNT(a) ((int)(sizeof(a) / sizeof *(a))) /* array length */

/* Index of `name` in names[0..n-1], or -1 (parses a --kind/--coll value). */
int bench_name_index(const char *const *names, int n, const char *name);

/* ---------------------------------------------------------------- options */

typedef struct bench_opts {
    int quick;             /* --quick: a run of a few seconds */
    int repeats;           /* --repeats N (default 7, 3 with --quick) */
    char csv_path[512];    /* --csv PATH (default bench-out/<bench>.csv) */
    char png_path[512];    /* --png PATH (default bench-out/<bench>.png) */
    const char *case_name; /* --case NAME: run one sub-benchmark (child) */
} bench_opts;

/* Parse the common options. Returns 0 to run, 1 if --help was printed
 * (exit 0), -1 on a bad option (a message was printed; exit 2). */
int bench_parse_opts(int argc, char **argv, const char *bench, bench_opts *o);

/* Repeats as given if in 1..BENCH_REPEATS_MAX, else the default: 3 with
 * --quick, 7 without. */
int bench_default_repeats(int repeats, int quick);

/* The options common to the MPI programs (which take no bench_opts): if
 * argv[*i] is --quick, --repeats N (atoi) or --variant NAME, set it, step
 * *i over its value and return 1; else return 0. */
int bench_mpi_common_opt(int argc, char **argv, int *i, int *quick,
                         int *repeats, const char **variant);

/* ------------------------------------------------------- time and stats */

int64_t bench_now_ns(void);          /* CLOCK_MONOTONIC, ns */
void bench_consume(uint64_t value);  /* keep a computed value alive */

typedef struct bench_stats {
    double median, min, max;
} bench_stats;

/* Median, min and max of n samples (n >= 1; the array is sorted). */
bench_stats bench_stats_of(double *samples, int n);

/* Time from the earliest of n start times to the latest of n end times
 * (threads working together, each timing itself). */
double bench_span_ns(const int64_t *starts, const int64_t *ends, int n);

/* Run `iters` operations and return the elapsed time in ns. */
typedef double (*bench_run_fn)(void *ctx, uint64_t iters);

/* Number of iterations for which fn takes about target_ns. */
uint64_t bench_calibrate(bench_run_fn fn, void *ctx, int64_t target_ns);

/* Calibrate, then time `repeats` runs of about target_ns each; the
 * statistics are in ns per operation. */
bench_stats bench_ns_per_op(bench_run_fn fn, void *ctx, int repeats,
                            int64_t target_ns);

/* ------------------------------------------------------------- the table */

typedef struct bench_row {
    char case_name[BENCH_NAME_MAX];
    char variant[BENCH_NAME_MAX];
    char metric[BENCH_NAME_MAX];
    char unit[BENCH_NAME_MAX];
    bench_stats st;
    int na; /* not applicable: shown as n/a; no result line, no CSV row */
} bench_row;

typedef struct bench_table {
    bench_row rows[BENCH_ROWS_MAX];
    int nrows;
    char notes[BENCH_NOTES_MAX][BENCH_NOTE_LEN];
    int nnotes;
} bench_table;

void bench_table_add(bench_table *t, const char *case_name,
                     const char *variant, const char *metric,
                     bench_stats st, const char *unit);
void bench_table_add_na(bench_table *t, const char *case_name,
                        const char *variant, const char *metric,
                        const char *unit);
void bench_table_note(bench_table *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Launches. On these machines a job's figures move with the launch (the
 * host's placement of the virtual CPUs, the processes' own start), not
 * only from one repeat to the next, so a benchmark that compares two
 * libraries runs each several times, alternating, and merges:
 * bench_launch_repeats() is the repeats of each launch (at least one),
 * bench_table_merge() adds to dst one row per (case, variant) of the n
 * launch tables: the median of their medians, the lowest min and the
 * highest max (n/a if no launch has a figure), and their distinct notes. */
#define BENCH_LAUNCHES_MAX 8
int bench_launch_repeats(int repeats, int launches);
void bench_table_merge(bench_table *dst, const bench_table *launches, int n);

/* The row for (case, variant), or NULL (also NULL for an n/a row). */
const bench_row *bench_table_find(const bench_table *t, const char *case_name,
                                  const char *variant);

void bench_table_print(const bench_table *t, FILE *f);
void bench_table_print_notes(const bench_table *t, FILE *f);

/* One `result:` line per row, value = the median. */
void bench_table_print_results(const bench_table *t, const char *bench,
                               FILE *f);
void bench_print_result(FILE *f, const char *bench, const char *case_name,
                        const char *variant, const char *metric,
                        double value, const char *unit);

/* Open `path` for writing, creating its parent directory; NULL (after a
 * "<bench>: cannot write" message on stderr) on failure. */
FILE *bench_open_csv(const char *bench, const char *path);

/* Write the CSV, creating the parent directory. Returns 0 or -1. */
int bench_table_write_csv(const bench_table *t, const char *bench,
                          const char *path);

/* Print a goal line: "label  value (1/x)  goal <= 1/g  PASS|MISS" for a
 * ratio that must stay <= max_ratio. Returns 1 on PASS, 0 on MISS. */
int bench_print_ratio_goal(FILE *f, const char *label, double ratio,
                           double max_ratio);

/* "  0.0312 (1/32.1)  " or "  3.2000 (3.2x)    ": fixed width, in buf. */
const char *bench_format_ratio(char *buf, size_t size, double ratio);

/* "4 MiB", "64 KiB" or "8 B" (whole units), in buf. */
const char *bench_format_bytes(char *buf, size_t size, int bytes);

/* "median [min-max]", each "1234", "12.3" or "1.23" (%.0f from 1000, %.1f
 * from 10, else %.3g), in buf. */
const char *bench_format_range(char *buf, size_t size, bench_stats st);

/* Table cells for f, each a space then `width` columns right-aligned: a
 * row's bench_format_range() or, with no row, `missing`; a ratio as %.2f,
 * or "-" if it is negative (a figure is missing). */
void bench_print_range_cell(FILE *f, int width, const bench_row *row,
                            const char *missing);
void bench_print_ratio_cell(FILE *f, int width, double ratio);

/* ------------------------------------------------------ child processes */

/* Child side: print the rows and notes for the parent to read. */
void bench_table_emit(const bench_table *t, FILE *f);

/* Parent side: run this program again with --case NAME (and --quick /
 * --repeats as in o), with env_key set to env_value in its environment
 * (env_value NULL: leave the environment as it is), and merge what it
 * prints into t. Other output lines are passed through. Returns 0, or -1
 * if the child could not run or did not exit with status 0. */
int bench_spawn_case(const bench_opts *o, const char *case_name,
                     const char *env_key, const char *env_value,
                     bench_table *t);

/* --------------------------------------------------------------- plotting */

/* Draw png_path from csv_path with the gnuplot script `script_name`, found
 * next to the executable. Prints a note and returns 0 when gnuplot or the
 * script is missing (nothing drawn); -1 if gnuplot failed. */
int bench_plot(const char *script_name, const char *csv_path,
               const char *png_path);

/* One line describing the machine: CPU model and online CPU count. */
void bench_print_machine(FILE *f);

/* Hypervisor steal (bench_steal.c): mark the counters, then the share of
 * CPU time stolen since the mark (percent; -1 if /proc/stat is not
 * readable), or print it as a line that says when ratios are unreliable. */
typedef struct bench_steal {
    unsigned long long steal, total;
    int ok;
} bench_steal;
void bench_steal_mark(bench_steal *s);
double bench_steal_percent(const bench_steal *since);
void bench_print_steal(FILE *f, const char *what, const bench_steal *since);

#endif /* BENCH_UTIL_H */
