/* Wake-one semantics (POSIX sigwait-like, WEFT_SIG_WAKE_ONE): a delivery
 * wakes exactly one waiter, the one that has waited longest; a delivery
 * with no waiter is kept pending and consumed by the next wait, which
 * returns at once; at most one delivery is pending (a second one merges
 * into it). Raise and kill() behave alike.
 */
#include "test_support.h"

#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include <weft.h>

#define SIG     SIGUSR2
#define NWAIT   3
#define HANG_NS 10000000000LL /* hang guard only, never a timing check */

#define WAIT_UNTIL(cond)                                                    \
    do {                                                                    \
        int64_t end_ = wt_now_ns() + HANG_NS;                               \
        while (!(cond) && wt_now_ns() < end_)                               \
            weft_thread_yield();                                            \
        assert_true(cond);                                                  \
    } while (0)

static atomic_int woken, bad_rc;
static int wake_order[NWAIT];

static void *wait_once(void *arg)
{
    int rc = weft_sig_wait(SIG);
    if (rc != 0)
        atomic_fetch_add(&bad_rc, 1);
    wake_order[atomic_fetch_add(&woken, 1) % NWAIT] = (int)(long)arg;
    return NULL;
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    if (weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ONE) != 0)
        return -1;
    return weft_sig_set(SIG);
}

static int teardown(void **state)
{
    if (weft_sig_clear(SIG) != 0 || weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ALL) != 0)
        return -1;
    return wt_runtime_teardown(state);
}

/* Waiters 0, 1, 2 queue in that order. */
static void start_waiters(weft_thread_t *t)
{
    atomic_store(&woken, 0);
    for (long i = 0; i < NWAIT; i++) {
        assert_int_equal(weft_thread_create(&t[i], NULL, wait_once, (void *)i), 0);
        WAIT_UNTIL(weft_sig_waiters(SIG) == i + 1);
    }
}

static void test_one_waiter_per_delivery_oldest_first(void **state)
{
    (void)state;
    weft_thread_t t[NWAIT];
    assert_int_equal(weft_sig_get_mode(SIG), WEFT_SIG_WAKE_ONE);
    start_waiters(t);
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_sig_waiters(SIG), NWAIT - 1);
    assert_int_equal(weft_thread_join(t[0], NULL), 0);
    assert_int_equal(atomic_load(&woken), 1);
    assert_int_equal(wake_order[0], 0);

    assert_int_equal(kill(getpid(), SIG), 0);
    assert_int_equal(weft_thread_join(t[1], NULL), 0);
    assert_int_equal(atomic_load(&woken), 2);
    assert_int_equal(weft_sig_waiters(SIG), 1);

    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_thread_join(t[2], NULL), 0);
    assert_int_equal(atomic_load(&woken), NWAIT);
    assert_int_equal(atomic_load(&bad_rc), 0);
}

static void test_delivery_without_waiter_is_pending(void **state)
{
    (void)state;
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_sig_wait(SIG), 0); /* consumes it at once */
    assert_int_equal(weft_sig_waiters(SIG), 0);
}

static void test_kernel_delivery_without_waiter_is_pending(void **state)
{
    (void)state;
    int64_t before = weft_sig_count(SIG);
    assert_int_equal(kill(getpid(), SIG), 0);
    WAIT_UNTIL(weft_sig_count(SIG) == before + 1);
    assert_int_equal(weft_sig_wait(SIG), 0);
}

static void test_at_most_one_pending(void **state)
{
    (void)state;
    weft_thread_t t;
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_sig_raise(SIG), 0); /* merges into the first */
    assert_int_equal(weft_sig_wait(SIG), 0);
    atomic_store(&woken, 0);
    assert_int_equal(weft_thread_create(&t, NULL, wait_once, (void *)0), 0);
    WAIT_UNTIL(weft_sig_waiters(SIG) == 1); /* nothing left: it blocks */
    assert_int_equal(atomic_load(&woken), 0);
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&woken), 1);
}

static void test_leaving_wake_one_drops_pending(void **state)
{
    (void)state;
    weft_thread_t t;
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ALL), 0);
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ONE), 0);
    atomic_store(&woken, 0);
    assert_int_equal(weft_thread_create(&t, NULL, wait_once, (void *)0), 0);
    WAIT_UNTIL(weft_sig_waiters(SIG) == 1);
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_waiter_per_delivery_oldest_first),
        cmocka_unit_test(test_delivery_without_waiter_is_pending),
        cmocka_unit_test(test_kernel_delivery_without_waiter_is_pending),
        cmocka_unit_test(test_at_most_one_pending),
        cmocka_unit_test(test_leaving_wake_one_drops_pending),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
