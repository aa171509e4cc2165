/* Preemption: compute loops that never yield do not starve each other.
 *
 * 4 x workers busy threads increment their own progress counter and never
 * yield; a recorder thread (same priority, created first) repeatedly waits
 * until every counter has moved since its last snapshot and counts such
 * "rounds". With a 1 ms quantum every busy thread must keep advancing: the
 * recorder must complete MIN_ROUNDS rounds spread over at least MIN_SPAN of
 * wall time. Only starvation can fail this; slowness cannot: the recorder
 * waits up to GIVE_UP for each round. A watchdog kernel thread stops the
 * busy loops if the whole test exceeds WATCHDOG (preemption broken), so the
 * test fails with a message instead of hanging. The scheduler statistics
 * must count preemptions.
 *
 * Second case: the main thread, bound to worker 0, joins a short thread
 * while 8 x workers busy threads run. Once the joined thread has finished,
 * main must get worker 0 back within a bounded number of dispatches there
 * (WAKE_BOUND per busy thread; FIFO run queues need at most about two per
 * busy thread), in each of WAKE_ROUNDS tries. Dispatches are counted by
 * pre-hooks on the busy threads, not by time, so a slow or loaded machine
 * cannot fail it: a woken thread must not starve behind compute loops.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <weft.h>

#define MAX_BUSY   128
#define MIN_ROUNDS 20
#define MIN_SPAN   200000000LL   /* 200 ms of observation */
#define GIVE_UP    10000000000LL /* per round: only a starving thread hits it */
#define WATCHDOG   15            /* seconds for each case */
#define WAKE_BOUND 4             /* worker-0 dispatches per busy thread */
#define WAKE_ROUNDS 5

static atomic_uint_fast64_t progress[MAX_BUSY];
static int nbusy;
static atomic_int stop;
static atomic_int watchdog_fired;
static atomic_int test_done;

struct record_result {
    int rounds;
    int starved;       /* index of a thread that did not move, or -1 */
    int64_t worst_ns;  /* longest round, for the log only */
    int64_t span_ns;   /* whole observation, for the log only */
};

static void *busy(void *arg)
{
    atomic_uint_fast64_t *p = &progress[(intptr_t)arg];
    uint_fast64_t n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        atomic_store_explicit(p, ++n, memory_order_relaxed);
    return NULL;
}

/* Wait (yielding) until every counter differs from snap[]; -1 or the index
 * of a thread that did not move before the deadline. */
static int wait_round(uint_fast64_t *snap, int64_t deadline)
{
    for (int i = 0; i < nbusy; i++) {
        while (atomic_load_explicit(&progress[i], memory_order_relaxed) ==
               snap[i]) {
            if (wt_now_ns() > deadline || atomic_load(&stop))
                return i;
            weft_thread_yield();
        }
    }
    for (int i = 0; i < nbusy; i++)
        snap[i] = atomic_load_explicit(&progress[i], memory_order_relaxed);
    return -1;
}

static void *recorder(void *arg)
{
    struct record_result *r = arg;
    uint_fast64_t snap[MAX_BUSY] = {0};
    int64_t start = wt_now_ns(), t0 = start;

    r->starved = -1;
    while (r->rounds < MIN_ROUNDS || wt_now_ns() - start < MIN_SPAN) {
        r->starved = wait_round(snap, t0 + GIVE_UP);
        if (r->starved >= 0)
            break;
        int64_t t1 = wt_now_ns();
        if (t1 - t0 > r->worst_ns)
            r->worst_ns = t1 - t0;
        t0 = t1;
        r->rounds++;
    }
    r->span_ns = wt_now_ns() - start;
    atomic_store(&stop, 1);
    return NULL;
}

static void *watchdog(void *arg)
{
    (void)arg;
    for (int i = 0; i < WATCHDOG * 100 && !atomic_load(&test_done); i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    if (!atomic_load(&test_done)) {
        atomic_store(&watchdog_fired, 1);
        atomic_store(&stop, 1);
    }
    return NULL;
}

static pthread_t watchdog_start(void)
{
    pthread_t wd;
    atomic_store(&stop, 0);
    atomic_store(&test_done, 0);
    atomic_store(&watchdog_fired, 0);
    assert_int_equal(pthread_create(&wd, NULL, watchdog, NULL), 0);
    return wd;
}

/* Stop the watchdog; fails with `why` if it had to stop the busy loops. */
static void watchdog_stop(pthread_t wd, const char *why)
{
    atomic_store(&test_done, 1);
    assert_int_equal(pthread_join(wd, NULL), 0);
    if (atomic_load(&watchdog_fired))
        fail_msg("watchdog fired after %d s: %s", WATCHDOG, why);
}

static int busy_count(int per_worker)
{
    int n = per_worker * weft_num_workers();
    return n > MAX_BUSY ? MAX_BUSY : n;
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(1000000);
}

static void test_busy_threads_all_progress(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_thread_t rec, ts[MAX_BUSY];
    struct record_result res = {0, -1, 0, 0};
    weft_sched_stats st;

    assert_int_equal(weft_get_quantum(), 1000000);
    nbusy = busy_count(4);
    pthread_t wd = watchdog_start();
    assert_int_equal(weft_thread_create(&rec, NULL, recorder, &res), 0);
    for (intptr_t i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_create(&ts[i], NULL, busy, (void *)i), 0);

    assert_int_equal(weft_thread_join(rec, NULL), 0);
    for (int i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);
    print_message("%d busy threads, %d rounds in %.1f ms, worst round %.2f ms\n",
                  nbusy, res.rounds, (double)res.span_ns / 1e6,
                  (double)res.worst_ns / 1e6);
    watchdog_stop(wd, "the busy threads were never preempted");
    if (res.starved >= 0)
        fail_msg("busy thread %d made no progress for %lld s", res.starved,
                 (long long)(GIVE_UP / 1000000000));
    assert_true(res.rounds >= MIN_ROUNDS);
    assert_int_equal(weft_sched_get_stats(NULL), WEFT_EINVAL);
    assert_int_equal(weft_sched_get_stats(&st), 0);
    print_message("switches %llu preemptions %llu deferred %llu\n",
                  (unsigned long long)st.switches,
                  (unsigned long long)st.preemptions,
                  (unsigned long long)st.deferred);
    assert_true(st.preemptions > 0);
}

/* ------------------------------------------------- a woken main thread */

static atomic_uint_fast64_t w0_dispatches;

static void count_w0_dispatch(weft_thread_t t, void *arg)
{
    (void)t;
    (void)arg;
    if (weft_worker_id() == 0)
        atomic_fetch_add_explicit(&w0_dispatches, 1, memory_order_relaxed);
}

static uint64_t preemptions_now(void)
{
    weft_sched_stats st;
    return weft_sched_get_stats(&st) == 0 ? st.preemptions : 0;
}

struct wake_probe {
    uint64_t w0_at_finish; /* worker-0 dispatches when the task ended */
    int64_t t_finish;
};

/* Computes until the busy threads are in rotation (nbusy preemptions since
 * it started), then notes the dispatch count and finishes: that wakes main.
 */
static void *short_task(void *arg)
{
    struct wake_probe *p = arg;
    uint64_t start = preemptions_now();
    int64_t end = wt_now_ns() + GIVE_UP;

    while (preemptions_now() - start < (uint64_t)nbusy &&
           wt_now_ns() < end && !atomic_load(&stop))
        ;
    p->t_finish = wt_now_ns();
    p->w0_at_finish = atomic_load(&w0_dispatches);
    return NULL;
}

static void create_counted_busy(weft_thread_t *ts)
{
    for (intptr_t i = 0; i < nbusy; i++) {
        assert_int_equal(weft_thread_create(&ts[i], NULL, busy, (void *)i), 0);
        assert_int_equal(weft_thread_set_pre_hook(ts[i], count_w0_dispatch,
                                                  NULL), 0);
    }
}

/* One round: returns the worker-0 dispatches main waited after its wake. */
static uint64_t woken_main_round(void)
{
    weft_thread_t t, ts[MAX_BUSY];
    struct wake_probe p = {0, 0};

    pthread_t wd = watchdog_start();
    create_counted_busy(ts);
    assert_int_equal(weft_thread_create(&t, NULL, short_task, &p), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    uint64_t waited = atomic_load(&w0_dispatches) - p.w0_at_finish;
    int64_t late_ns = wt_now_ns() - p.t_finish;
    atomic_store(&stop, 1);
    for (int i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);

    print_message("main resumed %.1f ms and %llu worker-0 dispatches after "
                  "its join target finished (%d busy threads)\n",
                  (double)late_ns / 1e6, (unsigned long long)waited, nbusy);
    watchdog_stop(wd, "main never ran again after its join target finished");
    return waited;
}

static void test_woken_main_not_starved(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    const uint64_t bound = (uint64_t)WAKE_BOUND * (uint64_t)busy_count(8);

    nbusy = busy_count(8);
    for (int r = 0; r < WAKE_ROUNDS; r++) {
        atomic_store(&w0_dispatches, 0);
        uint64_t waited = woken_main_round();
        if (waited > bound)
            fail_msg("main starved: worker 0 ran busy threads %llu times "
                     "after main was woken (bound %llu, round %d)",
                     (unsigned long long)waited, (unsigned long long)bound, r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_threads_all_progress),
        cmocka_unit_test(test_woken_main_not_starved),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
