/* A busy worker whose threads run short detects at its switches; when one
 * of them turns into a compute thread, the waits still reach the I/O
 * server and an event preempts it. (The guarantee of io.h's route 2: a
 * message that lands while every worker computes preempts a compute
 * thread.)
 *
 * One worker (WEFT_WORKERS=1), adaptive strategy, the default quantum.
 * Three ULTs, main, `computer` and `partner`, yield to each other for a
 * while, so all run short; then `computer` starts the waiter, and once `partner`
 * has ended it computes without ever entering the runtime. A plain
 * pthread then makes the waiter's pipe readable. Nothing can switch the
 * only worker to the waiter unless the server detects the event and
 * preempts `computer`: the waiter sets `woken`, which `computer` reads in
 * its loop. The loop's guard only bounds a failure.
 *
 * A new thread counts as one that runs short until a tick says otherwise,
 * so the second case checks the same guarantee for a thread that computes
 * from its very start while the wait is open: its ticks hand the wait to
 * the server, and the event preempts it.
 */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <weft.h>

#define HANG_GUARD_NS 10000000000LL
#define ROUNDS 200

static int pfd[2];
static weft_io_t h;
static atomic_int woken, computing, partner_done;

static int poll_pipe(void *ctx)
{
    (void)ctx;
    struct pollfd p = { .fd = pfd[0], .events = POLLIN };
    return poll(&p, 1, 0) == 1 ? 0 : -1;
}

static int pipe_fd(void *ctx)
{
    (void)ctx;
    return pfd[0];
}

static void *waiter(void *arg)
{
    (void)arg;
    intptr_t rc = weft_io_wait(h, NULL);
    atomic_store(&woken, 1);
    return (void *)rc;
}

static void *partner(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++)
        weft_thread_yield();
    atomic_store(&partner_done, 1);
    return NULL;
}

/* Short runs with `partner`, then the waiter, then a compute loop that
 * ends when the waiter has run (or the guard passes). */
static void *computer(void *arg)
{
    weft_thread_t *w = arg;
    for (int i = 0; i < ROUNDS / 2; i++)
        weft_thread_yield();
    assert_int_equal(weft_thread_create(w, NULL, waiter, NULL), 0);
    while (!atomic_load(&partner_done))
        weft_thread_yield();
    atomic_store(&computing, 1);
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (!atomic_load(&woken) && wt_now_ns() < guard) {
    }
    return (void *)(intptr_t)atomic_load(&woken); /* 1: woken meanwhile */
}

/* Computes from its first instruction until the waiter has run (or the
 * guard passes). */
static void *fresh_computer(void *arg)
{
    (void)arg;
    atomic_store(&computing, 1);
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (!atomic_load(&woken) && wt_now_ns() < guard) {
    }
    return (void *)(intptr_t)atomic_load(&woken);
}

static void *actor(void *arg)
{
    (void)arg;
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (!atomic_load(&computing) && wt_now_ns() < guard)
        usleep(200);
    usleep(20 * 1000); /* let the compute loop pass a few ticks */
    assert_int_equal(write(pfd[1], "x", 1), 1);
    return NULL;
}

static int setup(void **state)
{
    if (wt_one_worker_setup(state) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_ADAPTIVE);
}

/* A pipe class `h` on pfd, and the flags cleared. */
static void open_pipe_class(void)
{
    atomic_store(&woken, 0);
    atomic_store(&computing, 0);
    atomic_store(&partner_done, 0);
    assert_int_equal(pipe(pfd), 0);
    weft_io_params params = { .name = "pipe", .poll = poll_pipe, .pollfd = pipe_fd };
    assert_non_null(h = weft_io_register(&params));
}

static void close_pipe_class(void)
{
    char ch;
    assert_int_equal(read(pfd[0], &ch, 1), 1);
    assert_int_equal(weft_io_unregister(h), 0);
    close(pfd[0]);
    close(pfd[1]);
}

static void test_event_preempts_a_thread_that_ran_short(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_thread_t c, p, w;
    pthread_t a;
    void *rc;
    open_pipe_class();
    assert_int_equal(pthread_create(&a, NULL, actor, NULL), 0);
    assert_int_equal(weft_thread_create(&p, NULL, partner, NULL), 0);
    assert_int_equal(weft_thread_create(&c, NULL, computer, &w), 0);
    for (int i = 0; i < 10; i++)
        weft_thread_yield(); /* main, too, runs short before it parks */
    assert_int_equal(weft_thread_join(c, &rc), 0);
    assert_int_equal((intptr_t)rc, 1);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, 0);
    assert_int_equal(weft_thread_join(p, NULL), 0);
    assert_int_equal(pthread_join(a, NULL), 0);
    close_pipe_class();
}

static void test_event_preempts_a_new_thread_that_computes(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_thread_t c, w;
    pthread_t a;
    void *rc;
    open_pipe_class();
    assert_int_equal(weft_thread_create(&w, NULL, waiter, NULL), 0);
    for (int i = 0; i < 10; i++)
        weft_thread_yield(); /* the waiter parks */
    assert_int_equal(pthread_create(&a, NULL, actor, NULL), 0);
    assert_int_equal(weft_thread_create(&c, NULL, fresh_computer, NULL), 0);
    assert_int_equal(weft_thread_join(c, &rc), 0);
    assert_int_equal((intptr_t)rc, 1);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, 0);
    assert_int_equal(pthread_join(a, NULL), 0);
    close_pipe_class();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_preempts_a_thread_that_ran_short),
        cmocka_unit_test(test_event_preempts_a_new_thread_that_computes),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
