/* bench/mpi_reactivity, the MPI program: how fast a rank that runs N
 * CPU-bound threads answers a message, seen from the other rank -- the
 * reactivity benchmark (PM2 paper, Table 1) through MPI. Plain MPI under
 * MPI_THREAD_MULTIPLE, built twice by CMake: against Weft's mpi.h (which
 * defines WEFT_MPI; threads are then Weft user-level threads from
 * weft.h) and with mpicc.openmpi (threads are pthreads).
 *
 *   mpi_reactivity_mpi --variant NAME --ns 0,1,10 --max-rts M
 *                      --soft-ms T --think-us U --seed S
 *
 * Rank 0, per case N: receives the case from rank 1 (main thread, nothing
 * else running), starts N compute threads (an xorshift loop that never
 * yields or blocks once started, stopped by a flag between cases), and
 * one echo thread (MPI_Recv of 8 bytes from rank 1, MPI_Send them back,
 * until an end marker, on which it raises the stop flag), tells rank 1 it
 * is ready, starts the compute threads' loops (a `go` flag) and waits in a
 * thread join -- not in MPI, so that no extra thread polls beside the echo
 * thread -- then joins the compute threads.
 *
 * Set-up and tear-down stay out of the compute threads' way: in a Weft
 * rank of one worker a thread runs once every N quanta (10 ms each) while
 * N threads spin, so a main thread that created spinning threads one by
 * one took ~55 s to start 1000 of them, and ~10 s to get back from its
 * join and raise the stop flag. So a compute thread yields in a loop until
 * `go`, and the echo thread stops them. Not a blocking gate (a condition
 * variable): 600 or more Weft threads woken by one broadcast, then
 * spinning, made the echo's median round trip ~1.8 ms instead of ~70 us,
 * which is not what this benchmark is about (compute threads that never
 * block).
 *
 * Rank 1, per case: a few untimed round trips, then timed ones (send to
 * full reply, CLOCK_MONOTONIC), each after a think time drawn uniformly
 * from [0, U] us and slept in nanosleep (timer slack 1 ns), so a message
 * may arrive at any point of rank 0's scheduling; stops after M round
 * trips or T ms (the reply in flight is still awaited); prints one
 * `sample` line (mpi_reactivity.h): count, median, p99 (nearest rank),
 * mean in us.
 *
 * Rank 0 also prints, after MPI_Init, a `segments` line: the shared-memory
 * segments it mapped (mpi_segments.c).
 *
 * A self-destruct alarm bounds the program's life even if its launcher's
 * time limit fails.
 */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "mpi_reactivity.h"
#include "mpi_segments.h"
#include "mpi_thread.h"

#define CMD_TAG   1
#define READY_TAG 2
#define PING_TAG  3
#define PONG_TAG  4
#define END_MSG   UINT64_MAX
#define WARMUP_RTS 5
#define LIFETIME_S 900
#define MAX_THREADS 1000

typedef struct args {
    const char *variant;
    int ns[MR_MAX_NS], n_ns;
    int max_rts;
    int64_t soft_ns, think_ns;
    uint64_t seed;
} args;

static atomic_int stop_compute;
static volatile uint64_t compute_sink;
static atomic_int go; /* the compute threads may start computing */

/* ----------------------------------------------------------- threads */

static void *compute_thread(void *arg)
{
    uint64_t x = (uint64_t)(uintptr_t)arg * 2654435761u + 1;
    while (!atomic_load(&go))
        thread_yield();
    while (!atomic_load_explicit(&stop_compute, memory_order_relaxed)) {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        compute_sink = x;
    }
    return NULL;
}

static void *echo_thread(void *arg)
{
    uint64_t msg;
    (void)arg;
    for (;;) {
        MPI_Recv(&msg, 8, MPI_BYTE, 1, PING_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (msg == END_MSG) {
            atomic_store(&stop_compute, 1); /* before main runs again */
            return NULL;
        }
        MPI_Send(&msg, 8, MPI_BYTE, 1, PONG_TAG, MPI_COMM_WORLD);
    }
}

/* ------------------------------------------------------------ rank 0 */

static int serve_case(int n)
{
    static thread_t compute[MAX_THREADS];
    thread_t echo;
    int started = 0, rc = 0, ready = n;
    atomic_store(&stop_compute, 0);
    atomic_store(&go, 0);
    while (started < n && rc == 0)
        if ((rc = thread_start(&compute[started], compute_thread,
                               (void *)(uintptr_t)(started + 1))) == 0)
            started++;
    if (rc == 0)
        rc = thread_start(&echo, echo_thread, NULL);
    if (rc != 0)
        fprintf(stderr, "mpi_reactivity: cannot start threads\n");
    else {
        MPI_Send(&ready, 1, MPI_INT, 1, READY_TAG, MPI_COMM_WORLD);
        atomic_store(&go, 1);
        thread_join(echo);
    }
    atomic_store(&stop_compute, 1);
    atomic_store(&go, 1); /* after a failed start: let them see the stop */
    for (int i = 0; i < started; i++)
        thread_join(compute[i]);
    return rc;
}

static int serve(void)
{
    int n;
    for (;;) {
        MPI_Recv(&n, 1, MPI_INT, 1, CMD_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        if (n < 0)
            return 0;
        if (n > MAX_THREADS || serve_case(n) != 0)
            return -1;
    }
}

/* ------------------------------------------------------------ rank 1 */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void think(uint64_t *rng, int64_t think_ns)
{
    int64_t ns = (int64_t)(next_rand(rng) % (uint64_t)(think_ns + 1));
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    if (ns > 0)
        while (nanosleep(&ts, &ts) != 0)
            ;
}

/* One round trip of seq; its time in us. */
static double round_trip(uint64_t seq)
{
    uint64_t back = 0;
    int64_t t0 = now_ns();
    MPI_Send(&seq, 8, MPI_BYTE, 0, PING_TAG, MPI_COMM_WORLD);
    MPI_Recv(&back, 8, MPI_BYTE, 0, PONG_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    int64_t t1 = now_ns();
    if (back != seq) {
        fprintf(stderr, "mpi_reactivity: echo %llu for %llu\n",
                (unsigned long long)back, (unsigned long long)seq);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return (double)(t1 - t0) / 1000;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_sample(const args *a, int n, double *us, int count,
                         int capped)
{
    double sum = 0, med = 0, p99 = 0;
    qsort(us, (size_t)count, sizeof *us, compare_doubles);
    for (int i = 0; i < count; i++)
        sum += us[i];
    if (count > 0) {
        med = count % 2 ? us[count / 2]
                        : (us[count / 2 - 1] + us[count / 2]) / 2;
        p99 = us[(99 * count + 99) / 100 - 1]; /* nearest rank */
    }
    printf(MR_SAMPLE_FORMAT, a->variant, n, count, med, p99,
           count ? sum / count : 0.0, capped);
    fflush(stdout);
}

static void ping_case(const args *a, int n, uint64_t *rng, double *us)
{
    int ready, count = 0;
    uint64_t seq = 1, end = END_MSG;
    MPI_Send(&n, 1, MPI_INT, 0, CMD_TAG, MPI_COMM_WORLD);
    MPI_Recv(&ready, 1, MPI_INT, 0, READY_TAG, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    int64_t stop = now_ns() + a->soft_ns / 5;
    for (int i = 0; i < WARMUP_RTS && now_ns() < stop; i++)
        round_trip(seq++);
    stop = now_ns() + a->soft_ns;
    while (count < a->max_rts && now_ns() < stop) {
        think(rng, a->think_ns);
        us[count++] = round_trip(seq++);
    }
    MPI_Send(&end, 8, MPI_BYTE, 0, PING_TAG, MPI_COMM_WORLD);
    print_sample(a, n, us, count, count < a->max_rts);
}

static int ping(const args *a)
{
    uint64_t rng = a->seed ? a->seed : 1;
    int stop = -1;
    double *us = malloc(sizeof *us * (size_t)a->max_rts);
    if (!us)
        return -1;
    for (int i = 0; i < a->n_ns; i++)
        ping_case(a, a->ns[i], &rng, us);
    MPI_Send(&stop, 1, MPI_INT, 0, CMD_TAG, MPI_COMM_WORLD);
    free(us);
    return 0;
}

/* -------------------------------------------------------------- main */

static int parse_ns(const char *text, args *a)
{
    char *end;
    a->n_ns = 0;
    while (*text && a->n_ns < MR_MAX_NS) {
        long v = strtol(text, &end, 10);
        if (end == text || v < 0 || v > MAX_THREADS)
            return -1;
        a->ns[a->n_ns++] = (int)v;
        text = *end == ',' ? end + 1 : end;
    }
    return *text || a->n_ns == 0 ? -1 : 0;
}

static int parse_pair(const char *k, const char *v, args *a)
{
    if (strcmp(k, "--variant") == 0)
        a->variant = v;
    else if (strcmp(k, "--ns") == 0)
        return parse_ns(v, a);
    else if (strcmp(k, "--max-rts") == 0)
        a->max_rts = atoi(v);
    else if (strcmp(k, "--soft-ms") == 0)
        a->soft_ns = atoll(v) * 1000000;
    else if (strcmp(k, "--think-us") == 0)
        a->think_ns = atoll(v) * 1000;
    else if (strcmp(k, "--seed") == 0)
        a->seed = strtoull(v, NULL, 10);
    else
        return -1;
    return 0;
}

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->variant = "mpi";
    if (argc % 2 != 1)
        return -1;
    for (int i = 1; i + 1 < argc; i += 2)
        if (parse_pair(argv[i], argv[i + 1], a) != 0)
            return -1;
    return a->n_ns > 0 && a->max_rts > 0 && a->soft_ns > 0 &&
           a->think_ns >= 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rank, size, provided, rc;
    args a;
    alarm(LIFETIME_S);
    prctl(PR_SET_TIMERSLACK, 1UL); /* precise think times */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &a) != 0 || size != 2 ||
        provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "mpi_reactivity_mpi: needs 2 ranks, "
                    "MPI_THREAD_MULTIPLE and --variant, --ns, --max-rts, "
                    "--soft-ms, --think-us, --seed\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        ms_emit(stdout, a.variant, size);
    rc = rank == 0 ? serve() : ping(&a);
    if (rc != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
