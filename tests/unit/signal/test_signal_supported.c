/* Which signals weft_sig_set accepts, and misuse of the other calls.
 *
 * Accepted (set, then cleared): SIGIO, SIGCHLD, SIGINT, SIGTERM, SIGUSR1,
 * SIGUSR2, SIGHUP and a real-time signal; setting twice is harmless.
 * Refused with WEFT_EINVAL: SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGURG (the
 * preemption signal), the other fault signals, 0, negative and too-large
 * numbers. A signal that has an application handler is refused with
 * WEFT_EBUSY and the handler is left alone. Wait, raise and clear on a
 * signal that is not set, and unknown modes, give WEFT_EINVAL.
 */
#include "test_support.h"

#include <signal.h>
#include <string.h>
#include <weft.h>

static void test_accepted(void **state)
{
    (void)state;
    const int ok[] = {SIGIO, SIGCHLD, SIGINT, SIGTERM, SIGUSR1, SIGUSR2,
                      SIGHUP, SIGRTMIN + 1};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        assert_int_equal(weft_sig_set(ok[i]), 0);
        assert_int_equal(weft_sig_set(ok[i]), 0); /* already set */
        assert_int_equal(weft_sig_waiters(ok[i]), 0);
    }
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        assert_int_equal(weft_sig_clear(ok[i]), 0);
}

static void test_refused(void **state)
{
    (void)state;
    const int bad[] = {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGURG, SIGILL,
                       SIGFPE, SIGTRAP, SIGABRT, SIGSYS, 0, -1, 65, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(weft_sig_set(bad[i]), WEFT_EINVAL);
        assert_int_equal(weft_sig_set_mode(bad[i], WEFT_SIG_WAKE_ONE), WEFT_EINVAL);
        assert_int_equal(weft_sig_get_mode(bad[i]), WEFT_EINVAL);
        assert_int_equal(weft_sig_waiters(bad[i]), WEFT_EINVAL);
        assert_int_equal(weft_sig_count(bad[i]), WEFT_EINVAL);
    }
}

static void app_handler(int sig)
{
    (void)sig;
}

static void test_foreign_handler_kept(void **state)
{
    (void)state;
    struct sigaction sa, old, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = app_handler;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
    assert_int_equal(weft_sig_set(SIGUSR2), WEFT_EBUSY);
    assert_int_equal(sigaction(SIGUSR2, &old, &now), 0);
    assert_ptr_equal(now.sa_handler, app_handler);
}

static void test_misuse_of_unset_signal(void **state)
{
    (void)state;
    assert_int_equal(weft_sig_wait(SIGUSR1), WEFT_EINVAL);
    assert_int_equal(weft_sig_raise(SIGUSR1), WEFT_EINVAL);
    assert_int_equal(weft_sig_clear(SIGUSR1), WEFT_EINVAL);
    assert_int_equal(weft_sig_set_mode(SIGUSR1, 2), WEFT_EINVAL);
    assert_int_equal(weft_sig_set_mode(SIGUSR1, -1), WEFT_EINVAL);
    assert_int_equal(weft_sig_get_mode(SIGUSR1), WEFT_SIG_WAKE_ALL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_foreign_handler_kept),
        cmocka_unit_test(test_misuse_of_unset_signal),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
