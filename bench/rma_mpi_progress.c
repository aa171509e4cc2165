/* bench/rma, the MPI program's part 2: does a target that computes, and
 * never calls MPI, still serve an 8-byte MPI_Get?
 *
 * Per N, rank 1 (the target) runs N compute threads per CPU it has
 * (Weft: per worker, as weft_num_workers(); Open MPI: per CPU of its
 * affinity mask, which mpirun.openmpi binds to one core by default). A
 * compute thread yields until every thread is made (so the main thread
 * can make them at all on a busy worker), adds one to the window's
 * RUNNING word, then runs an xorshift loop that never yields, blocks or
 * calls MPI, until the window's STOP word is set or its deadline passes.
 * The target's main thread waits in a thread join, not in MPI, and calls
 * MPI again only after every compute thread ended.
 *
 * Rank 0 (the origin) holds a shared lock on rank 1 during the case and
 * times MPI_Get of 8 B + MPI_Win_flush, one at a time, each after a think
 * time drawn uniformly from [0, THINK_US] us, so that a get lands at any
 * point of the target's scheduling. It first reads the RUNNING word until
 * every compute thread runs (the gets themselves say when the target is
 * loaded; at most the stall limit), then times gets for the case's time;
 * then it puts STOP, flushes and unlocks.
 *
 * Bounded without any MPI call from the target: an MPI whose one-sided
 * operations progress only inside the target's MPI calls cannot complete
 * the get while the target computes. Its get returns once the target's
 * compute threads reach their deadline and the target calls MPI_Barrier;
 * the origin sees a get that took longer than the stall limit, stops the
 * case and reports how long it took (`stalled_ms`). The deadline leaves
 * room for the warm-up, the timed gets and a stall limit of slack, so a
 * healthy case never reaches it.
 */
#include "rma_mpi.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_thread.h"

#ifndef WEFT_MPI
#include <sched.h>
#endif

#define RUNNING 0 /* window words (uint64_t) */
#define STOP    1
#define THINK_US 100
#define MAX_SAMPLES 200000
#define WAIT_MARGIN_NS 50000000LL /* see waited_for_target() */

/* ------------------------------------------------------------ target */

typedef struct compute_ctx {
    uint64_t *words; /* the window's memory on the target */
    int64_t deadline;
    atomic_int go;
} compute_ctx;

static volatile uint64_t compute_sink;

static void *compute_thread(void *arg)
{
    compute_ctx *c = arg;
    uint64_t x = (uint64_t)(uintptr_t)&x | 1;
    while (!atomic_load(&c->go))
        thread_yield();
    __atomic_fetch_add(&c->words[RUNNING], 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&c->words[STOP], __ATOMIC_RELAXED) &&
           bench_now_ns() < c->deadline) {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        compute_sink = x;
    }
    return NULL;
}

/* CPUs the target's threads run on. */
static int target_cpus(void)
{
#ifdef WEFT_MPI
    return weft_num_workers();
#else
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    return CPU_COUNT(&set);
#endif
}

/* How long the target computes at most: the warm-up's and a stall
 * limit of slack, and the timed gets (see the head comment). */
static int64_t compute_budget_ns(const rma_args *a)
{
    return 3 * a->stall_ns + a->soft_ns;
}

static void target_case(const rma_args *a, uint64_t *words, int total)
{
    thread_t *t = malloc(sizeof *t * (size_t)total);
    compute_ctx c = {words, 0, 0};
    int started = 0;
    __atomic_store_n(&words[RUNNING], 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&words[STOP], 0, __ATOMIC_SEQ_CST);
    MPI_Barrier(MPI_COMM_WORLD);
    c.deadline = bench_now_ns() + compute_budget_ns(a);
    while (t && started < total && thread_start(&t[started], compute_thread,
                                                &c) == 0)
        started++;
    if (started < total)
        fprintf(stderr, "rma_mpi: started %d of %d compute threads\n",
                started, total);
    atomic_store(&c.go, 1);
    for (int i = 0; i < started; i++)
        thread_join(t[i]);
    free(t);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------ origin */

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void think(uint64_t *rng)
{
    long ns = (long)(next_rand(rng) % (THINK_US * 1000 + 1));
    struct timespec ts = {0, ns};
    while (ns > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

/* One get of the target's RUNNING word and its flush; ns it took. */
static int64_t timed_get(MPI_Win win, uint64_t *value)
{
    int64_t t0 = bench_now_ns();
    MPI_Get(value, 8, MPI_BYTE, 1, RUNNING * 8, 8, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    return bench_now_ns() - t0;
}

/* What the origin saw in one case. */
typedef struct origin_case {
    double *us;
    int count;
    int64_t stalled_ns; /* 0, or the get that took too long */
    int64_t stalled_end; /* when it completed */
} origin_case;

static void stalled(origin_case *oc, int64_t ns)
{
    oc->stalled_ns = ns;
    oc->stalled_end = bench_now_ns();
}

/* Gets until every compute thread runs; 0, or -1 if one stalled. */
static int wait_loaded(const rma_args *a, MPI_Win win, int total,
                       origin_case *oc)
{
    uint64_t running = 0;
    int64_t stop = bench_now_ns() + a->stall_ns;
    while (running < (uint64_t)total && bench_now_ns() < stop) {
        int64_t ns = timed_get(win, &running);
        if (ns > a->stall_ns) {
            stalled(oc, ns);
            return -1;
        }
    }
    return 0;
}

static void timed_gets(const rma_args *a, MPI_Win win, uint64_t *rng,
                       origin_case *oc)
{
    uint64_t value;
    int64_t stop = bench_now_ns() + a->soft_ns;
    while (oc->count < MAX_SAMPLES && bench_now_ns() < stop) {
        think(rng);
        int64_t ns = timed_get(win, &value);
        if (ns > a->stall_ns) {
            stalled(oc, ns);
            return;
        }
        oc->us[oc->count++] = (double)ns / 1e3;
    }
}

static int compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Both ranks read one clock (CLOCK_MONOTONIC, one host) and left the
 * barrier together at `start` (within the margin): a stalled get that
 * completed past the target's deadline waited for the target. */
static int waited_for_target(const rma_args *a, const origin_case *oc,
                             int64_t start)
{
    return oc->stalled_ns > 0 &&
           oc->stalled_end >= start + compute_budget_ns(a) - WAIT_MARGIN_NS;
}

static void print_case(int n, int total, origin_case *oc, int waited)
{
    double p50 = 0, p99 = 0, max = 0;
    int k = oc->count;
    qsort(oc->us, (size_t)k, sizeof *oc->us, compare_doubles);
    if (k > 0) {
        p50 = k % 2 ? oc->us[k / 2] : (oc->us[k / 2 - 1] + oc->us[k / 2]) / 2;
        p99 = oc->us[(99 * k + 99) / 100 - 1]; /* nearest rank */
        max = oc->us[k - 1];
    }
    printf(RMA_PROGRESS_FORMAT, n, total, k, p50, p99, max,
           (double)oc->stalled_ns / 1e6, waited);
    fflush(stdout);
}

static void origin_case_run(const rma_args *a, MPI_Win win, int n, int total,
                            uint64_t *rng, double *us)
{
    origin_case oc = {us, 0, 0, 0};
    uint64_t value, one = 1;
    MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
    timed_get(win, &value); /* the target is still inside MPI */
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t start = bench_now_ns();
    if (wait_loaded(a, win, total, &oc) == 0)
        timed_gets(a, win, rng, &oc);
    MPI_Put(&one, 8, MPI_BYTE, 1, STOP * 8, 8, MPI_BYTE, win);
    MPI_Win_flush(1, win);
    MPI_Win_unlock(1, win);
    MPI_Barrier(MPI_COMM_WORLD);
    print_case(n, total, &oc, waited_for_target(a, &oc, start));
}

/* -------------------------------------------------------------- both */

void rma_progress_run(const rma_args *a, MPI_Win win, void *base, int rank)
{
    uint64_t rng = a->seed ? a->seed : 1;
    int cpus = rank == 1 ? target_cpus() : 0;
    double *us = rank == 0 ? malloc(sizeof *us * MAX_SAMPLES) : NULL;
    if (rank == 0 && !us)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Bcast(&cpus, 1, MPI_INT, 1, MPI_COMM_WORLD);
    for (int i = 0; i < a->n_ns; i++) {
        int total = a->ns[i] * cpus;
        if (rank == 1)
            target_case(a, base, total);
        else
            origin_case_run(a, win, a->ns[i], total, &rng, us);
    }
    free(us);
}
