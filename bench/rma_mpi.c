/* bench/rma, the MPI program: one-sided latency and bandwidth (part 1),
 * and gets served while the target computes (part 2,
 * rma_mpi_progress.c). Plain MPI, built twice by CMake: against Weft's
 * mpi.h (which defines WEFT_MPI; threads are Weft user-level threads)
 * and with mpicc.openmpi (threads are pthreads).
 *
 *   rma_mpi --variant NAME --parts perf|progress|all --ns 1,10,100
 *           --soft-ms T --stall-ms S --seed X
 *
 * Two ranks share one window made by MPI_Win_allocate (OSU's default
 * window), RMA_WIN_BYTES on each. Only MPI_THREAD_FUNNELED is asked
 * for: the compute threads of part 2 never call MPI, and Open MPI 4.1's
 * pt2pt one-sided component (its path over TCP) refuses
 * MPI_THREAD_MULTIPLE.
 *
 * Part 1, the way OSU's osu_put_latency / osu_get_latency / osu_put_bw
 * measure at their default synchronisation (flush): rank 0 holds a
 * shared lock on rank 1 for the whole part and calls MPI_Win_flush after
 * every put or get (latency: time per put+flush or get+flush, averaged
 * over the loop) or after every RMA_BW_WINDOW puts (bandwidth: bytes put
 * over time, 1 MB = 10^6 B); rank 1 waits in MPI_Barrier meanwhile, as
 * OSU's target does. Each figure comes from a loop of about T ms after a
 * warm-up, and is printed as one `perf` line (rma.h).
 *
 * A self-destruct alarm bounds the program's life even if its launcher's
 * time limit fails.
 */
#include "rma_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define LIFETIME_S 600
#define LAT_BATCH 100   /* operations between two looks at the clock */
#define LAT_WARMUP 200
#define BW_WARMUP 2     /* flushed windows before the timed ones */
#define BW_MIN_ROUNDS 3

/* ------------------------------------------------------------ part 1 */

/* One put or get of 8 B and its flush, `count` times. */
static void lat_loop(MPI_Win win, int get, uint64_t *buf, int count)
{
    for (int i = 0; i < count; i++) {
        if (get)
            MPI_Get(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
        else
            MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
        MPI_Win_flush(1, win);
    }
}

/* us per 8-byte put (or get) and flush. */
static double latency_us(MPI_Win win, int get, int64_t soft_ns)
{
    uint64_t buf = 0x5eed;
    long done = 0;
    lat_loop(win, get, &buf, LAT_WARMUP);
    int64_t t0 = bench_now_ns(), t;
    do {
        lat_loop(win, get, &buf, LAT_BATCH);
        done += LAT_BATCH;
    } while ((t = bench_now_ns()) - t0 < soft_ns);
    return (double)(t - t0) / 1e3 / (double)done;
}

static void bw_round(MPI_Win win, const char *buf, int bytes)
{
    for (int i = 0; i < RMA_BW_WINDOW; i++)
        MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
    MPI_Win_flush(1, win);
}

/* MB/s of puts of `bytes`, RMA_BW_WINDOW per flush. */
static double put_bw_mbs(MPI_Win win, int bytes, int64_t soft_ns)
{
    char *buf = malloc((size_t)bytes);
    long rounds = 0;
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, 0xa5, (size_t)bytes);
    for (int i = 0; i < BW_WARMUP; i++)
        bw_round(win, buf, bytes);
    int64_t t0 = bench_now_ns(), t;
    do {
        bw_round(win, buf, bytes);
        rounds++;
    } while ((t = bench_now_ns()) - t0 < soft_ns || rounds < BW_MIN_ROUNDS);
    free(buf);
    return (double)bytes * RMA_BW_WINDOW * (double)rounds /
           ((double)(t - t0) / 1e3);
}

static double perf_case(MPI_Win win, rma_perf_case c, int64_t soft_ns)
{
    if (rma_perf_case_is_latency(c))
        return latency_us(win, c == RMA_GET_LAT, soft_ns);
    return put_bw_mbs(win, rma_perf_case_bytes(c), soft_ns);
}

static void perf_run(const rma_args *a, MPI_Win win, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        for (int c = 0; c < RMA_NPERF; c++) {
            double v = perf_case(win, (rma_perf_case)c, a->soft_ns);
            printf(RMA_PERF_FORMAT, rma_perf_case_name((rma_perf_case)c), v);
            fflush(stdout);
        }
        MPI_Win_unlock(1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---------------------------------------------------------- arguments */

static int parse_ns(const char *text, rma_args *a)
{
    char *end;
    a->n_ns = 0;
    while (*text && a->n_ns < RMA_MAX_NS) {
        long v = strtol(text, &end, 10);
        if (end == text || v < 1 || v > 1000)
            return -1;
        a->ns[a->n_ns++] = (int)v;
        text = *end == ',' ? end + 1 : end;
    }
    return *text ? -1 : 0;
}

static int parse_parts(const char *v, rma_args *a)
{
    a->perf = strcmp(v, "perf") == 0 || strcmp(v, "all") == 0;
    a->progress = strcmp(v, "progress") == 0 || strcmp(v, "all") == 0;
    return a->perf || a->progress ? 0 : -1;
}

static int parse_pair(const char *k, const char *v, rma_args *a)
{
    if (strcmp(k, "--variant") == 0)
        a->variant = v;
    else if (strcmp(k, "--parts") == 0)
        return parse_parts(v, a);
    else if (strcmp(k, "--ns") == 0)
        return parse_ns(v, a);
    else if (strcmp(k, "--soft-ms") == 0)
        a->soft_ns = atoll(v) * 1000000;
    else if (strcmp(k, "--stall-ms") == 0)
        a->stall_ns = atoll(v) * 1000000;
    else if (strcmp(k, "--seed") == 0)
        a->seed = strtoull(v, NULL, 10);
    else
        return -1;
    return 0;
}

static int parse_args(int argc, char **argv, rma_args *a)
{
    memset(a, 0, sizeof *a);
    a->variant = "mpi";
    a->perf = a->progress = 1;
    a->seed = 1;
    if (argc % 2 != 1)
        return -1;
    for (int i = 1; i + 1 < argc; i += 2)
        if (parse_pair(argv[i], argv[i + 1], a) != 0)
            return -1;
    return a->soft_ns > 0 && a->stall_ns > 0 &&
           (a->n_ns > 0 || !a->progress) ? 0 : -1;
}

/* -------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    int rank, size, provided;
    rma_args a;
    void *base;
    MPI_Win win;
    alarm(LIFETIME_S);
    prctl(PR_SET_TIMERSLACK, 1UL); /* precise think times (part 2) */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &a) != 0 || size != 2) {
        if (rank == 0)
            fprintf(stderr, "rma_mpi: needs 2 ranks and --soft-ms, "
                    "--stall-ms, --ns (optional: --variant, --parts, "
                    "--seed)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_allocate(RMA_WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    memset(base, 0, RMA_WIN_BYTES);
    if (a.perf)
        perf_run(&a, win, rank);
    if (a.progress)
        rma_progress_run(&a, win, base, rank);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
