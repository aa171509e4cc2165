/* bench/osu_like, the collective MPI program: latency of MPI_Barrier,
 * MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Allgather and MPI_Alltoall on
 * MPI_COMM_WORLD, after the OSU micro-benchmarks (osu_barrier, osu_bcast,
 * ...). Plain MPI: CMake builds it once against Weft's MPI and, when Open
 * MPI is installed, once with mpicc.openmpi; the driver
 * (osu_like_coll.c) runs each with its own mpirun and reads what rank 0
 * prints.
 *
 *   osu_like_coll_mpi [--quick] [--repeats N] [--variant NAME]
 *                     [--coll barrier|bcast|...]   (default: all)
 *
 * Method. Rank 0 leads: before each step it sends every rank a command
 * (collective, size, iterations) by point-to-point messages, so that the
 * harness itself needs no collective but the barrier. In a step every rank
 * runs the collective `iters` times, timing each call alone and passing a
 * barrier between calls (outside the timed part, as OSU does), so a call
 * starts when all ranks are ready and a fast root cannot run ahead into
 * the next call; the barrier benchmark times a plain loop of barriers.
 * Each rank's time per call is sent back to rank 0, and the step's figure
 * is their mean over the ranks (OSU's "Avg Latency"), in us.
 * After a warm-up step, calibration grows `iters` until a step takes a
 * tenth of the target, then scales it to the target; then `repeats` timed
 * steps per size, repeats as the outer loop; each figure is the median
 * over them, with min and max. A collective that outlives its budget starts no
 * new repeat (one always runs) and says so in a note.
 *
 * Data: bcast, allgather and alltoall move MPI_BYTE; reduce and allreduce
 * sum bytes / 4 MPI_FLOATs (all 1.0f: no denormals, no overflow), root 0.
 * Output (rank 0, stdout): first a `segments` line, the shared-memory
 * segments MPI_Init mapped (mpi_segments.c), then after each collective
 * `row ...` and `note ...` lines in bench_util's child format. A self-destruct alarm
 * bounds the program's life even if its launcher's own limit fails.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_segments.h"
#include "osu_like_coll.h"

#define CMD_TAG    11
#define TIME_TAG   12
#define LIFETIME_S 900
#define ITERS_MAX  100000
#define STOP       (-1)
#define WARMUP_ITERS 3

typedef struct cmd {
    int64_t coll; /* an olc_coll, or STOP */
    int64_t bytes;
    int64_t iters;
} cmd;

typedef struct args {
    int quick, repeats;
    unsigned colls;
    const char *variant;
} args;

static char *sbuf, *rbuf;
static int rank, nranks;

/* ------------------------------------------------------------ one call */

static int one_call(olc_coll c, int bytes)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (c) {
    case OLC_BARRIER: return MPI_Barrier(w);
    case OLC_BCAST: return MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, w);
    case OLC_REDUCE:
        return MPI_Reduce(sbuf, rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, 0, w);
    case OLC_ALLREDUCE:
        return MPI_Allreduce(sbuf, rbuf, bytes / 4, MPI_FLOAT, MPI_SUM, w);
    case OLC_ALLGATHER:
        return MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, w);
    case OLC_ALLTOALL:
        return MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, w);
    default: return MPI_ERR_ARG;
    }
}

/* Every rank: the step's calls; returns ns spent in them, or -1. */
static double run_step(const cmd *c)
{
    double spent = 0;
    int rc = MPI_Barrier(MPI_COMM_WORLD);
    if (c->coll == OLC_BARRIER) {
        int64_t t0 = bench_now_ns();
        for (int64_t i = 0; i < c->iters && rc == MPI_SUCCESS; i++)
            rc = MPI_Barrier(MPI_COMM_WORLD);
        spent = (double)(bench_now_ns() - t0);
    }
    for (int64_t i = 0; c->coll != OLC_BARRIER && i < c->iters &&
                        rc == MPI_SUCCESS; i++) {
        int64_t t0 = bench_now_ns();
        rc = one_call((olc_coll)c->coll, (int)c->bytes);
        spent += (double)(bench_now_ns() - t0);
        if (rc == MPI_SUCCESS)
            rc = MPI_Barrier(MPI_COMM_WORLD);
    }
    return rc == MPI_SUCCESS ? spent : -1;
}

/* ------------------------------------------------------------ leader */

typedef struct step_result {
    double us;      /* mean over the ranks of the time per call */
    int64_t wall;   /* the whole step on the leader, ns */
} step_result;

static int leader_step(olc_coll coll, int bytes, int64_t iters,
                       step_result *out)
{
    cmd c = {coll, bytes, iters};
    int64_t t0 = bench_now_ns();
    double sum;
    for (int r = 1; r < nranks; r++)
        if (MPI_Send(&c, (int)sizeof c, MPI_BYTE, r, CMD_TAG,
                     MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
    sum = run_step(&c);
    for (int r = 1; r < nranks && sum >= 0; r++) {
        double theirs;
        if (MPI_Recv(&theirs, 1, MPI_DOUBLE, r, TIME_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS || theirs < 0)
            return -1;
        sum += theirs;
    }
    if (sum < 0)
        return -1;
    out->us = sum / nranks / (double)iters / 1000;
    out->wall = bench_now_ns() - t0;
    return 0;
}

/* The shorter wall time of two steps of n iterations (a step that a
 * burst of other load slowed down would make the count too small), or -1. */
static int64_t best_of_two(olc_coll coll, int bytes, int64_t n)
{
    step_result a, b;
    if (leader_step(coll, bytes, n, &a) != 0 ||
        leader_step(coll, bytes, n, &b) != 0)
        return -1;
    return a.wall < b.wall ? a.wall : b.wall;
}

/* Iterations for a step of about target_ns, after a warm-up step (the
 * first calls of a size may set up connections or buffers, which would
 * make the step look slow and the count too small); 0 on error. */
static int64_t calibrate(olc_coll coll, int bytes, int64_t target_ns)
{
    const int64_t enough = target_ns / 10;
    int64_t n = 1;
    step_result warm;
    if (leader_step(coll, bytes, WARMUP_ITERS, &warm) != 0)
        return 0;
    for (;;) {
        step_result s;
        if ((s.wall = best_of_two(coll, bytes, n)) < 0)
            return 0;
        if (s.wall >= enough || n >= ITERS_MAX) {
            double scaled = (double)n * (double)target_ns / (double)s.wall;
            return scaled < 1 ? 1 : scaled > ITERS_MAX ? ITERS_MAX
                                                       : (int64_t)scaled;
        }
        n *= s.wall < enough / 10 ? 10 : 2;
    }
}

/* Calibrate every size, then repeats (outer) x sizes; rows into t. */
static int measure_coll(const olc_plan *p, olc_coll coll, const char *variant,
                        bench_table *t)
{
    static double samples[OLC_MAX_SIZES][BENCH_REPEATS_MAX];
    int64_t iters[OLC_MAX_SIZES], deadline = bench_now_ns() + p->budget_ns;
    const int *sizes;
    int n = olc_sizes(coll, p->quick, &sizes), done = 0;
    char name[BENCH_NAME_MAX];
    for (int i = 0; i < n; i++)
        if ((iters[i] = calibrate(coll, sizes[i], p->target_ns)) == 0)
            return -1;
    while (done < p->repeats && (done == 0 || bench_now_ns() < deadline)) {
        for (int i = 0; i < n; i++) {
            step_result s;
            if (leader_step(coll, sizes[i], iters[i], &s) != 0)
                return -1;
            samples[i][done] = s.us;
        }
        done++;
    }
    for (int i = 0; i < n; i++)
        bench_table_add(t, olc_case(name, sizeof name, coll, sizes[i], nranks),
                        variant, "latency", bench_stats_of(samples[i], done),
                        "us");
    if (done < p->repeats)
        bench_table_note(t, "%s %s np%d: %d of %d repeats within the %.0f s "
                         "budget", variant, olc_coll_name(coll), nranks, done,
                         p->repeats, (double)p->budget_ns / 1e9);
    return 0;
}

static int lead(const olc_plan *p, const char *variant)
{
    static bench_table t;
    cmd stop = {STOP, 0, 0};
    int rc = 0;
    for (int c = 0; c < OLC_NCOLLS && rc == 0; c++) {
        if (!(p->colls & 1u << c))
            continue;
        memset(&t, 0, sizeof t);
        rc = measure_coll(p, (olc_coll)c, variant, &t);
        if (rc == 0) {
            bench_table_emit(&t, stdout);
            fflush(stdout);
        }
    }
    for (int r = 1; r < nranks && rc == 0; r++)
        rc = MPI_Send(&stop, (int)sizeof stop, MPI_BYTE, r, CMD_TAG,
                      MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
    return rc;
}

/* ------------------------------------------------------------ others */

static int serve(void)
{
    for (;;) {
        cmd c;
        double spent;
        if (MPI_Recv(&c, (int)sizeof c, MPI_BYTE, 0, CMD_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (c.coll == STOP)
            return 0;
        if (c.coll < 0 || c.coll >= OLC_NCOLLS || c.bytes < 0 ||
            c.bytes > OLC_MAX_BYTES || c.iters < 1)
            return -1;
        spent = run_step(&c);
        if (MPI_Send(&spent, 1, MPI_DOUBLE, 0, TIME_TAG, MPI_COMM_WORLD) !=
                MPI_SUCCESS || spent < 0)
            return -1;
    }
}

/* -------------------------------------------------------------- main */

static int parse_args(int argc, char **argv, args *a)
{
    *a = (args){0, 0, OLC_ALL_COLLS, "mpi"};
    for (int i = 1; i < argc; i++) {
        if (bench_mpi_common_opt(argc, argv, &i, &a->quick, &a->repeats,
                                 &a->variant))
            continue;
        if (strcmp(argv[i], "--coll") != 0 || i + 1 >= argc)
            return -1;
        int c = olc_coll_parse(argv[++i]);
        if (c < 0)
            return -1;
        a->colls = 1u << c;
    }
    a->repeats = bench_default_repeats(a->repeats, a->quick);
    return 0;
}

/* Send and receive buffers for nranks x 1 MiB, floats 1.0f (for the
 * reductions; the other collectives do not look). */
static int buffers(void)
{
    size_t bytes = (size_t)OLC_MAX_BYTES * (size_t)nranks;
    sbuf = malloc(bytes);
    rbuf = malloc(bytes);
    if (!sbuf || !rbuf)
        return -1;
    for (size_t i = 0; i < bytes / sizeof(float); i++)
        ((float *)sbuf)[i] = 1.0f;
    memset(rbuf, 0, bytes);
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    int rc;
    alarm(LIFETIME_S);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (parse_args(argc, argv, &a) != 0 || nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n N osu_like_coll_mpi [--quick] "
                    "[--repeats N] [--variant NAME] [--coll NAME] (N >= 2)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (buffers() != 0) {
        fprintf(stderr, "osu_like_coll_mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    olc_plan p = olc_make_plan(a.quick, a.repeats);
    p.colls = a.colls;
    if (rank == 0)
        ms_emit(stdout, a.variant, nranks);
    rc = rank == 0 ? lead(&p, a.variant) : serve();
    if (rc != 0) {
        fprintf(stderr, "osu_like_coll_mpi: rank %d: a step failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
