/* Work distribution: threads created by one thread end up running on more
 * than one worker (through work stealing or placement).
 *
 * main creates THREADS threads in a row. Each marks the worker it runs on
 * in a bit mask and keeps computing (re-marking, in case it migrates) until
 * the mask shows two workers or a generous deadline passes. With stealing,
 * an idle worker takes one of them at once and everybody finishes; without
 * it, they all run on main's worker until the deadline, and the test fails.
 * Needs two workers: WEFT_WORKERS defaults to 2 here (an explicit setting
 * is kept) and the test is skipped below two.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define THREADS     64
#define DEADLINE_NS 10000000000LL /* hang guard: only no-stealing hits it */

static atomic_ullong worker_mask;
static atomic_int bad_worker_id;
static int64_t deadline;

static void mark_worker(void)
{
    int w = weft_worker_id();
    if (w < 0 || w >= 64 || w >= weft_num_workers())
        atomic_store(&bad_worker_id, 1);
    else
        atomic_fetch_or(&worker_mask, 1ull << w);
}

static int workers_seen(void)
{
    return __builtin_popcountll(atomic_load(&worker_mask));
}

static void *spread(void *arg)
{
    (void)arg;
    mark_worker();
    while (workers_seen() < 2 && wt_now_ns() < deadline)
        mark_worker();
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "2", 0);
    return wt_runtime_setup(state);
}

static void test_threads_spread_over_workers(void **state)
{
    (void)state;
    weft_thread_t ts[THREADS];
    weft_sched_stats st;

    if (weft_num_workers() < 2) {
        print_message("only %d worker: nothing to steal\n", weft_num_workers());
        skip();
    }
    atomic_store(&worker_mask, 0);
    deadline = wt_now_ns() + DEADLINE_NS;
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(weft_thread_create(&ts[i], NULL, spread, NULL), 0);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);

    assert_int_equal(weft_sched_get_stats(&st), 0);
    print_message("worker mask %#llx, steals %llu\n",
                  (unsigned long long)atomic_load(&worker_mask),
                  (unsigned long long)st.steals);
    assert_int_equal(atomic_load(&bad_worker_id), 0);
    assert_true(workers_seen() >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_spread_over_workers),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
