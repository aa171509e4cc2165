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
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <weft.h>

#define MAX_BUSY   64
#define MIN_ROUNDS 20
#define MIN_SPAN   200000000LL   /* 200 ms of observation */
#define GIVE_UP    10000000000LL /* per round: only a starving thread hits it */
#define WATCHDOG   30            /* seconds for the whole test */

static atomic_uint_fast64_t progress[MAX_BUSY];
static int nbusy;
static atomic_int stop;
static atomic_int watchdog_fired;
static atomic_int test_done;

struct record_result {
    int rounds;
    int starved;       /* index of a thread that did not move, or -1 */
    int64_t worst_ns;  /* longest round, for the log only */
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

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(1000000);
}

static void test_busy_threads_all_progress(void **state)
{
    (void)state;
    weft_thread_t rec, ts[MAX_BUSY];
    struct record_result res = {0, -1, 0};
    pthread_t wd;
    weft_sched_stats st;

    assert_int_equal(weft_get_quantum(), 1000000);
    nbusy = 4 * weft_num_workers();
    assert_true(nbusy > 0 && nbusy <= MAX_BUSY);
    assert_int_equal(pthread_create(&wd, NULL, watchdog, NULL), 0);
    assert_int_equal(weft_thread_create(&rec, NULL, recorder, &res), 0);
    for (intptr_t i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_create(&ts[i], NULL, busy, (void *)i), 0);

    assert_int_equal(weft_thread_join(rec, NULL), 0);
    for (int i = 0; i < nbusy; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);
    atomic_store(&test_done, 1);
    assert_int_equal(pthread_join(wd, NULL), 0);

    print_message("%d busy threads, %d rounds, worst round %.2f ms\n", nbusy,
                  res.rounds, (double)res.worst_ns / 1e6);
    assert_false(atomic_load(&watchdog_fired));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_busy_threads_all_progress),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
