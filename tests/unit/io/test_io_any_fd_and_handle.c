/* weft_wait_any over an fd clause and a user event class clause: it
 * returns the index of the clause that fired first (with the ready events
 * for an fd), the other clause is cancelled - its request leaves the
 * handle (group() sees the set empty again) - and a deadline with neither
 * firing gives WEFT_ETIMEDOUT. Malformed clauses give WEFT_EINVAL, and so
 * does a signal clause for a signal Weft does not handle (not weft_sig_set).
 */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

static weft_io_t h;
static atomic_int flag, nwaiting;
static int sv[2];

static void group(void *ctx)
{
    (void)ctx;
    void *a;
    int n = 0;
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), a)
        n += a == &flag;
    atomic_store(&nwaiting, n);
}

static int poll_flag(void *ctx)
{
    (void)ctx;
    return atomic_load(&flag) ? 0 : -1;
}

static void *write_later(void *arg)
{
    (void)arg;
    usleep(10000);
    return (void *)(intptr_t)write(sv[1], "x", 1);
}

static void *flag_later(void *arg)
{
    (void)arg;
    usleep(10000);
    atomic_store(&flag, 1);
    return NULL;
}

static void fill(weft_clause c[2])
{
    c[0] = (weft_clause){ .kind = WEFT_CLAUSE_FD, .fd = sv[0], .events = WEFT_IO_READ };
    c[1] = (weft_clause){ .kind = WEFT_CLAUSE_IO, .io = h, .arg = &flag };
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    weft_io_params p = { .name = "any", .poll = poll_flag, .group = group };
    h = weft_io_register(&p);
    return h && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    close(sv[0]);
    close(sv[1]);
    if (weft_io_unregister(h) != 0)
        return -1;
    return wt_runtime_teardown(state);
}

static void test_fd_fires_first(void **state)
{
    (void)state;
    weft_clause c[2];
    fill(c);
    pthread_t pt;
    assert_int_equal(pthread_create(&pt, NULL, write_later, NULL), 0);
    assert_int_equal(weft_wait_any(c, 2, WEFT_FOREVER), 0);
    assert_int_equal(c[0].result, (int)WEFT_IO_READ);
    assert_int_equal(c[1].result, 0);
    assert_int_equal(atomic_load(&nwaiting), 0); /* the IO clause left */
    void *written;
    assert_int_equal(pthread_join(pt, &written), 0);
    assert_int_equal((intptr_t)written, 1);
    char b;
    assert_int_equal(read(sv[0], &b, 1), 1);
}

static void test_handle_fires_first(void **state)
{
    (void)state;
    weft_clause c[2];
    fill(c);
    pthread_t pt;
    assert_int_equal(pthread_create(&pt, NULL, flag_later, NULL), 0);
    assert_int_equal(weft_wait_any(c, 2, WEFT_FOREVER), 1);
    assert_int_equal(c[0].result, 0);
    assert_int_equal(atomic_load(&nwaiting), 0);
    assert_int_equal(pthread_join(pt, NULL), 0);
    atomic_store(&flag, 0);
    /* The cancelled fd clause left nothing behind: a plain wait works. */
    assert_int_equal(write(sv[1], "y", 1), 1);
    assert_int_equal(weft_fd_wait(sv[0], WEFT_IO_READ, WEFT_FOREVER), (int)WEFT_IO_READ);
    char b;
    assert_int_equal(read(sv[0], &b, 1), 1);
}

static void test_neither_fires_before_deadline(void **state)
{
    (void)state;
    weft_clause c[2];
    fill(c);
    assert_int_equal(weft_wait_any(c, 2, wt_now_ns() + 20 * 1000 * 1000), WEFT_ETIMEDOUT);
    assert_int_equal(atomic_load(&nwaiting), 0);
    assert_int_equal(weft_wait_any(c, 2, 0), WEFT_ETIMEDOUT);
}

static void test_bad_clauses(void **state)
{
    (void)state;
    weft_clause c[2];
    fill(c);
    assert_int_equal(weft_wait_any(NULL, 1, 0), WEFT_EINVAL);
    assert_int_equal(weft_wait_any(c, 0, 0), WEFT_EINVAL);
    c[1].io = WEFT_IO_NULL;
    assert_int_equal(weft_wait_any(c, 2, 0), WEFT_EINVAL);
    fill(c);
    c[0].events = 0x100;
    assert_int_equal(weft_wait_any(c, 2, 0), WEFT_EINVAL);
    weft_clause s = { .kind = WEFT_CLAUSE_SIGNAL, .sig = SIGUSR1 };
    assert_int_equal(weft_wait_any(&s, 1, 0), WEFT_EINVAL); /* SIGUSR1 not set */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fd_fires_first),
        cmocka_unit_test(test_handle_fires_first),
        cmocka_unit_test(test_neither_fires_before_deadline),
        cmocka_unit_test(test_bad_clauses),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
