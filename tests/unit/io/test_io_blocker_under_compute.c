/* The blocker strategy wakes a waiter while every worker runs compute.
 *
 * Preemption is off (quantum 0) and one compute ULT per worker, plus one,
 * spins without ever yielding, so no worker reaches a safe point on its
 * own and nothing polls. A ULT waits on a handle whose block callback
 * sleeps in poll(2) on a pipe; once every worker is computing, a plain
 * pthread writes to the pipe. The handle's blocker thread sees it and
 * wakes the waiter urgently, which must preempt a compute ULT: the waiter
 * runs while the compute ULTs still spin (they stop only when it tells
 * them), and the handle's statistics show the detection as "block", not
 * "poll".
 */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <weft.h>

#define HANG_GUARD_NS 20000000000LL
#define SPIN_GUARD (1ull << 33) /* hang guard: several seconds of spinning */

static int pfd[2];
static atomic_int running, stop, linked, waiter_rc = 1, computing_at_wake = -1;
static weft_io_t h;

static int ready(void)
{
    struct pollfd p = { .fd = pfd[0], .events = POLLIN };
    return poll(&p, 1, 0) == 1;
}

static int poll_pipe(void *ctx)
{
    (void)ctx;
    return ready() ? 0 : -1;
}

static void group(void *ctx)
{
    (void)ctx;
    atomic_store(&linked, weft_io_request_first(weft_io_current()) != NULL);
}

static int block_pipe(void *ctx, int timeout_ms)
{
    (void)ctx;
    struct pollfd p = { .fd = pfd[0], .events = POLLIN };
    return poll(&p, 1, timeout_ms) == 1 ? 0 : -1;
}

/* Pure user code: no call into libc or libweft, where the scheduler defers
 * preemption (and, with preemption off, has no later tick to take it). */
static void *compute(void *arg)
{
    (void)arg;
    atomic_fetch_add(&running, 1);
    for (uint64_t i = 0; !atomic_load(&stop) && i < SPIN_GUARD; i++)
        ;
    atomic_fetch_sub(&running, 1);
    return NULL;
}

static void *waiter(void *arg)
{
    (void)arg;
    atomic_store(&waiter_rc, weft_io_wait(h, NULL));
    atomic_store(&computing_at_wake, atomic_load(&running));
    atomic_store(&stop, 1);
    return NULL;
}

static void *writer(void *arg)
{
    int nworkers = *(int *)arg;
    int64_t end = wt_now_ns() + HANG_GUARD_NS;
    while (atomic_load(&running) < nworkers && wt_now_ns() < end)
        usleep(1000);
    usleep(20000); /* every worker is deep in compute now */
    return (void *)(intptr_t)write(pfd[1], "x", 1);
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0 || weft_set_quantum(0) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_BLOCKING);
}

static void test_blocker_preempts_compute(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    assert_int_equal(pipe(pfd), 0);
    weft_io_params p = { .name = "pipe", .poll = poll_pipe, .block = block_pipe,
                          .group = group };
    assert_non_null(h = weft_io_register(&p));
    int nworkers = weft_num_workers(), ncompute = nworkers + 1;
    weft_thread_t w, *c = calloc((size_t)ncompute, sizeof *c);
    assert_non_null(c);
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (!atomic_load(&linked) && wt_now_ns() < guard)
        weft_sleep(1000 * 1000); /* until it waits */
    assert_int_equal(atomic_load(&linked), 1);
    for (int i = 0; i < ncompute; i++)
        assert_int_equal(weft_thread_create(&c[i], NULL, compute, NULL), 0);
    pthread_t pt;
    assert_int_equal(pthread_create(&pt, NULL, writer, &nworkers), 0);
    assert_int_equal(weft_thread_join(w, NULL), 0);
    for (int i = 0; i < ncompute; i++)
        assert_int_equal(weft_thread_join(c[i], NULL), 0);
    void *written;
    assert_int_equal(pthread_join(pt, &written), 0);
    assert_int_equal((intptr_t)written, 1);

    assert_int_equal(atomic_load(&waiter_rc), 0);
    assert_true(atomic_load(&computing_at_wake) >= nworkers);
    weft_io_stats st;
    assert_int_equal(weft_io_get_stats(h, &st), 0);
    assert_int_equal(st.detected_block, 1);
    assert_int_equal(st.detected_poll, 0);
    assert_int_equal(weft_io_unregister(h), 0);
    free(c);
    close(pfd[0]);
    close(pfd[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocker_preempts_compute),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
