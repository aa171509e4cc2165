/* bench/rma: one-sided MPI (MPI_Put / MPI_Get) through Weft beside Open
 * MPI in the same run, two ranks on this machine.
 *
 * Part 1, latency and bandwidth as OSU's osu_put_latency, osu_get_latency
 * and osu_put_bw measure them at their default synchronisation (flush):
 * a window from MPI_Win_allocate, rank 0 holds a shared lock on rank 1
 * (MPI_Win_lock, passive target) and calls MPI_Win_flush after each 8 B
 * put or get (latency: us per operation) or after each 64 puts of 64 KiB
 * or 1 MiB (bandwidth, MB/s); rank 1 waits in MPI_Barrier.
 * Part 2, progress while the target computes: rank 1 runs N = 1, 10, 100
 * compute threads per CPU it has and makes no MPI call while rank 0
 * times 8 B MPI_Get + MPI_Win_flush in a shared-lock epoch; p50 and p99
 * per N. A get that takes longer than the stall limit is the answer of an
 * MPI that serves one-sided requests only inside the target's MPI calls:
 * it completes when the target's compute phase ends (bounded in time,
 * rma_mpi_progress.c), the case stops and the table says so.
 *
 * Variants, each run as a user would run it:
 *   weft         Weft's mpirun -n 2 at its defaults (shared-memory
 *                transport, one worker per core shared out among the
 *                ranks; the window's service thread serves requests);
 *                compute threads are Weft user-level threads;
 *   openmpi      mpirun.openmpi -n 2 at its defaults; compute threads are
 *                pthreads. On one host its one-sided component for
 *                MPI_Win_allocate is osc/sm: the window is shared memory,
 *                a put or get is a copy by the origin alone;
 *   openmpi_tcp  the same, forced to TCP: --mca btl tcp,self and --mca
 *                osc pt2pt. The btl setting alone does not do it (osc/sm
 *                maps shared memory whatever the btls, and osc/ucx goes
 *                through UCX's own shared memory); osc/rdma refuses the
 *                tcp btl in Open MPI 4.1; osc/pt2pt is its one-sided path
 *                over point-to-point messages, progressed inside MPI calls.
 *
 * Repeats: each repeat launches each variant once (the order rotates
 * between repeats); one job runs part 1 and every N of part 2. Every
 * figure is the median over the repeats of that repeat's figure, with min
 * and max. A job that fails or stops printing is killed and noted; the
 * exit status is 1 then. Timing never fails the run.
 *
 * Goals (PASS/MISS lines and `result:` lines with status=): Weft's 8 B
 * put and get latency <= 1.5x Open MPI's (defaults), its put bandwidth at
 * 64 KiB and 1 MiB >= 0.9x; Weft's p99 get while the target computes, at
 * N = 10 and 100, <= 3x its own p99 at N = 1.
 *
 * Output: tables, goals, `result:` lines (bench=rma), a CSV
 * (bench-out/rma.csv) and a PNG (plot_rma.gp). Default run: about 3.5
 * minutes; --quick: about 40 s.
 */
#include "rma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osu_like_launch.h"

#ifndef RMA_WEFT_PROG
#define RMA_WEFT_PROG ""
#endif
#ifndef RMA_OMPI_PROG
#define RMA_OMPI_PROG ""
#endif

#define LAUNCH_S 30   /* per job: start-up and finalize */
#define CASE_SLACK_S 5
#define BUDGET_S 600  /* the whole run: repeats past it are not started */

static const int ns[] = {1, 10, 100};

static rma_results res; /* large: static */

/* ---------------------------------------------------------- set-up */

static void set_cases(const bench_opts *o)
{
    res.n_ns = BENCH_COUNT(ns);
    memcpy(res.ns, ns, sizeof ns);
    res.repeats = o->repeats;
    res.soft_s = o->quick ? 0.15 : 0.6;
    res.stall_s = o->quick ? 0.3 : 1.0;
}

static ol_lib lib_of(rma_variant v)
{
    return v == RMA_WEFT ? OL_LIB_WEFT : OL_LIB_OPENMPI;
}

static const char *program_of(rma_variant v)
{
    const char *p = v == RMA_WEFT ? RMA_WEFT_PROG : RMA_OMPI_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static int available(rma_variant v)
{
    return program_of(v) && ol_mpirun_path(lib_of(v));
}

/* ------------------------------------------------------- job output */

static int perf_index(const char *name)
{
    for (int c = 0; c < RMA_NPERF; c++)
        if (strcmp(name, rma_perf_case_name((rma_perf_case)c)) == 0)
            return c;
    return -1;
}

static int n_index(int n)
{
    for (int i = 0; i < res.n_ns; i++)
        if (res.ns[i] == n)
            return i;
    return -1;
}

static int perf_line(rma_variant v, const char *line)
{
    char name[BENCH_NAME_MAX];
    double value;
    int c;
    if (sscanf(line, "perf %39s %lf", name, &value) != 2 ||
        (c = perf_index(name)) < 0)
        return 0;
    rma_perf_cell *cell = &res.perf[v][c];
    if (cell->nruns < BENCH_REPEATS_MAX)
        cell->values[cell->nruns++] = value;
    return 1;
}

static int progress_line(rma_variant v, const char *line)
{
    rma_prog_run run;
    int n, i;
    if (sscanf(line, "progress %d %d %d %lf %lf %lf %lf %d", &n,
               &run.threads, &run.count, &run.p50_us, &run.p99_us,
               &run.max_us, &run.stalled_ms, &run.waited) != 8 ||
        (i = n_index(n)) < 0)
        return 0;
    rma_prog_cell *cell = &res.prog[v][i];
    if (cell->nruns < BENCH_REPEATS_MAX)
        cell->runs[cell->nruns++] = run;
    return 1;
}

static void job_line(void *arg, char *line)
{
    rma_variant v = *(rma_variant *)arg;
    if (!perf_line(v, line) && !progress_line(v, line))
        printf("%s\n", line); /* anything else the job says */
}

/* ------------------------------------------------------------ a job */

/* The longest a target computes in one case (rma_mpi_progress.c). */
static double case_budget_s(void)
{
    return 3 * res.stall_s + res.soft_s;
}

/* A job prints at least once in this long: a case, its threads' start
 * and its slack. */
static int stall_s(void)
{
    return (int)case_budget_s() + CASE_SLACK_S + 10;
}

static int job_timeout_s(void)
{
    double s = LAUNCH_S + RMA_NPERF * (res.soft_s + CASE_SLACK_S);
    return (int)(s + res.n_ns * (case_budget_s() + CASE_SLACK_S));
}

/* A job's command line and the texts it points to. */
typedef struct job_cmd {
    ol_argv argv;
    char ns[40], soft[16], stall[16], seed[16];
} job_cmd;

static void build_cmd(job_cmd *c, rma_variant v, int rep)
{
    int len = 0;
    for (int i = 0; i < res.n_ns; i++)
        len += snprintf(c->ns + len, sizeof c->ns - (size_t)len,
                        i ? ",%d" : "%d", res.ns[i]);
    snprintf(c->soft, sizeof c->soft, "%d", (int)(res.soft_s * 1000));
    snprintf(c->stall, sizeof c->stall, "%d", (int)(res.stall_s * 1000));
    snprintf(c->seed, sizeof c->seed, "%d", (rep + 1) * 7919 + (int)v);
    ol_argv_mpirun(&c->argv, lib_of(v), 2, job_timeout_s(),
                   v == RMA_OMPI_TCP, program_of(v));
    if (v == RMA_OMPI_TCP) { /* see the head comment */
        ol_argv_option(&c->argv, "--mca");
        ol_argv_option(&c->argv, "osc");
        ol_argv_option(&c->argv, "pt2pt");
    }
    const char *pairs[] = {"--variant", rma_variant_name(v), "--ns", c->ns,
                           "--soft-ms", c->soft, "--stall-ms", c->stall,
                           "--seed", c->seed};
    for (int i = 0; i < BENCH_COUNT(pairs); i++)
        ol_argv_add(&c->argv, pairs[i]);
}

static void run_job(rma_variant v, int rep)
{
    char what[64];
    job_cmd c;
    if (!available(v)) {
        res.state[v] = RMA_ST_ABSENT;
        return;
    }
    build_cmd(&c, v, rep);
    snprintf(what, sizeof what, "%s, repeat %d", rma_variant_name(v),
             rep + 1);
    if (ol_run_job(&c.argv, job_timeout_s(), stall_s(), job_line, &v,
                   what) == 0) {
        if (res.state[v] == RMA_ST_NOT_RUN)
            res.state[v] = RMA_ST_OK;
        return;
    }
    res.failures[v]++;
    res.state[v] = RMA_ST_FAILED;
    bench_table_note(&res.notes, "%s: the job failed or stalled (see "
                     "above); its figures printed before are kept", what);
}

/* ------------------------------------------------------------- runs */

static void run_all(int64_t deadline)
{
    for (int rep = 0; rep < res.repeats; rep++) {
        if (rep > 0 && bench_now_ns() > deadline) {
            bench_table_note(&res.notes, "the run reached its time limit "
                             "after %d of %d repeats", rep, res.repeats);
            break;
        }
        int64_t t0 = bench_now_ns();
        for (int k = 0; k < RMA_NVARIANTS; k++)
            run_job((rma_variant)((k + rep) % RMA_NVARIANTS), rep);
        res.repeats_done = rep + 1;
        printf("repeat %d/%d done in %.1f s\n", rep + 1, res.repeats,
               (double)(bench_now_ns() - t0) / 1e9);
        fflush(stdout);
    }
}

static void print_header(const bench_opts *o)
{
    const char *transport = getenv("WEFT_MPI_TRANSPORT");
    printf("bench=rma: one-sided put/get latency and bandwidth, and gets "
           "while the target computes%s\n", o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    ol_openmpi_version(res.ompi_version, sizeof res.ompi_version);
    printf("weft: Weft's mpirun -n 2, transport %s, default workers and "
           "binding; compute threads are Weft ULTs\n",
           transport && *transport ? transport : "shared memory (default)");
    if (available(RMA_OMPI)) {
        printf("openmpi: %s, mpirun.openmpi -n 2 at its defaults (one-sided "
               "by osc/sm on one host); openmpi_tcp: --mca btl tcp,self "
               "--mca osc pt2pt; compute threads are pthreads\n",
               *res.ompi_version ? res.ompi_version : "Open MPI");
        ol_print_openmpi_cma(stdout);
    } else
        printf("openmpi: Open MPI is not installed (or its build of rma_mpi "
               "is missing): Weft only, goals against it n/a\n");
    printf("window: MPI_Win_allocate; each figure ~%.2f s; a get slower "
           "than %.1f s counts as stalled; repeats: %d\n", res.soft_s,
           res.stall_s, res.repeats);
    fflush(stdout);
}

/* The load average: other jobs on this shared machine move the figures. */
static void print_load(const char *when)
{
    double load[3];
    if (getloadavg(load, 3) == 3)
        printf("load average %s: %.2f %.2f %.2f\n", when, load[0], load[1],
               load[2]);
}

static int finish(const bench_opts *o)
{
    int failed = 0;
    for (int v = 0; v < RMA_NVARIANTS; v++)
        failed |= res.failures[v] > 0;
    rma_report_print(&res);
    bench_print_steal(stdout, "the run", &res.steal_since);
    print_load("at the end");
    if (rma_report_csv(&res, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_rma.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "rma: some runs failed (see above)\n");
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, RMA_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (o.case_name) {
        fprintf(stderr, "rma: --case is not used here\n");
        return 2;
    }
    set_cases(&o);
    print_header(&o);
    print_load("at the start");
    bench_steal_mark(&res.steal_since);
    run_all(bench_now_ns() + (int64_t)BUDGET_S * 1000000000);
    return finish(&o);
}
