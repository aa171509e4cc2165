/* weft_wait_any with a WEFT_CLAUSE_SIGNAL clause: a ULT waiting on an fd
 * and a signal wakes with the signal clause's index when the signal is
 * raised; when the fd clause wins, a later WAKE_ONE delivery is kept
 * pending for the next weft_sig_wait; and a WAKE_ONE delivery that finds
 * the clause still queued but its wait already won by another clause is
 * not swallowed either (made deterministic by raising from the group()
 * callback that runs while weft_wait_any disarms its clauses). A signal
 * that is not set gives WEFT_EINVAL.
 */
#include "test_support.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft.h>

#define SPIN_LIMIT 10000000L /* bounds every wait for a ULT to park */

static int sv[2];
static weft_io_t h;
static atomic_int raise_on_empty, prev_n;

/* group(): raise SIGUSR1 when the handle's last request leaves, if asked. */
static void group(void *ctx)
{
    (void)ctx;
    void *a;
    int n = 0;
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), a)
        n += a == NULL; /* every request here has arg NULL */
    if (n == 0 && atomic_exchange(&prev_n, 0) > 0 && atomic_load(&raise_on_empty))
        weft_sig_raise(SIGUSR1);
    atomic_store(&prev_n, n);
}

static int never_ready(void *ctx)
{
    (void)ctx;
    return -1;
}

static void fill(weft_clause c[2])
{
    c[0] = (weft_clause){ .kind = WEFT_CLAUSE_FD, .fd = sv[0], .events = WEFT_IO_READ };
    c[1] = (weft_clause){ .kind = WEFT_CLAUSE_SIGNAL, .sig = SIGUSR1 };
}

static void *wait_fd_or_signal(void *arg)
{
    weft_clause *c = arg;
    return (void *)(intptr_t)weft_wait_any(c, 2, WEFT_FOREVER);
}

/* Start a ULT in wait_fd_or_signal and return once its clause is queued. */
static weft_thread_t start_waiter(weft_clause c[2])
{
    weft_thread_t t;
    assert_int_equal(weft_thread_create(&t, NULL, wait_fd_or_signal, c), 0);
    long spins = 0;
    while (weft_sig_waiters(SIGUSR1) < 1 && spins++ < SPIN_LIMIT)
        weft_thread_yield();
    assert_int_equal(weft_sig_waiters(SIGUSR1), 1);
    return t;
}

static int join_result(weft_thread_t t)
{
    void *ret;
    assert_int_equal(weft_thread_join(t, &ret), 0);
    return (int)(intptr_t)ret;
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    weft_io_params p = { .name = "anysig", .poll = never_ready, .group = group };
    h = weft_io_register(&p);
    if (!h || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    return weft_sig_set(SIGUSR1) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    weft_sig_clear(SIGUSR1);
    close(sv[0]);
    close(sv[1]);
    if (weft_io_unregister(h) != 0)
        return -1;
    return wt_runtime_teardown(state);
}

static void test_raise_wakes_signal_clause(void **state)
{
    (void)state;
    assert_int_equal(weft_sig_set_mode(SIGUSR1, WEFT_SIG_WAKE_ALL), 0);
    weft_clause c[2];
    fill(c);
    weft_thread_t t = start_waiter(c);
    assert_int_equal(weft_sig_raise(SIGUSR1), 0);
    assert_int_equal(join_result(t), 1);
    assert_int_equal(c[0].result, 0);
    assert_int_equal(c[1].result, 0);
    assert_int_equal(weft_sig_waiters(SIGUSR1), 0);
}

static void test_fd_first_keeps_later_delivery(void **state)
{
    (void)state;
    assert_int_equal(weft_sig_set_mode(SIGUSR1, WEFT_SIG_WAKE_ONE), 0);
    weft_clause c[2];
    fill(c);
    weft_thread_t t = start_waiter(c);
    assert_int_equal(write(sv[1], "x", 1), 1);
    assert_int_equal(join_result(t), 0);
    assert_int_equal(c[0].result, (int)WEFT_IO_READ);
    assert_int_equal(weft_sig_waiters(SIGUSR1), 0); /* the clause left */
    char b;
    assert_int_equal(read(sv[0], &b, 1), 1);
    assert_int_equal(weft_sig_raise(SIGUSR1), 0);
    assert_int_equal(weft_sig_wait_until(SIGUSR1, 0), 0);
    assert_int_equal(weft_sig_wait_until(SIGUSR1, 0), WEFT_ETIMEDOUT);
}

/* Clauses {IO, SIGNAL, FD ready}: the fd wins while arming; disarming the
 * IO clause runs group(), which raises SIGUSR1 while the signal clause is
 * still queued on a wait already won. The delivery must stay pending. */
static void test_lost_race_keeps_delivery(void **state)
{
    (void)state;
    assert_int_equal(weft_sig_set_mode(SIGUSR1, WEFT_SIG_WAKE_ONE), 0);
    weft_clause c[3] = {
        { .kind = WEFT_CLAUSE_IO, .io = h },
        { .kind = WEFT_CLAUSE_SIGNAL, .sig = SIGUSR1 },
        { .kind = WEFT_CLAUSE_FD, .fd = sv[0], .events = WEFT_IO_READ },
    };
    assert_int_equal(write(sv[1], "y", 1), 1);
    atomic_store(&raise_on_empty, 1);
    assert_int_equal(weft_wait_any(c, 3, WEFT_FOREVER), 2);
    atomic_store(&raise_on_empty, 0);
    assert_int_equal(weft_sig_count(SIGUSR1) > 0, 1);
    assert_int_equal(weft_sig_waiters(SIGUSR1), 0);
    assert_int_equal(weft_sig_wait_until(SIGUSR1, 0), 0);
    char b;
    assert_int_equal(read(sv[0], &b, 1), 1);
}

static void test_unset_signal_is_invalid(void **state)
{
    (void)state;
    weft_clause c = { .kind = WEFT_CLAUSE_SIGNAL, .sig = SIGUSR2 }; /* never set */
    assert_int_equal(weft_wait_any(&c, 1, 0), WEFT_EINVAL);
    c.sig = 0;
    assert_int_equal(weft_wait_any(&c, 1, 0), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raise_wakes_signal_clause),
        cmocka_unit_test(test_fd_first_keeps_later_delivery),
        cmocka_unit_test(test_lost_race_keeps_delivery),
        cmocka_unit_test(test_unset_signal_is_invalid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
