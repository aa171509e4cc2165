/* bench/mpi_reactivity: the reactivity benchmark (bench/reactivity, the
 * PM2 paper's Table 1) through MPI, Weft beside Open MPI in the same run.
 *
 * Experiment (mpi_reactivity_mpi.c): two ranks on this machine. Rank 0
 * runs N compute threads that never yield or block and one echo thread
 * waiting in MPI_Recv and answering with MPI_Send; rank 1 sends it 8-byte
 * messages with random think times (uniform 0-200 us) and times each round
 * trip. N = 0, 1, 2, 5, 10, 50, 100, 1000 (--quick: 0, 1, 10, 100; a
 * Weft rank takes ~10 s to start 1000 compute threads).
 * Variants, each run as a user would run it -- default settings, default
 * binding, nothing tuned:
 *   weft     the program built against Weft's MPI, compute threads are
 *            Weft user-level threads, run by Weft's mpirun -n 2 at its
 *            defaults: the shared-memory transport, adaptive I/O strategy,
 *            one worker per core;
 *   openmpi  the same source built with mpicc.openmpi, compute threads are
 *            pthreads under MPI_THREAD_MULTIPLE, run by mpirun.openmpi -n 2
 *            at its defaults: vader shared memory (single copy by CMA where
 *            it works, osu_like_launch.c), each rank bound to a core, so
 *            its threads share that core. The reference.
 * The environment passes through: WEFT_* set by the user apply to Weft
 * (the header names the transport in effect, and each job's rank 0
 * reports the shared-memory segments it mapped, mpi_segments.c: none
 * means its messages went over TCP).
 *
 * Open MPI runs the N up to MR_OMPI_MAX_N (50) only: its echo thread gets
 * the core once per kernel time slice of N spinning threads (~4 ms x N at
 * p99 here), so at N = 100 a case would hold a couple of round trips, and
 * at N = 1000 none; the table shows those cells as not run.
 *
 * Repeats: each repeat launches each library once (the order alternates
 * between repeats) and sweeps every N inside that job, each N with fresh
 * compute and echo threads; so slow noise on a shared machine spreads over
 * both libraries and all N alike. A case stops after max_rts timed round
 * trips or soft_s seconds (the reply in flight is still awaited). Open MPI
 * at N = 50 answers some messages only after ~200 ms: its cases are capped
 * by time, with fewer round trips (the table shows the counts).
 * Per case and repeat: median, p99 (nearest rank) and mean; each figure is
 * the median over the repeats (min and max in the CSV). The whole run has
 * a deadline: repeats past it are not started (noted). A job that prints
 * nothing for longer than a case can last (a lost message: the echo never
 * comes) is killed, the table counts the stall against that case, a note
 * names it, a new job runs the cases after it, and the exit status is 1.
 *
 * Goals, against Open MPI at its defaults (PASS/MISS lines; the exit
 * status reports errors only): at N = 0, Weft's median <= 1.5x Open MPI's;
 * Weft's median <= 10 us at every N from 1 to 1000; Weft's p99 spread,
 * its worst p99 over N >= 1 / its p99 at N = 1, <= 3; at N = 10, Weft's
 * p99 at least 100x and its mean at least 10x lower than Open MPI's.
 * Figures measured earlier for Open MPI 4.1.4 on these machines are
 * printed as a reference row.
 *
 * Output: table, goals, segments, `result:` lines (bench=mpi_reactivity,
 * case=N=<n>, variant weft|openmpi, metrics rtt_median|rtt_p99|rtt_mean in
 * us; case shm_segment_np2 in bytes), a CSV (bench-out/mpi_reactivity.csv)
 * and a PNG (plot_mpi_reactivity.gp). Default run: about 2.5 minutes;
 * --quick: about 10 s.
 */
#include "mpi_reactivity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osu_like_launch.h"

#ifndef MPI_REACTIVITY_WEFT_PROG
#define MPI_REACTIVITY_WEFT_PROG ""
#endif
#ifndef MPI_REACTIVITY_OMPI_PROG
#define MPI_REACTIVITY_OMPI_PROG ""
#endif

#define THINK_US    200
#define SETUP_S     3  /* per case: threads, warm-up, the last reply */
#define LAUNCH_S    30 /* per job: start-up and finalize */
#define STALL_SLACK_S 8 /* see stall_s() */
#define THREADS_PER_S 50 /* compute threads a loaded Weft rank starts per s */

static const int full_ns[] = {0, 1, 2, 5, 10, 50, 100, 1000};
static const int quick_ns[] = {0, 1, 10, 100};

static mr_results res; /* large: static */

const char *mr_lib_name(mr_lib l)
{
    return l == MR_WEFT ? "weft" : "openmpi";
}

/* ---------------------------------------------------------- set-up */

static void set_cases(const bench_opts *o)
{
    const int *ns = o->quick ? quick_ns : full_ns;
    res.n_ns = o->quick ? (int)(sizeof quick_ns / sizeof *quick_ns)
                        : (int)(sizeof full_ns / sizeof *full_ns);
    memcpy(res.ns, ns, sizeof *ns * (size_t)res.n_ns);
    res.lib_ns[MR_WEFT] = res.lib_ns[MR_OPENMPI] = res.n_ns;
    while (res.lib_ns[MR_OPENMPI] > 0 &&
           res.ns[res.lib_ns[MR_OPENMPI] - 1] > MR_OMPI_MAX_N)
        res.lib_ns[MR_OPENMPI]--;
    res.repeats = o->repeats;
    res.max_rts = o->quick ? 300 : 2000;
    res.soft_s = o->quick ? 0.5 : 1.2;
    res.think_us = THINK_US;
}

static const char *program_of(mr_lib l)
{
    const char *p = l == MR_WEFT ? MPI_REACTIVITY_WEFT_PROG : MPI_REACTIVITY_OMPI_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static int available(mr_lib l)
{
    return program_of(l) &&
           ol_mpirun_path(l == MR_WEFT ? OL_LIB_WEFT : OL_LIB_OPENMPI);
}

/* ------------------------------------------------------------ a job */

static int n_index(int n)
{
    for (int i = 0; i < res.n_ns; i++)
        if (res.ns[i] == n)
            return i;
    return -1;
}

/* What one job has reported so far. */
typedef struct job_state {
    mr_lib lib;
    int got; /* sample lines */
} job_state;

static void sample_line(void *arg, char *line)
{
    job_state *js = arg;
    char variant[BENCH_NAME_MAX];
    mr_run run;
    int n, i;
    if (ms_parse(line, &res.segments))
        return;
    if (sscanf(line, "sample %39s %d %d %lf %lf %lf %d", variant, &n,
               &run.count, &run.median_us, &run.p99_us, &run.mean_us,
               &run.capped) != 7 || (i = n_index(n)) < 0) {
        printf("%s\n", line); /* anything else the job says */
        return;
    }
    mr_cell *c = &res.cells[js->lib][i];
    js->got++;
    if (run.count > 0 && c->nruns < BENCH_REPEATS_MAX)
        c->runs[c->nruns++] = run;
}

/* Seconds to start n compute threads, at worst: a Weft rank of one
 * worker, whose main thread shares it with the threads already made
 * (1000 took ~9 s here, mpi_reactivity_mpi.c). */
static int start_s(int n)
{
    return n / THREADS_PER_S;
}

/* A case never lasts longer than this without rank 1 printing: its time
 * limit, the slowest reply Open MPI gives at N = 50 (~0.5 s), starting
 * the job's largest N threads, and MPI_Init on a loaded machine. */
static int stall_s(mr_lib l)
{
    return (int)res.soft_s + STALL_SLACK_S +
           start_s(res.ns[res.lib_ns[l] - 1]);
}

static int job_timeout_s(mr_lib l)
{
    int s = LAUNCH_S;
    for (int i = 0; i < res.lib_ns[l]; i++)
        s += (int)(res.soft_s + SETUP_S) + start_s(res.ns[i]);
    return s;
}

/* A job's command line and the texts it points to. */
typedef struct job_cmd {
    ol_argv argv;
    char ns[80], rts[16], soft[16], think[16], seed[16];
} job_cmd;

/* The job for the cases res.ns[first..] of library l. */
static void build_cmd(job_cmd *c, mr_lib l, int rep, int first)
{
    int len = 0;
    for (int i = first; i < res.lib_ns[l]; i++)
        len += snprintf(c->ns + len, sizeof c->ns - (size_t)len,
                        i > first ? ",%d" : "%d", res.ns[i]);
    snprintf(c->rts, sizeof c->rts, "%d", res.max_rts);
    snprintf(c->soft, sizeof c->soft, "%d", (int)(res.soft_s * 1000));
    snprintf(c->think, sizeof c->think, "%d", (int)res.think_us);
    snprintf(c->seed, sizeof c->seed, "%d", (rep + 1) * 7919 + (int)l);
    ol_argv_mpirun(&c->argv, l == MR_WEFT ? OL_LIB_WEFT : OL_LIB_OPENMPI, 2,
                   job_timeout_s(l), 0, program_of(l));
    const char *pairs[] = {"--variant", mr_lib_name(l), "--ns", c->ns,
                           "--max-rts", c->rts, "--soft-ms", c->soft,
                           "--think-us", c->think, "--seed", c->seed};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        ol_argv_add(&c->argv, pairs[i]);
}

/* Run the cases from `first` on; returns the index of the case the job
 * stalled or failed in, or res.lib_ns[l] if it went through. */
static int run_job_from(mr_lib l, int rep, int first)
{
    char what[64];
    job_cmd c;
    job_state js = {l, 0};
    build_cmd(&c, l, rep, first);
    snprintf(what, sizeof what, "%s, repeat %d", mr_lib_name(l), rep + 1);
    if (ol_run_job(&c.argv, job_timeout_s(l), stall_s(l), sample_line, &js,
                   what) == 0)
        return res.lib_ns[l];
    res.failures[l]++;
    res.state[l] = MR_ST_FAILED;
    int at = first + js.got;
    if (at < res.lib_ns[l]) {
        res.cells[l][at].stalls++;
        bench_table_note(&res.notes, "%s, repeat %d: the job stalled or "
                         "failed at N=%d (see above); the later N ran in a "
                         "new job", mr_lib_name(l), rep + 1, res.ns[at]);
    }
    return at;
}

/* One repeat of library l: every case, in as few jobs as possible (a new
 * job after a case that stalled, skipping that case). */
static void run_job(mr_lib l, int rep)
{
    if (!available(l)) {
        res.state[l] = MR_ST_ABSENT;
        return;
    }
    for (int first = 0; first < res.lib_ns[l];)
        first = run_job_from(l, rep, first) + 1;
    if (res.state[l] == MR_ST_NOT_RUN)
        res.state[l] = MR_ST_OK;
}

/* ------------------------------------------------------------- runs */

static int run_all(int64_t deadline)
{
    int done = 0;
    for (int rep = 0; rep < res.repeats; rep++) {
        if (rep > 0 && bench_now_ns() > deadline) {
            bench_table_note(&res.notes, "the run reached its time limit "
                             "after %d of %d repeats", rep, res.repeats);
            break;
        }
        int64_t t0 = bench_now_ns();
        for (int k = 0; k < MR_NLIBS; k++)
            run_job((mr_lib)((k + rep) % MR_NLIBS), rep);
        printf("repeat %d/%d done in %.1f s\n", rep + 1, res.repeats,
               (double)(bench_now_ns() - t0) / 1e9);
        fflush(stdout);
        done++;
    }
    return done;
}

static void print_header(const bench_opts *o)
{
    const char *strategy = getenv("WEFT_IO_STRATEGY");
    const char *transport = getenv("WEFT_MPI_TRANSPORT");
    printf("bench=mpi_reactivity: echo round trip (8 B, MPI_Send/MPI_Recv) "
           "while N compute threads run in the echoing rank%s\n",
           o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    ol_openmpi_version(res.ompi_version, sizeof res.ompi_version);
    printf("weft: Weft's mpirun -n 2, transport %s%s, I/O strategy %s, "
           "default workers and binding\n",
           transport && *transport ? transport : "shared memory (default)",
           transport && *transport ? " (WEFT_MPI_TRANSPORT from the "
           "environment)" : "",
           strategy && *strategy ? strategy : "adaptive (default)");
    if (available(MR_OPENMPI)) {
        printf("openmpi: %s, mpirun.openmpi -n 2 at its defaults (vader "
               "shared memory, ranks bound to cores), pthreads; N <= %d "
               "only\n", *res.ompi_version ? res.ompi_version : "Open MPI",
               MR_OMPI_MAX_N);
        ol_print_openmpi_cma(stdout);
    } else
        printf("openmpi: Open MPI is not installed (or its build of "
               "mpi_reactivity_mpi is missing): Weft only, goals n/a\n");
    printf("per case: think time uniform 0-%d us, at most %d round trips "
           "or %.1f s; repeats: %d\n", THINK_US, res.max_rts, res.soft_s,
           res.repeats);
    fflush(stdout);
}

static int finish(const bench_opts *o)
{
    int failed = res.failures[MR_WEFT] + res.failures[MR_OPENMPI] > 0;
    mr_report_print(&res);
    bench_print_steal(stdout, "the run", &res.steal_since);
    if (mr_report_csv(&res, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_mpi_reactivity.gp", o->csv_path,
                         o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "mpi_reactivity: some runs failed (see above)\n");
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, MR_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (o.case_name) {
        fprintf(stderr, "mpi_reactivity: --case is not used here\n");
        return 2;
    }
    set_cases(&o);
    print_header(&o);
    bench_steal_mark(&res.steal_since);
    int64_t budget_s = o.quick ? 40 : 300;
    run_all(bench_now_ns() + budget_s * 1000000000LL);
    return finish(&o);
}
