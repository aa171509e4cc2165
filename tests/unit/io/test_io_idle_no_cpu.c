/* No CPU is burned while every thread waits: ULTs blocked on sockets and on
 * a user event class with a block callback, plus an external pthread
 * blocked on a socket, with the default (adaptive) strategy (set
 * explicitly, whatever WEFT_IO_STRATEGY says). Over one idle
 * second the whole process uses little CPU time: idle workers sleep in the
 * kernel, the blocker threads in epoll_wait / block(). The bound, 5 % of
 * one CPU, is generous (the expected figure is well under 1 %; the spin
 * budget after each wait starts is ~100 us).
 *
 * The main thread itself waits too (on a pipe the measuring pthread
 * writes at the end), so nothing runs during the measurement.
 */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#define NSOCK 4
#define MAX_CPU_FRACTION 0.05

static int sv[NSOCK + 1][2], wake_pipe[2], main_pipe[2];
static atomic_int bad;
static weft_io_t h;
static double cpu_fraction = -1;

static int poll_pipe(void *ctx)
{
    (void)ctx;
    struct pollfd p = { .fd = wake_pipe[0], .events = POLLIN };
    return poll(&p, 1, 0) == 1 ? 0 : -1;
}

static int block_pipe(void *ctx, int timeout_ms)
{
    (void)ctx;
    struct pollfd p = { .fd = wake_pipe[0], .events = POLLIN };
    return poll(&p, 1, timeout_ms) == 1 ? 0 : -1;
}

static void *sock_waiter(void *arg)
{
    int *s = arg;
    char c;
    if (weft_read(s[0], &c, 1) != 1)
        atomic_fetch_add(&bad, 1);
    return NULL;
}

static void *class_waiter(void *arg)
{
    (void)arg;
    if (weft_io_wait(h, NULL) != 0)
        atomic_fetch_add(&bad, 1);
    return NULL;
}

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Measures an idle second, then releases everybody. */
static void *measurer(void *arg)
{
    (void)arg;
    struct timespec settle = { 0, 200 * 1000 * 1000 }, second = { 1, 0 };
    nanosleep(&settle, NULL);
    int64_t c0 = cpu_ns(), t0 = wt_now_ns();
    nanosleep(&second, NULL);
    int64_t c1 = cpu_ns(), t1 = wt_now_ns();
    cpu_fraction = (double)(c1 - c0) / (double)(t1 - t0);
    for (int i = 0; i <= NSOCK; i++)
        if (write(sv[i][1], "x", 1) != 1)
            atomic_fetch_add(&bad, 1);
    if (write(wake_pipe[1], "x", 1) != 1 || write(main_pipe[1], "x", 1) != 1)
        atomic_fetch_add(&bad, 1);
    return NULL;
}

static void test_waiting_costs_no_cpu(void **state)
{
    (void)state;
    assert_int_equal(weft_io_set_strategy(WEFT_IO_ADAPTIVE), 0);
    assert_int_equal(pipe(wake_pipe), 0);
    assert_int_equal(pipe(main_pipe), 0);
    for (int i = 0; i <= NSOCK; i++)
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
    weft_io_params p = { .name = "pipe", .poll = poll_pipe, .block = block_pipe };
    assert_non_null(h = weft_io_register(&p));

    weft_thread_t t[NSOCK + 1];
    for (int i = 0; i < NSOCK; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, sock_waiter, sv[i]), 0);
    assert_int_equal(weft_thread_create(&t[NSOCK], NULL, class_waiter, NULL), 0);
    pthread_t ext, m;
    assert_int_equal(pthread_create(&ext, NULL, sock_waiter, sv[NSOCK]), 0);
    assert_int_equal(pthread_create(&m, NULL, measurer, NULL), 0);
    assert_int_equal(weft_fd_wait(main_pipe[0], WEFT_IO_READ, WEFT_FOREVER), (int)WEFT_IO_READ);

    for (int i = 0; i <= NSOCK; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(pthread_join(ext, NULL), 0);
    assert_int_equal(pthread_join(m, NULL), 0);
    assert_int_equal(atomic_load(&bad), 0);
    print_message("idle CPU: %.3f %% of one CPU\n", 100 * cpu_fraction);
    assert_true(cpu_fraction >= 0 && cpu_fraction < MAX_CPU_FRACTION);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiting_costs_no_cpu),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
