/* Signal-driven detection (weft_fd_set_sigio): a ULT waits with
 * weft_fd_wait on a socketpair end in SIGIO mode; once its request is
 * linked (the fd class's request count says so), an external pthread
 * writes, and the ULT wakes. Since the fd is out of the epoll set, only
 * the SIGIO dispatcher can detect it: every round counts one more
 * detected_signal and no blocker detection. Turning the mode off puts the
 * fd back under epoll (a wait is then served as before), and bad fds are
 * refused.
 */
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

#include "io/io.h"

#define ROUNDS 5
#define SPIN_LIMIT 10000000L /* bounds the wait for the ULT to park */

static int sv[2];
static int done; /* atomic: rounds the ULT finished */

static void *wait_rounds(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        int got = weft_fd_wait(sv[0], WEFT_IO_READ, WEFT_FOREVER);
        char b;
        if (got != (int)WEFT_IO_READ || read(sv[0], &b, 1) != 1)
            return (void *)(intptr_t)(got < 0 ? got : -1);
        __atomic_store_n(&done, i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* Spin (bounded) until the ULT finished `round` rounds and is linked in
 * its next wait. Returns 0, or -1 if it never got there. */
static int await_linked(int round)
{
    weft_io_t fdh = wf_io_fd_handle();
    for (long spins = 0; spins < SPIN_LIMIT; spins++) {
        if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) == round &&
            __atomic_load_n(&fdh->nreq, __ATOMIC_ACQUIRE) >= 1)
            return 0;
        sched_yield();
    }
    return -1;
}

/* External writer: one byte per round, each after the waiter is linked. */
static void *write_rounds(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++)
        if (await_linked(i) != 0 || write(sv[1], "x", 1) != 1)
            return (void *)(intptr_t)-1;
    return NULL;
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    if (weft_io_set_strategy(WEFT_IO_ADAPTIVE) != 0)
        return -1;
    return socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
}

static int teardown(void **state)
{
    close(sv[0]);
    close(sv[1]);
    return wt_runtime_teardown(state);
}

static void test_sigio_wakes_waiter(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_io_t fdh = wf_io_fd_handle();
    weft_io_stats before, after;
    assert_int_equal(weft_io_get_stats(fdh, &before), 0);
    assert_int_equal(weft_fd_set_sigio(sv[0], 1), 0);
    assert_true(fcntl(sv[0], F_GETFL) & O_ASYNC);
    weft_thread_t t;
    pthread_t w;
    assert_int_equal(weft_thread_create(&t, NULL, wait_rounds, NULL), 0);
    assert_int_equal(pthread_create(&w, NULL, write_rounds, NULL), 0);
    void *ult_ret, *writer_ret;
    assert_int_equal(weft_thread_join(t, &ult_ret), 0);
    assert_int_equal(pthread_join(w, &writer_ret), 0);
    assert_null(ult_ret);
    assert_null(writer_ret);
    assert_int_equal(weft_io_get_stats(fdh, &after), 0);
    assert_true(after.detected_signal - before.detected_signal >= ROUNDS);
    assert_int_equal(after.detected_block, before.detected_block);
    assert_int_equal(weft_fd_set_sigio(sv[0], 0), 0);
    assert_false(fcntl(sv[0], F_GETFL) & O_ASYNC);
}

static void test_off_returns_to_epoll(void **state)
{
    (void)state;
    assert_int_equal(weft_fd_set_sigio(sv[0], 1), 0);
    assert_int_equal(weft_fd_set_sigio(sv[0], 0), 0);
    assert_int_equal(write(sv[1], "y", 1), 1);
    assert_int_equal(weft_fd_wait(sv[0], WEFT_IO_READ, WEFT_FOREVER), (int)WEFT_IO_READ);
    char b;
    assert_int_equal(read(sv[0], &b, 1), 1);
}

static void test_bad_fd(void **state)
{
    (void)state;
    assert_int_equal(weft_fd_set_sigio(-1, 1), -EBADF);
    int fd = dup(sv[0]);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(weft_fd_set_sigio(fd, 1), -EBADF);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigio_wakes_waiter),
        cmocka_unit_test(test_off_returns_to_epoll),
        cmocka_unit_test(test_bad_fd),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
