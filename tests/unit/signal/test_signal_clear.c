/* weft_sig_clear: threads blocked in weft_sig_wait (ULTs and an external
 * pthread) return WEFT_ECANCELED; the action installed before weft_sig_set
 * (here SIG_IGN) is back; a pending wake-one delivery is dropped, so after
 * setting the signal again a wait blocks until the next delivery; waiting
 * on the cleared signal gives WEFT_EINVAL.
 */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <weft.h>

#define SIG     SIGHUP
#define NULTS   3
#define HANG_NS 10000000000LL /* hang guard only, never a timing check */

#define WAIT_UNTIL(cond)                                                    \
    do {                                                                    \
        int64_t end_ = wt_now_ns() + HANG_NS;                               \
        while (!(cond) && wt_now_ns() < end_)                               \
            weft_thread_yield();                                            \
        assert_true(cond);                                                  \
    } while (0)

static atomic_int canceled, other_rc, returned;

static void *wait_once(void *arg)
{
    (void)arg;
    int rc = weft_sig_wait(SIG);
    atomic_fetch_add(rc == WEFT_ECANCELED ? &canceled : &other_rc, 1);
    atomic_fetch_add(&returned, 1);
    return NULL;
}

static void test_clear_cancels_waiters_and_restores_action(void **state)
{
    (void)state;
    struct sigaction ign, now;
    weft_thread_t t[NULTS];
    pthread_t ext;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    assert_int_equal(sigaction(SIG, &ign, NULL), 0);

    assert_int_equal(weft_sig_set(SIG), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, wait_once, NULL), 0);
    assert_int_equal(pthread_create(&ext, NULL, wait_once, NULL), 0);
    WAIT_UNTIL(weft_sig_waiters(SIG) == NULTS + 1);
    assert_int_equal(weft_sig_clear(SIG), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(pthread_join(ext, NULL), 0);
    assert_int_equal(atomic_load(&canceled), NULTS + 1);
    assert_int_equal(atomic_load(&other_rc), 0);

    assert_int_equal(sigaction(SIG, NULL, &now), 0);
    assert_true(now.sa_handler == SIG_IGN);
    assert_int_equal(weft_sig_wait(SIG), WEFT_EINVAL);
}

static void test_clear_drops_pending(void **state)
{
    (void)state;
    weft_thread_t t;
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ONE), 0);
    assert_int_equal(weft_sig_set(SIG), 0);
    assert_int_equal(weft_sig_raise(SIG), 0); /* pending */
    assert_int_equal(weft_sig_clear(SIG), 0);
    assert_int_equal(weft_sig_set(SIG), 0);
    atomic_store(&returned, 0);
    assert_int_equal(weft_thread_create(&t, NULL, wait_once, NULL), 0);
    WAIT_UNTIL(weft_sig_waiters(SIG) == 1); /* the pending one is gone */
    assert_int_equal(atomic_load(&returned), 0);
    assert_int_equal(weft_sig_clear(SIG), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_sig_set_mode(SIG, WEFT_SIG_WAKE_ALL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clear_cancels_waiters_and_restores_action),
        cmocka_unit_test(test_clear_drops_pending),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
