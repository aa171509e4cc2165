/* bench/earth: the EARTH paper's fib and N-queens experiments (its
 * Figures 4 and 5: speed-up over processing elements) rerun on this
 * machine, Weft beside the usual alternative in the same run.
 *
 * Experiment (earth_mpi.c, earth_rank.c): fib(32) and N-queens(12) as in
 * the paper (--quick: fib(30), queens(11)), each run by every rank of an
 * MPI job; rank 0 starts with the whole problem, idle ranks steal the
 * oldest half of a random victim's queue, Safra's token detects the end,
 * and every run's answer is checked. Points: ranks x workers per rank =
 * 1x1 (the base), 1x2, 2x1 -- this machine's two cores -- and, beyond
 * them, 4x1 and 8x1 oversubscribed (not with --quick), as the paper's
 * curves go on to more nodes. Variants, the same source built twice:
 *   weft              Weft's MPI, run by Weft's mpirun at its defaults
 *                     with WEFT_WORKERS=<workers>; four compute ULTs per
 *                     worker and a communication ULT blocking in MPI_Recv;
 *   openmpi_pthreads  mpicc.openmpi, run by mpirun.openmpi --oversubscribe
 *                     --bind-to none (a threaded rank bound to one core
 *                     would run its threads on that core); one compute
 *                     pthread per worker and a communication pthread
 *                     blocking in MPI_Recv, which busy-polls in Open MPI.
 * Speed-up: a variant's median time at 1x1 over its median at the point
 * (range: over the point's max and min).
 *
 * Order: for each point, each launch runs both variants, alternating
 * which goes first; a launch is one MPI job doing an untimed warm-up run
 * of each problem, then the problems alternating, `runs` timed runs each
 * (3 x --repeats: 21, --quick 9). A figure is the median of the launches'
 * medians with the lowest min and highest max (3 launches, --quick 1).
 * The problems are small (a few ms per run here), so a point's figure
 * rests on many runs; on a loaded machine single runs vary by 2-5x.
 *
 * Goals (PASS/MISS lines, never the exit status): Weft's speed-up on this
 * machine's two cores (the better of 1x2 and 2x1) >= 1.8 for each
 * problem; Weft's time at two cores <= MPI+pthreads' (each at its better
 * 2-core point).
 *
 * Bounds: each job runs under its mpirun's --timeout (60 s) and is
 * killed 10 s past it, or once silent for 60 s (osu_like_launch.c). Default
 * run: about 20 s on a quiet machine (30 jobs); --quick: about 3 s. A
 * one-rank job has no communication thread: nothing to answer.
 *
 * Output: tables, the paper's figures, goal lines, `result:` lines
 * (bench=earth, case=<problem><n>_r<ranks>w<workers>, variant weft |
 * openmpi_pthreads, metrics time in ms and speedup in x), a CSV
 * (bench-out/earth.csv) and a PNG (plot_earth.gp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "earth_driver.h"
#include "osu_like_launch.h"

#ifndef EARTH_WEFT_PROG
#define EARTH_WEFT_PROG ""
#endif
#ifndef EARTH_OMPI_PROG
#define EARTH_OMPI_PROG ""
#endif

#define JOB_TIMEOUT_S 60
#define STALL_S 60
#define LAUNCHES 3
#define MAX_RUNS 50

static earth_results res; /* large: static */
static bench_table launches[EARTH_NVARIANTS][EARTH_CONFIGS_MAX][LAUNCHES];

static const earth_config full_configs[] = {{1, 1}, {1, 2}, {2, 1}, {4, 1}, {8, 1}};
static const earth_config quick_configs[] = {{1, 1}, {1, 2}, {2, 1}};

const char *earth_variant_name(earth_variant v)
{
    static const char *const names[EARTH_NVARIANTS] = {"weft",
                                                       "openmpi_pthreads"};
    return v < EARTH_NVARIANTS ? names[v] : "?";
}

static const char *program_of(earth_variant v)
{
    const char *p = v == EARTH_WEFT ? EARTH_WEFT_PROG : EARTH_OMPI_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static ol_lib lib_of(earth_variant v)
{
    return v == EARTH_WEFT ? OL_LIB_WEFT : OL_LIB_OPENMPI;
}

/* ----------------------------------------------------------- one job */

static void job_line(void *arg, char *line)
{
    if (!ol_parse_child_line(line, arg))
        printf("%s\n", line); /* anything else the job says */
}

/* The command line of one job; text holds the numbers it points to. */
static void job_argv(ol_argv *a, earth_variant v, earth_config c,
                     char text[3][16])
{
    ol_argv_mpirun(a, lib_of(v), c.ranks, JOB_TIMEOUT_S, 0, program_of(v));
    if (v == EARTH_WEFT) {
        snprintf(text[0], 16, "%d", c.workers);
        ol_argv_setenv(a, "WEFT_WORKERS", text[0]);
    } else {
        ol_argv_option(a, "--oversubscribe");
        ol_argv_option(a, "--bind-to");
        ol_argv_option(a, "none");
    }
    snprintf(text[1], 16, "%d", c.workers);
    snprintf(text[2], 16, "%d", res.runs);
    const char *args[] = {"--variant", earth_variant_name(v), "--workers",
                          text[1], "--repeats", text[2]};
    for (int i = 0; i < BENCH_COUNT(args); i++)
        ol_argv_add(a, args[i]);
}

static earth_state run_job(earth_variant v, int ci, int l)
{
    char text[3][16], fib[16], queens[16];
    ol_argv a;
    bench_table *dst = &launches[v][ci][l];
    earth_config c = res.configs[ci];
    if (!program_of(v) || !ol_mpirun_path(lib_of(v)))
        return EARTH_ST_ABSENT;
    job_argv(&a, v, c, text);
    snprintf(fib, sizeof fib, "%d", res.n[EARTH_FIB]);
    snprintf(queens, sizeof queens, "%d", res.n[EARTH_QUEENS]);
    ol_argv_add(&a, "--fib");
    ol_argv_add(&a, fib);
    ol_argv_add(&a, "--queens");
    ol_argv_add(&a, queens);
    memset(dst, 0, sizeof *dst);
    return ol_run_job(&a, JOB_TIMEOUT_S, STALL_S, job_line, dst,
                      earth_variant_name(v)) == 0 ? EARTH_ST_OK
                                                  : EARTH_ST_FAILED;
}

static void run_variant(earth_variant v, int ci, int l)
{
    int64_t t0 = bench_now_ns();
    earth_state st = run_job(v, ci, l);
    if (st > res.state[v])
        res.state[v] = st;
    printf("  %dx%d %-17s %d/%d %s in %.1f s\n", res.configs[ci].ranks,
           res.configs[ci].workers, earth_variant_name(v), l + 1,
           res.launches, st == EARTH_ST_OK ? "done"
           : st == EARTH_ST_ABSENT ? "not available" : "FAILED",
           (double)(bench_now_ns() - t0) / 1e9);
    fflush(stdout);
}

/* Points outer, launches, then the variants in alternating order: the
 * figures compared side by side are measured seconds apart. */
static void run_all(void)
{
    for (int ci = 0; ci < res.nconfigs; ci++) {
        for (int l = 0; l < res.launches; l++)
            for (int i = 0; i < EARTH_NVARIANTS; i++)
                run_variant((earth_variant)((i + l + ci) % EARTH_NVARIANTS),
                            ci, l);
        for (int v = 0; v < EARTH_NVARIANTS; v++) {
            bench_table merged;
            memset(&merged, 0, sizeof merged);
            bench_table_merge(&merged, launches[v][ci], res.launches);
            for (int i = 0; i < merged.nrows &&
                            res.times.nrows < BENCH_ROWS_MAX; i++)
                res.times.rows[res.times.nrows++] = merged.rows[i];
            if (merged.nnotes > 0)
                bench_table_note(&res.notes[v], "%s", merged.notes[0]);
            if (merged.nnotes > 1)
                bench_table_note(&res.notes[v], "%s", merged.notes[1]);
        }
    }
}

/* ------------------------------------------------------------- main */

static void plan(const bench_opts *o)
{
    const earth_config *c = o->quick ? quick_configs : full_configs;
    res.nconfigs = o->quick ? BENCH_COUNT(quick_configs)
                            : BENCH_COUNT(full_configs);
    memcpy(res.configs, c, sizeof *c * (size_t)res.nconfigs);
    res.quick = o->quick;
    res.launches = o->quick ? 1 : LAUNCHES;
    res.runs = 3 * o->repeats > MAX_RUNS ? MAX_RUNS : 3 * o->repeats;
    res.n[EARTH_FIB] = o->quick ? 30 : 32;
    res.n[EARTH_QUEENS] = o->quick ? 11 : 12;
}

static void print_header(void)
{
    char version[64];
    printf("bench=earth: fib(%d) and N-queens(%d) over MPI ranks x workers, "
           "work stealing between ranks (EARTH, Figures 4-5)%s\n",
           res.n[EARTH_FIB], res.n[EARTH_QUEENS],
           res.quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    ol_openmpi_version(version, sizeof version);
    printf("weft: Weft's mpirun, WEFT_WORKERS=<workers>, 4 compute ULTs per "
           "worker + 1 communication ULT per rank\n");
    if (!program_of(EARTH_OMPI) || !ol_mpirun_path(OL_LIB_OPENMPI))
        printf("Open MPI is not installed (or its build of earth_mpi is "
               "missing): Weft only, goals against it n/a\n");
    else
        printf("openmpi_pthreads: %s, mpirun --oversubscribe --bind-to none, "
               "1 compute pthread per worker + 1 communication pthread per "
               "rank\n", *version ? version : "Open MPI");
    printf("per point: %d launch(es) x %d timed runs, every answer checked; "
           "the median of the launches' medians [lowest min-highest max]\n",
           res.launches, res.runs);
    fflush(stdout);
}

static int finish(const bench_opts *o)
{
    int failed = 0;
    earth_compute_speedups(&res);
    earth_report_print(&res);
    for (int v = 0; v < EARTH_NVARIANTS; v++)
        failed |= res.state[v] == EARTH_ST_FAILED;
    if (earth_report_csv(&res, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_earth.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "earth: some jobs failed (see above)\n");
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, EARTH_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    plan(&o);
    print_header();
    bench_steal since;
    bench_steal_mark(&since);
    run_all();
    rc = finish(&o);
    bench_print_steal(stdout, "the run", &since);
    return rc;
}
