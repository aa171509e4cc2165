/* bench/threads, Weft variants (see threads.c for the whole plan). These
 * run in child processes whose WEFT_WORKERS the driver chose, after
 * weft_init(); main is then a ULT, and while it waits in weft_thread_join
 * only the ULTs under test are runnable.
 *
 * yield_rt        two ULTs calling weft_thread_yield in a loop on one
 *                 worker; one round trip = each yields once. Timed by one of
 *                 them after WARMUP_ROUNDS untimed round trips.
 * create_join     weft_thread_create (default attributes) + weft_thread_join
 *                 of an empty function, from main.
 * mutex_uncontended  weft_mutex lock + unlock from main, alone.
 * mutex_contended CONTENDED_THREADS ULTs on all workers increment one
 *                 counter under a weft_mutex (total checked exactly); time
 *                 per lock/unlock pair, from a start barrier to the last
 *                 thread's end.
 * preempt_overhead  one ULT alone on the worker runs the compute loop of
 *                 threads_compute.c with a 1 ms quantum (`quantum_1ms`) and
 *                 with preemption off (`no_preempt`, weft_set_quantum(0)),
 *                 in alternating segments (the ULT calls weft_set_quantum
 *                 itself; it re-arms the worker's timer at once). One repeat
 *                 is compute_ns of each.
 */
#include "threads.h"

#include <stdlib.h>
#include <weft.h>

#define PREEMPT_QUANTUM_NS 1000000  /* the quantum_1ms variant */

static void die_on(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "threads: %s: %s\n", what, weft_strerror(rc));
        exit(1);
    }
}

static weft_thread_t spawn(void *(*fn)(void *), void *arg)
{
    weft_thread_t th;
    die_on(weft_thread_create(&th, NULL, fn, arg), "weft_thread_create");
    return th;
}

static void join(weft_thread_t th)
{
    die_on(weft_thread_join(th, NULL), "weft_thread_join");
}

/* ---------------------------------------------------------------- yield */

typedef struct yield_pair {
    uint64_t rounds;
    double elapsed_ns;
} yield_pair;

static void *yield_and_time(void *arg)
{
    yield_pair *yp = arg;
    for (int i = 0; i < WARMUP_ROUNDS; i++)
        weft_thread_yield();
    int64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < yp->rounds; i++)
        weft_thread_yield();
    yp->elapsed_ns = (double)(bench_now_ns() - t0);
    return NULL;
}

static void *yield_partner(void *arg)
{
    yield_pair *yp = arg;
    for (uint64_t i = 0; i < yp->rounds + WARMUP_ROUNDS + 1; i++)
        weft_thread_yield();
    return NULL;
}

static double run_weft_yield(void *ctx, uint64_t iters)
{
    yield_pair *yp = ctx;
    yp->rounds = iters;
    weft_thread_t timer = spawn(yield_and_time, yp);
    weft_thread_t partner = spawn(yield_partner, yp);
    join(timer);
    join(partner);
    return yp->elapsed_ns;
}

/* ---------------------------------------------------- create_join, mutex */

static void *empty_thread(void *arg)
{
    return arg;
}

static double run_weft_create_join(void *ctx, uint64_t iters)
{
    (void)ctx;
    int64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        join(spawn(empty_thread, NULL));
    return (double)(bench_now_ns() - t0);
}

typedef struct shared_counter {
    weft_mutex_t lock;
    weft_barrier_t start;  /* lines the contenders up */
    uint64_t value;
    uint64_t per_thread;   /* increments per thread */
    int errors;            /* threads that saw a nonzero return code */
    int64_t start_ns[CONTENDED_THREADS];
    int64_t end_ns[CONTENDED_THREADS];
} shared_counter;

typedef struct contender {
    shared_counter *counter;
    int index;
} contender;

static void increment_under_lock(shared_counter *c)
{
    int errors = 0;
    for (uint64_t i = 0; i < c->per_thread; i++) {
        errors |= weft_mutex_lock(&c->lock);
        c->value++;
        errors |= weft_mutex_unlock(&c->lock);
    }
    if (errors)
        __atomic_fetch_add(&c->errors, 1, __ATOMIC_RELAXED);
}

/* Each contender times itself from the start barrier, so that thread
 * creation and join stay out of the figure. */
static void *contend(void *arg)
{
    contender *me = arg;
    shared_counter *c = me->counter;
    int rc = weft_barrier_wait(&c->start);
    if (rc < 0)
        die_on(rc, "weft_barrier_wait");
    c->start_ns[me->index] = bench_now_ns();
    increment_under_lock(c);
    c->end_ns[me->index] = bench_now_ns();
    return NULL;
}

static void check_counter(const shared_counter *c, uint64_t expected)
{
    if (c->errors || c->value != expected) {
        fprintf(stderr, "threads: weft counter is %llu, expected %llu "
                "(%d threads saw errors)\n", (unsigned long long)c->value,
                (unsigned long long)expected, c->errors);
        exit(1);
    }
}

static double run_weft_mutex_alone(void *ctx, uint64_t iters)
{
    shared_counter *c = ctx;
    c->value = 0;
    c->per_thread = iters;
    int64_t t0 = bench_now_ns();
    increment_under_lock(c);
    double elapsed = (double)(bench_now_ns() - t0);
    check_counter(c, iters);
    return elapsed;
}

static double run_weft_mutex_contended(void *ctx, uint64_t iters)
{
    shared_counter *c = ctx;
    weft_thread_t th[CONTENDED_THREADS];
    contender who[CONTENDED_THREADS];
    c->value = 0;
    c->per_thread = iters / CONTENDED_THREADS + 1;
    for (int i = 0; i < CONTENDED_THREADS; i++) {
        who[i] = (contender){c, i};
        th[i] = spawn(contend, &who[i]);
    }
    for (int i = 0; i < CONTENDED_THREADS; i++)
        join(th[i]);
    check_counter(c, c->per_thread * CONTENDED_THREADS);
    double span = bench_span_ns(c->start_ns, c->end_ns, CONTENDED_THREADS);
    return span * (double)iters / (double)c->value;
}

/* ------------------------------------------------------ preempt overhead */

static void set_quantum(int ticking, void *ctx)
{
    (void)ctx;
    die_on(weft_set_quantum(ticking ? PREEMPT_QUANTUM_NS : 0), "weft_set_quantum");
}

typedef struct preempt_job {
    const threads_params *p;
    bench_table *t;
} preempt_job;

/* In a ULT alone on the worker, which sets its own quantum. */
static void *measure_in_ult(void *arg)
{
    const preempt_job *job = arg;
    const threads_tick tick = {.set = set_quantum, .ticking = "quantum_1ms",
                               .quiet = "no_preempt", .what = "preempt_overhead"};
    threads_measure_tick(job->p, &tick, job->t);
    return NULL;
}

static void measure_preempt_overhead(const threads_params *p, bench_table *t)
{
    preempt_job job = {p, t};
    int64_t saved_quantum = weft_get_quantum();
    join(spawn(measure_in_ult, &job));
    die_on(weft_set_quantum(saved_quantum), "weft_set_quantum");
}

/* ------------------------------------------------------------ the groups */

static void start_weft(bench_table *t, const char *what)
{
    die_on(weft_init(), "weft_init");
    bench_table_note(t, "%s: weft on %d worker(s), default quantum %.1f ms",
                     what, weft_num_workers(), (double)weft_get_quantum() / 1e6);
}

int threads_weft_one_worker_cases(const threads_params *p, bench_table *t)
{
    yield_pair yp = {0};
    shared_counter c = {.lock = WEFT_MUTEX_INITIALIZER};
    start_weft(t, "yield_rt, create_join, mutex_uncontended, preempt_overhead");
    bench_table_add(t, "yield_rt", "weft", "time",
                    bench_ns_per_op(run_weft_yield, &yp, p->repeats,
                                    p->target_ns), "ns");
    bench_table_add(t, "create_join", "weft", "time",
                    bench_ns_per_op(run_weft_create_join, NULL, p->repeats,
                                    p->target_ns), "ns");
    bench_table_add(t, "mutex_uncontended", "weft", "time",
                    bench_ns_per_op(run_weft_mutex_alone, &c, p->repeats,
                                    p->target_ns), "ns");
    measure_preempt_overhead(p, t);
    die_on(weft_fini(), "weft_fini");
    return 0;
}

int threads_weft_all_workers_cases(const threads_params *p, bench_table *t)
{
    shared_counter c = {.lock = WEFT_MUTEX_INITIALIZER};
    start_weft(t, "mutex_contended");
    die_on(weft_barrier_init(&c.start, CONTENDED_THREADS), "weft_barrier_init");
    bench_table_add(t, "mutex_contended", "weft", "time",
                    bench_ns_per_op(run_weft_mutex_contended, &c, p->repeats,
                                    p->target_ns), "ns");
    die_on(weft_fini(), "weft_fini");
    return 0;
}
