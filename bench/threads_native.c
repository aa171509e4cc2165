/* bench/threads, native variants: the pthread and ucontext baselines that
 * the Weft figures are compared with (see threads.c for the whole plan).
 *
 * yield_rt   pthread: two threads pass a turn back and forth under one
 *            mutex + condition variable; one round trip = each thread waits
 *            for its turn once. Pinned to one CPU (`pthread`, the goal's
 *            reference) and to two different CPUs (`pthread_xcpu`, shown for
 *            information; n/a with a single allowed CPU). Timed by the
 *            pinger after WARMUP_ROUNDS untimed round trips.
 *            ucontext: swapcontext to a peer context that swaps straight
 *            back; one round trip = two swapcontext calls.
 * create_join pthread_create + pthread_join of an empty function;
 *            ucontext: getcontext + makecontext on a preallocated stack, then
 *            swapcontext into it; the function returns through uc_link.
 * mutex_*    pthread_mutex lock + unlock: alone, then CONTENDED_THREADS
 *            unpinned threads incrementing one counter (checked exactly),
 *            timed from a start barrier to the last thread's end.
 * preempt_overhead  the floor under Weft's figure: the compute loop of
 *            threads_compute.c under a plain POSIX timer that sends this
 *            thread SIGURG every 1 ms (`bare_signal_1ms`, an empty handler,
 *            SA_RESTART) and with the timer disarmed (`no_signal`).
 * Each time is bench_ns_per_op(): calibrated runs of target_ns, median
 * over the repeats.
 */
#include "threads.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define UC_STACK_SIZE (64 * 1024)
#define BARE_TICK_NS  1000000 /* the bare_signal_1ms variant */

static void die_on(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "threads: %s: %s\n", what, strerror(rc));
        exit(1);
    }
}

/* ------------------------------------------------------ pinned ping-pong */

typedef struct pingpong {
    pthread_mutex_t lock;
    pthread_cond_t turn_changed;
    int turn;           /* 0: the pinger may go, 1: the ponger may go */
    uint64_t rounds;    /* timed round trips */
    int cpu[2];         /* CPU of the pinger and the ponger; -1: unpinned */
    double elapsed_ns;  /* measured by the pinger */
} pingpong;

static void take_turn(pingpong *pp, int me)
{
    pthread_mutex_lock(&pp->lock);
    while (pp->turn != me)
        pthread_cond_wait(&pp->turn_changed, &pp->lock);
    pp->turn = !me;
    pthread_cond_signal(&pp->turn_changed);
    pthread_mutex_unlock(&pp->lock);
}

static void *pinger(void *arg)
{
    pingpong *pp = arg;
    for (int i = 0; i < WARMUP_ROUNDS; i++)
        take_turn(pp, 0);
    int64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < pp->rounds; i++)
        take_turn(pp, 0);
    pp->elapsed_ns = (double)(bench_now_ns() - t0);
    return NULL;
}

static void *ponger(void *arg)
{
    pingpong *pp = arg;
    for (uint64_t i = 0; i < pp->rounds + WARMUP_ROUNDS; i++)
        take_turn(pp, 1);
    return NULL;
}

static pthread_t spawn_on_cpu(void *(*fn)(void *), void *arg, int cpu)
{
    pthread_attr_t attr;
    pthread_t th;
    die_on(pthread_attr_init(&attr), "pthread_attr_init");
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        die_on(pthread_attr_setaffinity_np(&attr, sizeof set, &set),
               "pthread_attr_setaffinity_np");
    }
    die_on(pthread_create(&th, &attr, fn, arg), "pthread_create");
    pthread_attr_destroy(&attr);
    return th;
}

static double run_pthread_pingpong(void *ctx, uint64_t iters)
{
    pingpong *pp = ctx;
    pp->rounds = iters;
    pp->turn = 0;
    pthread_t pong = spawn_on_cpu(ponger, pp, pp->cpu[1]);
    pthread_t ping = spawn_on_cpu(pinger, pp, pp->cpu[0]);
    die_on(pthread_join(ping, NULL), "pthread_join");
    die_on(pthread_join(pong, NULL), "pthread_join");
    return pp->elapsed_ns;
}

/* The first two CPUs this process may run on (second: -1 if none). */
static void first_two_cpus(int cpus[2])
{
    cpu_set_t set;
    cpus[0] = 0;
    cpus[1] = -1;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    int found = 0;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &set))
            cpus[found++] = c;
}

static void measure_pthread_yield(const threads_params *p, bench_table *t)
{
    int cpus[2];
    first_two_cpus(cpus);
    pingpong pp = {.lock = PTHREAD_MUTEX_INITIALIZER,
                   .turn_changed = PTHREAD_COND_INITIALIZER,
                   .cpu = {cpus[0], cpus[0]}};
    bench_table_add(t, "yield_rt", "pthread", "time",
                    bench_ns_per_op(run_pthread_pingpong, &pp, p->repeats,
                                    p->target_ns), "ns");
    if (cpus[1] < 0) {
        bench_table_add_na(t, "yield_rt", "pthread_xcpu", "time", "ns");
        return;
    }
    pp.cpu[1] = cpus[1];
    bench_table_add(t, "yield_rt", "pthread_xcpu", "time",
                    bench_ns_per_op(run_pthread_pingpong, &pp, p->repeats,
                                    p->target_ns), "ns");
    bench_table_note(t, "yield_rt pthread: both threads on CPU %d; "
                     "pthread_xcpu: on CPUs %d and %d", cpus[0], cpus[0],
                     cpus[1]);
}

/* ------------------------------------------------------------- ucontext */

typedef struct uc_pair {
    ucontext_t main_ctx;
    ucontext_t peer_ctx;
    char *stack;
} uc_pair;

static uc_pair *current_uc_pair; /* makecontext passes no pointer portably */

static void uc_peer_bounce(void)
{
    for (;;)
        swapcontext(&current_uc_pair->peer_ctx, &current_uc_pair->main_ctx);
}

static void uc_empty(void)
{
}

static void prepare_uc_peer(uc_pair *up, void (*fn)(void), ucontext_t *link)
{
    if (getcontext(&up->peer_ctx) != 0) {
        perror("threads: getcontext");
        exit(1);
    }
    up->peer_ctx.uc_stack.ss_sp = up->stack;
    up->peer_ctx.uc_stack.ss_size = UC_STACK_SIZE;
    up->peer_ctx.uc_link = link;
    makecontext(&up->peer_ctx, fn, 0);
}

static double run_uc_pingpong(void *ctx, uint64_t iters)
{
    uc_pair *up = ctx;
    prepare_uc_peer(up, uc_peer_bounce, NULL);
    int64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        swapcontext(&up->main_ctx, &up->peer_ctx);
    return (double)(bench_now_ns() - t0);
}

static double run_uc_create_join(void *ctx, uint64_t iters)
{
    uc_pair *up = ctx;
    int64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        prepare_uc_peer(up, uc_empty, &up->main_ctx);
        swapcontext(&up->main_ctx, &up->peer_ctx);
    }
    return (double)(bench_now_ns() - t0);
}

static void measure_ucontext(const threads_params *p, bench_table *t)
{
    uc_pair up;
    up.stack = malloc(UC_STACK_SIZE);
    if (!up.stack) {
        fprintf(stderr, "threads: out of memory\n");
        exit(1);
    }
    current_uc_pair = &up;
    bench_table_add(t, "yield_rt", "ucontext", "time",
                    bench_ns_per_op(run_uc_pingpong, &up, p->repeats,
                                    p->target_ns), "ns");
    bench_table_add(t, "create_join", "ucontext", "time",
                    bench_ns_per_op(run_uc_create_join, &up, p->repeats,
                                    p->target_ns), "ns");
    current_uc_pair = NULL;
    free(up.stack);
}

/* -------------------------------------------------- create_join, mutexes */

static void *empty_thread(void *arg)
{
    return arg;
}

static double run_pthread_create_join(void *ctx, uint64_t iters)
{
    (void)ctx;
    int64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        pthread_t th;
        die_on(pthread_create(&th, NULL, empty_thread, NULL), "pthread_create");
        die_on(pthread_join(th, NULL), "pthread_join");
    }
    return (double)(bench_now_ns() - t0);
}

typedef struct shared_counter {
    pthread_mutex_t lock;
    pthread_barrier_t start;   /* lines the contenders up */
    uint64_t value;
    uint64_t per_thread;       /* increments per thread */
    int64_t start_ns[CONTENDED_THREADS];
    int64_t end_ns[CONTENDED_THREADS];
} shared_counter;

typedef struct contender {
    shared_counter *counter;
    int index;
} contender;

static void increment_under_lock(shared_counter *c)
{
    for (uint64_t i = 0; i < c->per_thread; i++) {
        pthread_mutex_lock(&c->lock);
        c->value++;
        pthread_mutex_unlock(&c->lock);
    }
}

/* Each contender times itself from the start barrier, so that thread
 * creation and join stay out of the figure. */
static void *contend(void *arg)
{
    contender *me = arg;
    shared_counter *c = me->counter;
    pthread_barrier_wait(&c->start);
    c->start_ns[me->index] = bench_now_ns();
    increment_under_lock(c);
    c->end_ns[me->index] = bench_now_ns();
    return NULL;
}

static double run_pthread_mutex_alone(void *ctx, uint64_t iters)
{
    shared_counter *c = ctx;
    c->value = 0;
    c->per_thread = iters;
    int64_t t0 = bench_now_ns();
    increment_under_lock(c);
    return (double)(bench_now_ns() - t0);
}

static void check_counter(const shared_counter *c)
{
    uint64_t expected = c->per_thread * CONTENDED_THREADS;
    if (c->value != expected) {
        fprintf(stderr, "threads: pthread counter is %llu, expected %llu\n",
                (unsigned long long)c->value, (unsigned long long)expected);
        exit(1);
    }
}

static double run_pthread_mutex_contended(void *ctx, uint64_t iters)
{
    shared_counter *c = ctx;
    pthread_t th[CONTENDED_THREADS];
    contender who[CONTENDED_THREADS];
    c->value = 0;
    c->per_thread = iters / CONTENDED_THREADS + 1;
    for (int i = 0; i < CONTENDED_THREADS; i++) {
        who[i] = (contender){c, i};
        th[i] = spawn_on_cpu(contend, &who[i], -1);
    }
    for (int i = 0; i < CONTENDED_THREADS; i++)
        die_on(pthread_join(th[i], NULL), "pthread_join");
    check_counter(c);
    double span = bench_span_ns(c->start_ns, c->end_ns, CONTENDED_THREADS);
    return span * (double)iters / (double)c->value;
}

static void measure_pthread_others(const threads_params *p, bench_table *t)
{
    shared_counter c = {.lock = PTHREAD_MUTEX_INITIALIZER};
    die_on(pthread_barrier_init(&c.start, NULL, CONTENDED_THREADS),
           "pthread_barrier_init");
    bench_table_add(t, "create_join", "pthread", "time",
                    bench_ns_per_op(run_pthread_create_join, NULL,
                                    p->repeats, p->target_ns), "ns");
    bench_table_add(t, "mutex_uncontended", "pthread", "time",
                    bench_ns_per_op(run_pthread_mutex_alone, &c, p->repeats,
                                    p->target_ns), "ns");
    bench_table_add(t, "mutex_contended", "pthread", "time",
                    bench_ns_per_op(run_pthread_mutex_contended, &c,
                                    p->repeats, p->target_ns), "ns");
    pthread_barrier_destroy(&c.start);
}

/* ------------------------------------------------ the bare-signal floor */

static void empty_handler(int sig)
{
    (void)sig;
}

static void arm_bare_tick(int ticking, void *ctx)
{
    long ns = ticking ? BARE_TICK_NS : 0;
    struct itimerspec its = {{0, ns}, {0, ns}};
    if (timer_settime(*(timer_t *)ctx, 0, &its, NULL) != 0) {
        perror("threads: timer_settime");
        exit(1);
    }
}

/* A timer that signals the calling thread (as Weft's per-worker tick). */
static timer_t thread_timer(void)
{
    struct sigaction sa = {.sa_handler = empty_handler, .sa_flags = SA_RESTART};
    struct sigevent ev = {.sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGURG};
    timer_t tm;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    if (sigaction(SIGURG, &sa, NULL) != 0 || timer_create(CLOCK_MONOTONIC, &ev, &tm) != 0) {
        perror("threads: bare signal timer");
        exit(1);
    }
    return tm;
}

static void measure_bare_signal(const threads_params *p, bench_table *t)
{
    timer_t tm = thread_timer();
    const threads_tick tick = {.set = arm_bare_tick, .ctx = &tm, .ticking = "bare_signal_1ms",
                               .quiet = "no_signal", .what = "preempt_overhead floor"};
    threads_measure_tick(p, &tick, t);
    timer_delete(tm);
}

int threads_native_cases(const threads_params *p, bench_table *t)
{
    measure_pthread_yield(p, t);
    measure_ucontext(p, t);
    measure_pthread_others(p, t);
    measure_bare_signal(p, t);
    bench_table_add_na(t, "mutex_uncontended", "ucontext", "time", "ns");
    bench_table_add_na(t, "mutex_contended", "ucontext", "time", "ns");
    return 0;
}
