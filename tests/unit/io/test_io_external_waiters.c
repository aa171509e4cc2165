/* Plain pthreads (not Weft threads) wait through the I/O server: on a
 * socket (weft_fd_wait, weft_read), on a class that can only be polled and
 * on a class with a block callback. They sleep in the kernel until the
 * server detects their events, which another plain pthread causes, while
 * no ULT does anything (main blocks its worker in pthread_join): so the
 * detection must come from the server's own threads (the epoll blocker,
 * the class's blocker, the poller), not from a worker's safe points.
 */
#include "test_support.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

static int sv[2], blk_pipe[2];
static atomic_int poll_flag;
static weft_io_t polled, blocking;

static int poll_only(void *ctx)
{
    (void)ctx;
    return atomic_load(&poll_flag) ? 0 : -1;
}

static int pipe_ready(int timeout_ms)
{
    struct pollfd p = { .fd = blk_pipe[0], .events = POLLIN };
    return poll(&p, 1, timeout_ms) == 1 ? 0 : -1;
}

static int poll_pipe(void *ctx)
{
    (void)ctx;
    return pipe_ready(0);
}

static int block_pipe(void *ctx, int timeout_ms)
{
    (void)ctx;
    return pipe_ready(timeout_ms);
}

static void *fd_waiter(void *arg)
{
    (void)arg;
    int ev = weft_fd_wait(sv[0], WEFT_IO_READ, WEFT_FOREVER);
    char c = 0;
    ssize_t n = weft_read(sv[0], &c, 1);
    return (void *)(intptr_t)(ev == (int)WEFT_IO_READ && n == 1 && c == 'x');
}

static void *class_waiter(void *arg)
{
    return (void *)(intptr_t)(weft_io_wait(arg, NULL) == 0);
}

static void *completer(void *arg)
{
    (void)arg;
    usleep(50 * 1000);
    int ok = write(sv[1], "x", 1) == 1;
    atomic_store(&poll_flag, 1);
    ok &= write(blk_pipe[1], "x", 1) == 1;
    return (void *)(intptr_t)ok;
}

static void test_pthreads_wait_through_the_server(void **state)
{
    (void)state;
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(pipe(blk_pipe), 0);
    weft_io_params p1 = { .name = "polled", .poll = poll_only, .frequency = 1 };
    weft_io_params p2 = { .name = "blocking", .poll = poll_pipe, .block = block_pipe };
    assert_non_null(polled = weft_io_register(&p1));
    assert_non_null(blocking = weft_io_register(&p2));

    pthread_t t[4];
    assert_int_equal(pthread_create(&t[0], NULL, fd_waiter, NULL), 0);
    assert_int_equal(pthread_create(&t[1], NULL, class_waiter, polled), 0);
    assert_int_equal(pthread_create(&t[2], NULL, class_waiter, blocking), 0);
    assert_int_equal(pthread_create(&t[3], NULL, completer, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *ok;
        assert_int_equal(pthread_join(t[i], &ok), 0); /* blocks worker 0 */
        assert_int_equal((intptr_t)ok, 1);
    }
    weft_io_stats st;
    assert_int_equal(weft_io_get_stats(polled, &st), 0);
    assert_int_equal(st.detected_poll + st.detected_block, 1);
    assert_int_equal(weft_io_get_stats(blocking, &st), 0);
    assert_int_equal(st.waits, 1);
    assert_int_equal(weft_io_unregister(polled), 0);
    assert_int_equal(weft_io_unregister(blocking), 0);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pthreads_wait_through_the_server),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
