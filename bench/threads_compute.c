/* bench/threads, preempt_overhead's compute loop, shared by the Weft
 * variants (threads_weft.c: a 1 ms quantum against preemption off) and
 * the bare-signal floor (threads_native.c: a plain 1 kHz POSIX timer
 * signal with an empty handler against no timer).
 *
 * The calling thread runs an xorshift loop in segments of at most 20 ms
 * of wall time, switching between the two settings each segment (the
 * caller's set_tick callback arms or disarms the tick at once), so that
 * a busy machine hits both alike. Throughput is iterations per CPU second
 * of the calling kernel thread (CLOCK_THREAD_CPUTIME_ID): the signal's
 * kernel and handler time is charged to that thread, time taken by other
 * processes is not. On a loaded 2-CPU machine the wall-clock figure swings
 * by +-10 %, the CPU-time one by about 1 %; the wall-clock loss is noted.
 *
 * Why a floor: on a virtual machine the timer interrupt and the signal's
 * delivery alone can cost tens of microseconds (a 1 kHz bare signal took
 * 4-7 % of a CPU on one host), which no user-level scheduler can undo;
 * the floor shows how much of the loss is Weft's own.
 */
#include "threads.h"

#include <time.h>

#define COMPUTE_CHUNK      4096     /* xorshift steps between clock reads */
#define PREEMPT_SEGMENT_NS 20000000 /* longest run of one setting */

/* Iterations, wall time and CPU time summed over compute segments. */
typedef struct compute_totals {
    double iters, wall_ns, cpu_ns;
} compute_totals;

typedef struct compute_run {
    int64_t segment_ns;  /* wall time of one segment */
    int pairs;           /* segment pairs (one of each setting) */
    uint64_t state;      /* xorshift state, carried across segments */
    threads_set_tick set_tick;
    void *ctx;
} compute_run;

/* CPU time of the calling kernel thread. */
static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void compute_segment(compute_run *run, int ticking, compute_totals *tot)
{
    uint64_t x = run->state, n = 0;
    run->set_tick(ticking, run->ctx);
    int64_t cpu0 = thread_cpu_ns(), t0 = bench_now_ns(), now;
    do {
        for (int i = 0; i < COMPUTE_CHUNK; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        n += COMPUTE_CHUNK;
        now = bench_now_ns();
    } while (now - t0 < run->segment_ns);
    tot->cpu_ns += (double)(thread_cpu_ns() - cpu0);
    tot->wall_ns += (double)(now - t0);
    tot->iters += (double)n;
    run->state = x;
}

static void compute_alternating(int64_t compute_ns, const threads_tick *tick,
                                compute_totals *ticking, compute_totals *quiet)
{
    int64_t segment = compute_ns / 4 < PREEMPT_SEGMENT_NS ? compute_ns / 4 : PREEMPT_SEGMENT_NS;
    compute_run run = {.segment_ns = segment,
                       .pairs = (int)(compute_ns / segment),
                       .state = 0x9E3779B97F4A7C15u,
                       .set_tick = tick->set,
                       .ctx = tick->ctx};
    for (int i = 0; i < run.pairs; i++) {
        int ticking_first = i % 2 == 0;
        compute_segment(&run, ticking_first, ticking_first ? ticking : quiet);
        compute_segment(&run, !ticking_first, ticking_first ? quiet : ticking);
    }
    run.set_tick(0, run.ctx);
    bench_consume(run.state);
}

static void add_totals(compute_totals *sum, const compute_totals *tot)
{
    sum->iters += tot->iters;
    sum->wall_ns += tot->wall_ns;
    sum->cpu_ns += tot->cpu_ns;
}

static double per_cpu_second(const compute_totals *tot)
{
    return tot->iters * 1e9 / tot->cpu_ns;
}

static void note_wall_clock(bench_table *t, const char *what, const compute_totals *ticking,
                            const compute_totals *quiet)
{
    double wall_loss = 1 - (ticking->iters / ticking->wall_ns) / (quiet->iters / quiet->wall_ns);
    double share = (ticking->cpu_ns + quiet->cpu_ns) / (ticking->wall_ns + quiet->wall_ns);
    bench_table_note(t, "%s: iterations per CPU second of the computing thread; by wall clock "
                     "the loss was %.2f %% (it got %.0f %% of a CPU)",
                     what, wall_loss * 100, share * 100);
}

void threads_measure_tick(const threads_params *p, const threads_tick *tick, bench_table *t)
{
    double ticking[BENCH_REPEATS_MAX], quiet[BENCH_REPEATS_MAX];
    compute_totals all_ticking = {0}, all_quiet = {0}; /* summed over repeats */
    for (int r = 0; r < p->repeats; r++) {
        compute_totals on = {0}, off = {0};
        compute_alternating(p->compute_ns, tick, &on, &off);
        ticking[r] = per_cpu_second(&on);
        quiet[r] = per_cpu_second(&off);
        add_totals(&all_ticking, &on);
        add_totals(&all_quiet, &off);
    }
    bench_table_add(t, "preempt_overhead", tick->ticking, "throughput",
                    bench_stats_of(ticking, p->repeats), "ops_per_s");
    bench_table_add(t, "preempt_overhead", tick->quiet, "throughput",
                    bench_stats_of(quiet, p->repeats), "ops_per_s");
    note_wall_clock(t, tick->what, &all_ticking, &all_quiet);
}
