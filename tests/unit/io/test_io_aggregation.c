/* Aggregation: one poll() call serves every waiter of a handle.
 *
 * One worker, preemption off, enhanced-polling strategy, so that every
 * context switch is one the test causes and every poll comes from a safe
 * point. K waiters block on a handle whose requests are atomic flags; two
 * "switcher" ULTs and main then yield in turn for a while. Checked:
 *   - while the K requests wait, each poll() call tests all K of them (the
 *     array group() built has K entries), and the number of poll() calls is
 *     at most the number of context switches (plus a small slack for the
 *     server's poller thread) - not K per switch, as if each waiter polled;
 *   - when all K complete at once, they are all woken by at most K + 2
 *     poll() calls: each call that finds one ready serves it, and the round
 *     goes on without waiting for another safe point.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define K 50
#define YIELDS 300
#define SLACK 10

static atomic_int flag[K];
static atomic_int *req[K];
static int nreq;
static atomic_int polls, min_seen = 1 << 30, max_seen;
static atomic_int stop, woken, bad;
static weft_io_t h;

static void group(void *ctx)
{
    (void)ctx;
    atomic_int *r;
    nreq = 0;
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), r)
        req[nreq++] = r;
}

static int poll_flags(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&polls, 1);
    int seen = nreq;
    if (seen < atomic_load(&min_seen))
        atomic_store(&min_seen, seen);
    if (seen > atomic_load(&max_seen))
        atomic_store(&max_seen, seen);
    for (int i = 0; i < nreq; i++)
        if (atomic_load(req[i]))
            return i;
    return -1;
}

static void *waiter(void *arg)
{
    if (weft_io_wait(h, arg) != 0 || atomic_load((atomic_int *)arg) != 1)
        atomic_fetch_add(&bad, 1); /* no cmocka assert off main's stack */
    atomic_fetch_add(&woken, 1);
    return NULL;
}

static void *switcher(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        weft_thread_yield();
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0 || weft_set_quantum(0) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_POLLING);
}

static uint64_t switches(void)
{
    weft_sched_stats st;
    assert_int_equal(weft_sched_get_stats(&st), 0);
    return st.switches;
}

static void wait_all_linked(void)
{
    int64_t end = wt_now_ns() + 10000000000LL; /* hang guard */
    while (__atomic_load_n(&nreq, __ATOMIC_RELAXED) < K && wt_now_ns() < end)
        weft_thread_yield();
    assert_int_equal(nreq, K);
}

static void test_one_poll_serves_all_waiters(void **state)
{
    (void)state;
    weft_io_params p = { .name = "flags", .poll = poll_flags, .group = group };
    h = weft_io_register(&p);
    assert_non_null(h);
    weft_thread_t w[K], s[2];
    for (int i = 0; i < K; i++)
        assert_int_equal(weft_thread_create(&w[i], NULL, waiter, &flag[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(weft_thread_create(&s[i], NULL, switcher, NULL), 0);
    wait_all_linked();

    atomic_store(&min_seen, 1 << 30);
    atomic_store(&max_seen, 0);
    int p0 = atomic_load(&polls);
    uint64_t sw0 = switches();
    for (int i = 0; i < YIELDS; i++)
        weft_thread_yield();
    int waiting_polls = atomic_load(&polls) - p0;
    uint64_t sw = switches() - sw0;
    assert_true(waiting_polls >= 1);
    assert_true((uint64_t)waiting_polls <= sw + SLACK);
    assert_int_equal(atomic_load(&min_seen), K);
    assert_int_equal(atomic_load(&max_seen), K);

    int p1 = atomic_load(&polls);
    for (int i = 0; i < K; i++)
        atomic_store(&flag[i], 1);
    for (int i = 0; i < K; i++)
        assert_int_equal(weft_thread_join(w[i], NULL), 0);
    int release_polls = atomic_load(&polls) - p1;
    assert_int_equal(atomic_load(&woken), K);
    assert_int_equal(atomic_load(&bad), 0);
    assert_true(release_polls >= K);
    assert_true(release_polls <= K + 2);

    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        assert_int_equal(weft_thread_join(s[i], NULL), 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_poll_serves_all_waiters),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
