/* Ctrl-C (SIGINT) or SIGTERM to mpirun stops every rank; mpirun exits with
 * 128 + the signal and leaves nothing behind. Ranks that ignore SIGTERM
 * get SIGKILL after the default grace of 1 s (mpirun -v says so). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void interrupt_with(int sig, const char *want)
{
    struct wt_job j;
    assert_int_equal(wt_job_start(&j, WT_ARGV(WT_MPIRUN, "-n", "3", WT_PROG, "hang"), NULL, 0), 0);
    assert_int_equal(wt_job_wait_lines(&j, "ready ", 3, 60), 0);
    kill(j.pid, sig);
    assert_int_equal(wt_job_finish(&j, 60), 128 + sig);
    assert_non_null(strstr(j.err, want));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_sigint(void **state)
{
    (void)state;
    interrupt_with(SIGINT, "mpirun: caught signal 2 (Interrupt); stopping the job\n");
}

static void test_sigterm(void **state)
{
    (void)state;
    interrupt_with(SIGTERM, "mpirun: caught signal 15 (Terminated); stopping the job\n");
}

static void test_sigint_ranks_ignoring_term(void **state)
{
    (void)state;
    struct wt_job j;
    unsetenv("WEFT_MPIRUN_KILL_GRACE");
    setenv("BOOT_PROG_IGNORE_TERM", "1", 1);
    int started = wt_job_start(&j, WT_ARGV(WT_MPIRUN, "-v", "-n", "2", WT_PROG, "hang"), NULL, 0);
    unsetenv("BOOT_PROG_IGNORE_TERM");
    assert_int_equal(started, 0);
    assert_int_equal(wt_job_wait_lines(&j, "ready ", 2, 60), 0);
    kill(j.pid, SIGINT);
    assert_int_equal(wt_job_finish(&j, 60), 128 + SIGINT);
    assert_non_null(strstr(j.err, "mpirun: ranks still alive 1 s after SIGTERM: sending SIGKILL\n"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint),
        cmocka_unit_test(test_sigterm),
        cmocka_unit_test(test_sigint_ranks_ignoring_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
