/* An idle worker that sleeps in a class's block() (the class gives an
 * unblock callback) is pulled out when the scheduler has work for it, and
 * by weft_io_unregister; the waiter is still woken by the event.
 *
 * One worker (WEFT_WORKERS=1), adaptive strategy. The class's block()
 * sleeps in poll(2) on a pipe and an eventfd that unblock() writes; called
 * on a worker it ignores its timeout, so only unblock() (or the pipe) can
 * end it: a ULT created meanwhile can run only if the scheduler called
 * unblock(), and unregister returns only if it did too. Whether the worker
 * or the blocker thread took the wait is up to the server (a rare race can
 * engage the blocker first); the unblock assertions apply when the worker
 * did. With a timer due, the worker leaves block() to the blocker thread.
 */
#include "test_support.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <weft.h>

#define HANG_GUARD_NS 20000000000LL

static int pfd[2], efd = -1;
static atomic_int on_worker, on_blocker, unblocks, ran;
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

static int block_pipe(void *ctx, int timeout_ms)
{
    (void)ctx;
    int worker = weft_worker_id() >= 0;
    struct pollfd p[2] = { { .fd = pfd[0], .events = POLLIN }, { .fd = efd, .events = POLLIN } };
    atomic_store(worker ? &on_worker : &on_blocker, 1);
    int n = poll(p, 2, worker ? -1 : timeout_ms);
    uint64_t v;
    if (n > 0 && (p[1].revents & POLLIN) && read(efd, &v, sizeof v) < 0)
        return -1;
    return -1;
}

static void unblock_pipe(void *ctx)
{
    (void)ctx;
    uint64_t one = 1;
    atomic_fetch_add(&unblocks, 1);
    if (write(efd, &one, sizeof one) < 0)
        return;
}

static void *waiter(void *arg)
{
    return (void *)(intptr_t)weft_io_wait(h, arg);
}

static void *worker_job(void *arg)
{
    (void)arg;
    atomic_store(&ran, 1);
    return NULL;
}

static void wait_for_block(void)
{
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (!atomic_load(&on_worker) && !atomic_load(&on_blocker) && wt_now_ns() < guard)
        usleep(1000);
    assert_true(atomic_load(&on_worker) || atomic_load(&on_blocker));
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_ADAPTIVE);
}

static void test_interrupt_and_event(void **state)
{
    (void)state;
    assert_int_equal(pipe(pfd), 0);
    assert_true((efd = eventfd(0, EFD_NONBLOCK)) >= 0);
    weft_io_params p = { .name = "idle", .poll = poll_pipe, .block = block_pipe,
                          .unblock = unblock_pipe };
    assert_non_null(h = weft_io_register(&p));
    weft_thread_t w, job;
    void *rc;
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    wait_for_block();
    int worker_slept = atomic_load(&on_worker);
    /* New work for the only worker: it must leave block() to run it. */
    assert_int_equal(weft_thread_create(&job, NULL, worker_job, NULL), 0);
    assert_int_equal(weft_thread_join(job, NULL), 0);
    assert_int_equal(atomic_load(&ran), 1);
    if (worker_slept)
        assert_true(atomic_load(&unblocks) >= 1);
    /* The event still wakes the waiter. */
    assert_int_equal(write(pfd[1], "x", 1), 1);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, 0);
    char c;
    assert_int_equal(read(pfd[0], &c, 1), 1);

    /* Unregister while the worker may sleep in block(): it is pulled out,
     * and the waiter is cancelled. */
    atomic_store(&on_worker, 0);
    atomic_store(&on_blocker, 0);
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    wait_for_block();
    assert_int_equal(weft_io_unregister(h), 0);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, WEFT_ECANCELED);
    close(pfd[0]);
    close(pfd[1]);
    close(efd);
}

static void never_runs(void *arg)
{
    (void)arg;
}

/* A timer due (a pending event): block() takes whole milliseconds, so the
 * idle worker must not sleep in it; the blocker thread serves the wait
 * and the event still wakes the waiter. */
static void test_timer_pending_keeps_worker_out_of_block(void **state)
{
    (void)state;
    assert_int_equal(pipe(pfd), 0);
    assert_true((efd = eventfd(0, EFD_NONBLOCK)) >= 0);
    atomic_store(&on_worker, 0);
    atomic_store(&on_blocker, 0);
    weft_io_params p = { .name = "idle-timer", .poll = poll_pipe, .block = block_pipe,
                          .unblock = unblock_pipe };
    assert_non_null(h = weft_io_register(&p));
    weft_event_t ev;
    assert_int_equal(weft_event_after(&ev, HANG_GUARD_NS, NULL, never_runs, NULL), 0);
    weft_thread_t w;
    void *rc;
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    wait_for_block();
    assert_int_equal(atomic_load(&on_worker), 0);
    assert_int_equal(write(pfd[1], "x", 1), 1);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, 0);
    assert_int_equal(atomic_load(&on_worker), 0);
    assert_int_equal(weft_event_cancel(ev), 1);
    weft_event_release(ev);
    assert_int_equal(weft_io_unregister(h), 0);
    close(pfd[0]);
    close(pfd[1]);
    close(efd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interrupt_and_event),
        cmocka_unit_test(test_timer_pending_keeps_worker_out_of_block),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
