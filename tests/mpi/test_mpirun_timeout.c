/* --timeout stops a hung job: every rank is stopped, mpirun says why and
 * exits 124; a rank that ignores SIGTERM is killed after the grace period. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_timeout_kills_hung_job(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--timeout", "2", "-n", "3", WT_PROG, "hang"),
                    NULL, 0, 60);
    assert_int_equal(st, 124);
    assert_non_null(strstr(j.err, "mpirun: the job did not finish within --timeout 2 s"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_sigterm_ignored_then_sigkill(void **state)
{
    (void)state;
    struct wt_job j;
    setenv("BOOT_PROG_IGNORE_TERM", "1", 1);
    setenv("WEFT_MPIRUN_KILL_GRACE", "1", 1);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--timeout=1", "-n", "2", WT_PROG, "hang"),
                    NULL, 0, 60);
    unsetenv("BOOT_PROG_IGNORE_TERM");
    unsetenv("WEFT_MPIRUN_KILL_GRACE");
    assert_int_equal(st, 124);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeout_kills_hung_job),
        cmocka_unit_test(test_sigterm_ignored_then_sigkill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
