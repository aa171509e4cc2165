/* bench/continuations: a contended buffer pool, buffers given back by
 * blocking on the pool lock vs by continuation (weft_mutex_lock_or_post),
 * the paper's first continuation example measured.
 *
 * The pool: NBUFS buffers on a free list under one Weft mutex. A driver
 * ULT (high priority, like a network driver) hands buffers out: every
 * PERIOD_US it locks the pool and tops each thread's inbox up to
 * INBOX_TARGET buffers. NTHREADS ULTs loop: take the next buffer from the
 * inbox (no lock; wait on a semaphore if it is empty), work on it
 * (WORK_BYTES written), give it back to the pool on its own. The two
 * variants differ only in that give-back:
 *   blocking      weft_mutex_lock, push, weft_mutex_unlock;
 *   continuation  weft_mutex_lock_or_post(push): if the pool is locked the
 *                 push runs later, in the holder, at its unlock, and the
 *                 thread goes on with its next buffer.
 * Cases:
 *   uncontended   the driver holds the lock only to move buffers (a few
 *                 microseconds per period);
 *   contended     the driver keeps the pool locked while it sleeps HOLD_US
 *                 of every PERIOD_US (waiting for its device: the paper's
 *                 "locked by a thread that is currently suspended").
 *                 Asleep, it imposes the same lock duty on both variants
 *                 whatever the ULTs do (lock_held_pct shows it).
 * Why blocking loses: while the driver sleeps holding the lock, each
 * thread blocks at its next give-back and, once all have, the worker idles
 * until the driver wakes up, and then the give-backs convoy through the
 * lock one wake-up at a time; with continuations the threads keep working
 * on the buffers they have and the driver pushes their buffers at unlock.
 * One worker (WEFT_WORKERS=1 unless set otherwise): every thread shares
 * one kernel thread, so the variants differ only in how the ULTs are
 * scheduled, and a loaded machine slows both alike.
 * Figures per case and variant (median, min, max over the repeats; each
 * repeat runs both variants, alternately, for RUN_MS):
 *   throughput      buffers used and given back per second;
 *   switches_per_op context switches (weft_sched_get_stats) per buffer;
 *   posted_pct      (continuation) share of give-backs run by a holder;
 *   lock_held_pct   share of the run the driver held the lock (contended).
 * Goal: under contention, continuations give at least twice the
 * throughput of blocking: blocking/continuation <= 1/2 (PASS/MISS line).
 *
 * Output: a table, the goal line, `result:` lines, a CSV
 * (bench-out/continuations.csv) and, with gnuplot, a chart drawn by
 * plot_continuations.gp (bench-out/continuations.png). Default run about
 * 4.5 s (7 repeats), --quick about 1 s (3 repeats). The exit status reports
 * errors, never a missed goal.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#include "bench_util.h"

#define BENCH "continuations"

#define NTHREADS     8
#define INBOX_TARGET 128 /* buffers a thread may have (inbox + in use) */
/* Slack: give-backs posted while the driver holds the lock reach the free
 * list only at its unlock, after it has topped the inboxes up. */
#define NBUFS        (NTHREADS * INBOX_TARGET * 4)
#define BUF_BYTES    512
#define WORK_BYTES   512 /* per use: about a microsecond */
#define PERIOD_US    500
#define HOLD_US      300 /* contended: the driver sleeps this long, locked */
#define RUN_MS       150 /* per variant and repeat (--quick: 60) */

/* ------------------------------------------------------------ the pool */

typedef struct buffer {
    struct buffer *next;
    unsigned char data[BUF_BYTES];
} buffer;

typedef struct pool {
    weft_mutex_t lock;
    buffer *free_list; /* guarded by lock */
    int nfree;
    int64_t held_ns;   /* the driver's sleeps with the lock held */
} pool;

/* A thread's inbox: the driver pushes chains, the owner takes them all. */
typedef struct inbox {
    _Atomic(buffer *) head;
    atomic_int have;   /* buffers in the inbox or in use by the owner */
    weft_sem_t ready;  /* posted after each delivery */
    uint64_t ops, posted;
} __attribute__((aligned(64))) inbox;

static pool the_pool;
static buffer *bufs;
static inbox inboxes[NTHREADS];
static atomic_int stop;
static int variant, contended;

enum { V_BLOCKING, V_CONTINUATION, NVARIANTS };
static const char *const variant_names[NVARIANTS] = {"blocking", "continuation"};

static void pool_reset(void)
{
    weft_mutex_init(&the_pool.lock);
    the_pool.free_list = NULL;
    the_pool.nfree = 0;
    the_pool.held_ns = 0;
    for (int i = 0; i < NBUFS; i++) {
        bufs[i].next = the_pool.free_list;
        the_pool.free_list = &bufs[i];
        the_pool.nfree++;
    }
    for (int i = 0; i < NTHREADS; i++) {
        atomic_store(&inboxes[i].head, NULL);
        atomic_store(&inboxes[i].have, 0);
        weft_sem_init(&inboxes[i].ready, 0);
        inboxes[i].ops = inboxes[i].posted = 0;
    }
}

/* Pool lock held: the give-back itself. */
static void push_locked(void *arg)
{
    buffer *b = arg;
    b->next = the_pool.free_list;
    the_pool.free_list = b;
    the_pool.nfree++;
}

/* ------------------------------------------------------------ the driver */

/* Pool lock held: move up to `want` buffers into `in`. */
static void top_up(inbox *in, int want)
{
    buffer *chain = NULL, *last = NULL;
    int k = 0;
    while (k < want && the_pool.free_list) {
        buffer *b = the_pool.free_list;
        the_pool.free_list = b->next;
        b->next = chain;
        chain = b;
        if (!last)
            last = b;
        k++;
    }
    if (!k)
        return;
    the_pool.nfree -= k;
    atomic_fetch_add(&in->have, k);
    last->next = atomic_load(&in->head);
    while (!atomic_compare_exchange_weak(&in->head, &last->next, chain))
        ;
    weft_sem_post(&in->ready);
}

/* Periods on a fixed grid (absolute deadlines), so that late wake-ups or
 * a long unlock do not stretch the cycle and the duty stays HOLD/PERIOD
 * in both variants. held_ns counts from lock to the end of the unlock
 * (which runs the posted give-backs). */
static void *driver(void *arg)
{
    (void)arg;
    int64_t cycle = weft_now();
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        weft_mutex_lock(&the_pool.lock);
        int64_t t0 = weft_now();
        if (contended) /* waits for its device, holding the pool */
            weft_sleep_until(cycle + (int64_t)HOLD_US * 1000);
        for (int i = 0; i < NTHREADS; i++)
            top_up(&inboxes[i], INBOX_TARGET - atomic_load(&inboxes[i].have));
        weft_mutex_unlock(&the_pool.lock);
        if (contended)
            the_pool.held_ns += weft_now() - t0;
        cycle += (int64_t)PERIOD_US * 1000;
        weft_sleep_until(cycle);
    }
    return NULL;
}

/* ------------------------------------------------------------ the users */

static uint64_t use_buffer(buffer *b, uint64_t seed)
{
    for (int i = 0; i < WORK_BYTES; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        b->data[i] = (unsigned char)(seed >> 56);
    }
    return seed;
}

static void give_back(inbox *in, buffer *b)
{
    atomic_fetch_sub(&in->have, 1);
    if (variant == V_BLOCKING) {
        weft_mutex_lock(&the_pool.lock);
        push_locked(b);
        weft_mutex_unlock(&the_pool.lock);
    } else if (weft_mutex_lock_or_post(&the_pool.lock, push_locked, b) == 0) {
        in->posted++;
    }
}

static void *user(void *arg)
{
    inbox *in = arg;
    uint64_t seed = (uint64_t)(uintptr_t)arg;
    buffer *mine = NULL;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (!mine && !(mine = atomic_exchange(&in->head, NULL))) {
            weft_sem_wait(&in->ready);
            continue;
        }
        buffer *b = mine;
        mine = b->next;
        seed = use_buffer(b, seed);
        give_back(in, b);
        in->ops++;
    }
    while (mine) { /* unused ones go back too */
        buffer *b = mine;
        mine = b->next;
        give_back(in, b);
    }
    bench_consume(seed);
    return NULL;
}

typedef struct run_result {
    double throughput, switches_per_op, posted_pct, held_pct;
} run_result;

/* After a run: buffers still in inboxes go back to the pool. */
static void drain_inboxes(void)
{
    for (int i = 0; i < NTHREADS; i++) {
        buffer *b = atomic_exchange(&inboxes[i].head, NULL);
        while (b) {
            buffer *next = b->next;
            push_locked(b);
            b = next;
        }
        weft_sem_destroy(&inboxes[i].ready);
    }
}

static void stop_threads(weft_thread_t *t, weft_thread_t d)
{
    atomic_store(&stop, 1);
    weft_thread_join(d, NULL);
    for (int i = 0; i < NTHREADS; i++)
        weft_sem_post(&inboxes[i].ready); /* wake those waiting for buffers */
    for (int i = 0; i < NTHREADS; i++)
        weft_thread_join(t[i], NULL);
}

static int run_once(int v, int with_hold, int64_t run_ns, run_result *r)
{
    weft_thread_t t[NTHREADS], d;
    weft_thread_attr high;
    weft_sched_stats s0, s1;
    weft_thread_attr_init(&high);
    high.priority = WEFT_PRIO_HIGH;
    variant = v;
    contended = with_hold;
    pool_reset();
    atomic_store(&stop, 0);
    weft_sched_get_stats(&s0);
    int64_t t0 = bench_now_ns();
    if (weft_thread_create(&d, &high, driver, NULL) != 0)
        return -1;
    for (int i = 0; i < NTHREADS; i++)
        if (weft_thread_create(&t[i], NULL, user, &inboxes[i]) != 0)
            return -1;
    weft_sleep(run_ns);
    int64_t t1 = bench_now_ns();
    weft_sched_get_stats(&s1);
    stop_threads(t, d);
    drain_inboxes();
    uint64_t ops = 0, posted = 0;
    for (int i = 0; i < NTHREADS; i++) {
        ops += inboxes[i].ops;
        posted += inboxes[i].posted;
    }
    if (the_pool.nfree != NBUFS) {
        fprintf(stderr, "continuations: %d buffers lost\n", NBUFS - the_pool.nfree);
        return -1;
    }
    r->throughput = (double)ops * 1e9 / (double)(t1 - t0);
    r->switches_per_op = ops ? (double)(s1.switches - s0.switches) / (double)ops : 0;
    r->posted_pct = ops ? 100.0 * (double)posted / (double)ops : 0;
    r->held_pct = 100.0 * (double)the_pool.held_ns / (double)(t1 - t0);
    return 0;
}

/* ------------------------------------------------------------ figures */

typedef struct samples {
    double tp[BENCH_REPEATS_MAX], sw[BENCH_REPEATS_MAX], po[BENCH_REPEATS_MAX];
    double held[BENCH_REPEATS_MAX];
} samples;

static void add_rows(bench_table *t, const char *c, int v, samples *s, int n)
{
    bench_table_add(t, c, variant_names[v], "throughput",
                    bench_stats_of(s->tp, n), "ops/s");
    bench_table_add(t, c, variant_names[v], "switches_per_op",
                    bench_stats_of(s->sw, n), "switches/op");
    if (v == V_CONTINUATION)
        bench_table_add(t, c, variant_names[v], "posted_pct",
                        bench_stats_of(s->po, n), "%posted");
    bench_table_add(t, c, variant_names[v], "lock_held_pct",
                    bench_stats_of(s->held, n), "%held");
}

/* Both variants, alternately, `repeats` times each. */
static int run_case(bench_table *t, const char *name, int contended,
                    const bench_opts *o)
{
    static samples s[NVARIANTS];
    int64_t run_ns = (o->quick ? 60 : RUN_MS) * 1000000LL;
    for (int i = 0; i < o->repeats; i++) {
        for (int k = 0; k < NVARIANTS; k++) {
            int v = (i + k) % NVARIANTS; /* alternate who goes first */
            run_result r;
            if (run_once(v, contended, run_ns, &r) != 0)
                return -1;
            s[v].tp[i] = r.throughput;
            s[v].sw[i] = r.switches_per_op;
            s[v].po[i] = r.posted_pct;
            s[v].held[i] = r.held_pct;
        }
    }
    for (int v = 0; v < NVARIANTS; v++)
        add_rows(t, name, v, &s[v], o->repeats);
    return 0;
}

static const bench_row *find(const bench_table *t, const char *c, const char *v,
                             const char *metric)
{
    for (int i = 0; i < t->nrows; i++) {
        const bench_row *r = &t->rows[i];
        if (!strcmp(r->case_name, c) && !strcmp(r->variant, v) &&
            !strcmp(r->metric, metric) && !r->na)
            return r;
    }
    return NULL;
}

static void goal_line(const bench_table *t, bench_table *derived)
{
    const bench_row *b = find(t, "contended", "blocking", "throughput");
    const bench_row *c = find(t, "contended", "continuation", "throughput");
    const char *label = "contended blocking/continuation";
    if (!b || !c || c->st.median <= 0) {
        printf("%-34s n/a (figure missing)\n", label);
        return;
    }
    double ratio = b->st.median / c->st.median;
    printf("\ngoal (throughput, ratio of medians, same run):\n");
    bench_print_ratio_goal(stdout, label, ratio, 1.0 / 2);
    bench_stats st = {c->st.median / b->st.median, 0, 0};
    st.min = st.max = st.median;
    bench_table_add(derived, "contended", "continuation_vs_blocking",
                    "throughput_ratio", st, "ratio");
}

static int run_all(const bench_opts *o)
{
    static bench_table t, derived;
    printf("bench=continuations: buffer pool, give-back by blocking vs by "
           "continuation; %d ULTs on %d workers; median, min, max over %d "
           "repeats%s\n", NTHREADS, weft_num_workers(), o->repeats,
           o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    if (run_case(&t, "uncontended", 0, o) != 0 || run_case(&t, "contended", 1, o) != 0)
        return 1;
    bench_table_note(&t, "contended: the driver sleeps %d us of every %d us "
                     "holding the pool lock", HOLD_US, PERIOD_US);
    printf("\n");
    bench_table_print(&t, stdout);
    bench_table_print_notes(&t, stdout);
    goal_line(&t, &derived);
    printf("\n");
    bench_table_print_results(&t, BENCH, stdout);
    bench_table_print_results(&derived, BENCH, stdout);
    if (bench_table_write_csv(&t, BENCH, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    return bench_plot("plot_continuations.gp", o->csv_path, o->png_path) != 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    setenv("WEFT_WORKERS", "1", 0); /* see the head comment */
    if (weft_init() != 0)
        return 1;
    bufs = calloc(NBUFS, sizeof *bufs);
    if (!bufs)
        return 1;
    rc = run_all(&o);
    free(bufs);
    weft_fini();
    return rc;
}
