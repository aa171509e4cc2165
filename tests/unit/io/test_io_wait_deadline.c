/* Waits with a deadline time out: weft_io_wait_until on a request that
 * never completes, and weft_fd_wait on a socket that never becomes
 * readable, return WEFT_ETIMEDOUT - never before the deadline - from a ULT
 * and from an external pthread; a deadline of 0 tries once and returns at
 * once; the handle's statistics count the time-outs; and a request that
 * completes before its deadline returns 0.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

#define DELAY_NS (30 * 1000 * 1000LL)

static weft_io_t h;
static int sv[2];

static int poll_flag(void *ctx)
{
    return atomic_load((atomic_int *)ctx) ? 0 : -1;
}

typedef struct result {
    int io_rc, fd_rc;
    int64_t io_late, fd_late; /* return time - deadline (>= 0 expected) */
} result;

static void *timed_waits(void *arg)
{
    result *r = arg;
    int64_t deadline = wt_now_ns() + DELAY_NS;
    r->io_rc = weft_io_wait_until(h, NULL, deadline);
    r->io_late = wt_now_ns() - deadline;
    deadline = wt_now_ns() + DELAY_NS;
    r->fd_rc = weft_fd_wait(sv[0], WEFT_IO_READ, deadline);
    r->fd_late = wt_now_ns() - deadline;
    return NULL;
}

static void check(const result *r)
{
    assert_int_equal(r->io_rc, WEFT_ETIMEDOUT);
    assert_int_equal(r->fd_rc, WEFT_ETIMEDOUT);
    assert_true(r->io_late >= 0);
    assert_true(r->fd_late >= 0);
}

static void test_deadline_times_out(void **state)
{
    (void)state;
    static atomic_int never;
    weft_io_params p = { .name = "never", .poll = poll_flag, .ctx = &never };
    assert_non_null(h = weft_io_register(&p));
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

    result ult = { 0 }, ext = { 0 };
    weft_thread_t t;
    pthread_t pt;
    assert_int_equal(weft_thread_create(&t, NULL, timed_waits, &ult), 0);
    assert_int_equal(pthread_create(&pt, NULL, timed_waits, &ext), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(pthread_join(pt, NULL), 0);
    check(&ult);
    check(&ext);

    weft_io_stats st;
    assert_int_equal(weft_io_get_stats(h, &st), 0);
    assert_int_equal(st.waits, 2);
    assert_int_equal(st.timeouts, 2);
    assert_int_equal(weft_io_unregister(h), 0);
    close(sv[0]);
    close(sv[1]);
}

static void test_zero_deadline_tries_once(void **state)
{
    (void)state;
    static atomic_int flag;
    weft_io_params p = { .name = "once", .poll = poll_flag, .ctx = &flag };
    assert_non_null(h = weft_io_register(&p));
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(weft_io_wait_until(h, NULL, 0), WEFT_ETIMEDOUT);
    assert_int_equal(weft_fd_wait(sv[0], WEFT_IO_READ, 0), WEFT_ETIMEDOUT);
    assert_int_equal(weft_fd_wait(sv[0], WEFT_IO_WRITE, 0), (int)WEFT_IO_WRITE);
    atomic_store(&flag, 1);
    assert_int_equal(weft_io_wait_until(h, NULL, 0), 0);
    assert_int_equal(write(sv[1], "x", 1), 1);
    assert_int_equal(weft_fd_wait(sv[0], WEFT_IO_READ, 0), (int)WEFT_IO_READ);
    assert_int_equal(weft_io_unregister(h), 0);
    close(sv[0]);
    close(sv[1]);
}

static void *complete_later(void *arg)
{
    usleep(5000);
    atomic_store((atomic_int *)arg, 1);
    return NULL;
}

static void test_ready_before_deadline_returns_zero(void **state)
{
    (void)state;
    static atomic_int flag;
    weft_io_params p = { .name = "soon", .poll = poll_flag, .ctx = &flag };
    assert_non_null(h = weft_io_register(&p));
    pthread_t pt;
    assert_int_equal(pthread_create(&pt, NULL, complete_later, &flag), 0);
    assert_int_equal(weft_io_wait_until(h, NULL, wt_now_ns() + 10000000000LL), 0);
    assert_int_equal(pthread_join(pt, NULL), 0);
    weft_io_stats st;
    assert_int_equal(weft_io_get_stats(h, &st), 0);
    assert_int_equal(st.timeouts, 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadline_times_out),
        cmocka_unit_test(test_zero_deadline_tries_once),
        cmocka_unit_test(test_ready_before_deadline_returns_zero),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
