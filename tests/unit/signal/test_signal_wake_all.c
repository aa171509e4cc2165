/* Wake-all semantics (ARIADNE, the default): a delivery wakes every thread
 * waiting on the signal, ULTs and external pthreads alike, each once; a
 * delivery with no waiter is not kept. Both ways of delivering are
 * checked: weft_sig_raise (no kernel crossing) and kill().
 */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include <weft.h>

#define SIG         SIGUSR1
#define NULTS       3
#define HANG_NS     10000000000LL /* hang guard only, never a timing check */

#define WAIT_UNTIL(cond)                                                    \
    do {                                                                    \
        int64_t end_ = wt_now_ns() + HANG_NS;                               \
        while (!(cond) && wt_now_ns() < end_)                               \
            weft_thread_yield();                                            \
        assert_true(cond);                                                  \
    } while (0)

static atomic_int woken, bad_rc;

static void *wait_once(void *arg)
{
    (void)arg;
    int rc = weft_sig_wait(SIG);
    if (rc != 0)
        atomic_fetch_add(&bad_rc, 1);
    atomic_fetch_add(&woken, 1);
    return NULL;
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_sig_set(SIG);
}

static int teardown(void **state)
{
    if (weft_sig_clear(SIG) != 0)
        return -1;
    return wt_runtime_teardown(state);
}

/* Start NULTS ULT waiters and one external waiter; return once all four
 * are blocked in weft_sig_wait. */
static void start_waiters(weft_thread_t *t, pthread_t *ext)
{
    atomic_store(&woken, 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, wait_once, NULL), 0);
    assert_int_equal(pthread_create(ext, NULL, wait_once, NULL), 0);
    WAIT_UNTIL(weft_sig_waiters(SIG) == NULTS + 1);
    assert_int_equal(atomic_load(&woken), 0);
}

static void join_waiters(weft_thread_t *t, pthread_t ext)
{
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(pthread_join(ext, NULL), 0);
    assert_int_equal(atomic_load(&woken), NULTS + 1);
    assert_int_equal(atomic_load(&bad_rc), 0);
    assert_int_equal(weft_sig_waiters(SIG), 0);
}

static void test_raise_wakes_every_waiter(void **state)
{
    (void)state;
    weft_thread_t t[NULTS];
    pthread_t ext;
    int64_t before = weft_sig_count(SIG);
    start_waiters(t, &ext);
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_sig_waiters(SIG), 0); /* all taken at once */
    join_waiters(t, ext);
    assert_int_equal(weft_sig_count(SIG), before + 1);
}

static void test_kill_wakes_every_waiter(void **state)
{
    (void)state;
    weft_thread_t t[NULTS];
    pthread_t ext;
    int64_t before = weft_sig_count(SIG);
    start_waiters(t, &ext);
    assert_int_equal(kill(getpid(), SIG), 0);
    join_waiters(t, ext);
    assert_int_equal(weft_sig_count(SIG), before + 1);
}

static void test_delivery_without_waiter_is_not_kept(void **state)
{
    (void)state;
    weft_thread_t t;
    assert_int_equal(weft_sig_get_mode(SIG), WEFT_SIG_WAKE_ALL);
    assert_int_equal(weft_sig_raise(SIG), 0); /* nobody waits: dropped */
    atomic_store(&woken, 0);
    assert_int_equal(weft_thread_create(&t, NULL, wait_once, NULL), 0);
    WAIT_UNTIL(weft_sig_waiters(SIG) == 1); /* it blocked: nothing pending */
    assert_int_equal(atomic_load(&woken), 0);
    assert_int_equal(weft_sig_raise(SIG), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&woken), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raise_wakes_every_waiter),
        cmocka_unit_test(test_kill_wakes_every_waiter),
        cmocka_unit_test(test_delivery_without_waiter_is_not_kept),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
