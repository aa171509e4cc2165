/* weft_sig_wait_until: a wait with a deadline.
 *
 * It returns WEFT_ETIMEDOUT when nothing comes, never before the deadline,
 * and leaves no waiter behind; 0 when a delivery comes first; a deadline
 * of 0 only takes a pending delivery. Under wake-one a delivery is never
 * spent on a waiter that reports a time-out: waiters with short deadlines
 * race a raiser, and every raise is accounted for exactly, as a wait that
 * returned 0 or as the one delivery left pending at the end.
 */
#include "test_support.h"

#include <signal.h>
#include <stdatomic.h>
#include <weft.h>

#define SIG      SIGUSR1
#define NWAITERS 6
#define NROUNDS  400
#define NRAISES  3000

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_sig_set(SIG);
}

static int teardown(void **state)
{
    if (weft_sig_clear(SIG) != 0 || weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ALL) != 0)
        return -1;
    return wt_runtime_teardown(state);
}

static void test_times_out_not_early(void **state)
{
    (void)state;
    int64_t deadline = weft_now() + 2000000; /* 2 ms */
    assert_int_equal(weft_sig_wait_until(SIG, deadline), WEFT_ETIMEDOUT);
    assert_true(weft_now() >= deadline);
    assert_int_equal(weft_sig_waiters(SIG), 0);
}

static void *raise_soon(void *arg)
{
    (void)arg;
    while (weft_sig_waiters(SIG) < 1)
        weft_thread_yield();
    weft_sig_raise(SIG);
    return NULL;
}

static void test_delivery_before_deadline(void **state)
{
    (void)state;
    weft_thread_t t;
    assert_int_equal(weft_thread_create(&t, NULL, raise_soon, NULL), 0);
    assert_int_equal(weft_sig_wait_until(SIG, weft_now() + 3600000000000LL), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

static void test_zero_deadline_only_takes_pending(void **state)
{
    (void)state;
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ONE), 0);
    assert_int_equal(weft_sig_wait_until(SIG, 0), WEFT_ETIMEDOUT);
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_sig_wait_until(SIG, 0), 0);
    assert_int_equal(weft_sig_wait_until(SIG, 0), WEFT_ETIMEDOUT);
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ALL), 0);
}

/* ------------------------------------- time-outs racing deliveries */

static atomic_int got, timed_out, other, waiters_left;

static void *short_waits(void *arg)
{
    unsigned seed = (unsigned)(long)arg;
    for (int i = 0; i < NROUNDS; i++) {
        seed = seed * 1103515245u + 12345u;
        int64_t wait_ns = 20000 + (seed >> 8) % 200000; /* 20..220 us */
        int rc = weft_sig_wait_until(SIG, weft_now() + wait_ns);
        atomic_fetch_add(rc == 0 ? &got : rc == WEFT_ETIMEDOUT ? &timed_out : &other, 1);
    }
    atomic_fetch_sub(&waiters_left, 1);
    return NULL;
}

/* Raises only while someone waits: then no pending delivery can exist
 * (a waiter takes a pending one instead of queueing), so no raise merges
 * into another and each must be accounted for. */
static void *raiser(void *arg)
{
    int *raised = arg;
    while (*raised < NRAISES && atomic_load(&waiters_left) > 0) {
        if (weft_sig_waiters(SIG) > 0) {
            weft_sig_raise(SIG);
            (*raised)++;
        }
        weft_thread_yield();
    }
    return NULL;
}

static void test_timeout_never_swallows_wake_one_delivery(void **state)
{
    (void)state;
    weft_thread_t w[NWAITERS], r;
    int raised = 0;
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ONE), 0);
    atomic_store(&waiters_left, NWAITERS);
    for (long i = 0; i < NWAITERS; i++)
        assert_int_equal(weft_thread_create(&w[i], NULL, short_waits, (void *)(i + 1)), 0);
    assert_int_equal(weft_thread_create(&r, NULL, raiser, &raised), 0);
    assert_int_equal(weft_thread_join(r, NULL), 0);
    for (int i = 0; i < NWAITERS; i++)
        assert_int_equal(weft_thread_join(w[i], NULL), 0);
    int left = weft_sig_wait_until(SIG, 0) == 0; /* the pending one, if any */
    assert_int_equal(atomic_load(&other), 0);
    assert_int_equal(atomic_load(&got) + left, raised);
    assert_int_equal(atomic_load(&got) + atomic_load(&timed_out), NWAITERS * NROUNDS);
    assert_int_equal(weft_sig_waiters(SIG), 0);
    print_message("raised %d, delivered %d, timed out %d\n", raised,
                  atomic_load(&got), atomic_load(&timed_out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times_out_not_early),
        cmocka_unit_test(test_delivery_before_deadline),
        cmocka_unit_test(test_zero_deadline_only_takes_pending),
        cmocka_unit_test(test_timeout_never_swallows_wake_one_delivery),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
