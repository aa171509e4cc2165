/* A worker that computes gives its CPU up to the kernel at its ticks while
 * a blocker waits for events, and only then (preempt.c, "Letting the
 * server threads in"): the kernel may keep a woken blocker off a CPU whose
 * task has not run its protected slice, until its next tick, and a yield
 * lets it in.
 *
 * One worker, the blocking strategy (a wait engages the handle's blocker
 * at once), the default quantum (a tick a millisecond). main, a ULT on
 * the only worker, computes:
 *   1. with no wait anywhere, for 30 ms: the count of such yields
 *      (weft_sched_stats.server_yields) must not move;
 *   2. while a ULT waits on a handle whose block() sleeps in poll(2) on a
 *      pipe: the count must grow (checked between compute rounds, a hang
 *      guard of 10 s). Then a pthread writes to the pipe and the waiter
 *      must be woken. main sleeps until block() has run: computing as
 *      soon as the request is linked could keep the waiter, preempted
 *      before it hands its wait over, off the worker for good where ticks
 *      only defer (under ThreadSanitizer).
 */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <weft.h>

#define GUARD_NS 10000000000LL
#define QUIET_COMPUTE_NS 30000000LL

static int pfd[2];
static atomic_int blocking, waiter_rc = 1;
static weft_io_t h;
static volatile uint64_t sink;

static int readable(int timeout_ms)
{
    struct pollfd p = { .fd = pfd[0], .events = POLLIN };
    return poll(&p, 1, timeout_ms) == 1;
}

static int poll_pipe(void *ctx)
{
    (void)ctx;
    return readable(0) ? 0 : -1;
}

static int block_pipe(void *ctx, int timeout_ms)
{
    (void)ctx;
    atomic_store(&blocking, 1);
    return readable(timeout_ms) ? 0 : -1;
}

static void *waiter(void *arg)
{
    (void)arg;
    atomic_store(&waiter_rc, weft_io_wait(h, NULL));
    return NULL;
}

static uint64_t server_yields(void)
{
    weft_sched_stats st;
    assert_int_equal(weft_sched_get_stats(&st), 0);
    return st.server_yields;
}

/* A few hundred microseconds of pure user code. */
static void compute_round(void)
{
    uint64_t x = sink | 1;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    sink = x;
}

static int setup(void **state)
{
    if (wt_one_worker_setup(state) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_BLOCKING);
}

static void test_no_yield_without_waiting_server(void **state)
{
    (void)state;
    uint64_t before = server_yields();
    for (int64_t end = wt_now_ns() + QUIET_COMPUTE_NS; wt_now_ns() < end;)
        compute_round();
    assert_int_equal(server_yields(), before);
}

static void test_yields_while_blocker_waits(void **state)
{
    (void)state;
    assert_int_equal(pipe(pfd), 0);
    weft_io_params p = { .name = "pipe", .poll = poll_pipe, .block = block_pipe };
    assert_non_null(h = weft_io_register(&p));
    weft_thread_t w;
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    int64_t guard = wt_now_ns() + GUARD_NS;
    while (!atomic_load(&blocking) && wt_now_ns() < guard)
        weft_sleep(1000 * 1000);
    assert_int_equal(atomic_load(&blocking), 1);

    uint64_t before = server_yields();
    while (server_yields() == before && wt_now_ns() < guard)
        compute_round();
    assert_true(server_yields() > before);

    assert_int_equal(write(pfd[1], "x", 1), 1);
    assert_int_equal(weft_thread_join(w, NULL), 0);
    assert_int_equal(atomic_load(&waiter_rc), 0);
    assert_int_equal(weft_io_unregister(h), 0);
    close(pfd[0]);
    close(pfd[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_yield_without_waiting_server),
        cmocka_unit_test(test_yields_while_blocker_waits),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
