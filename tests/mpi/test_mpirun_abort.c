/* An abort from one rank (wmpi_boot_abort, what MPI_Abort calls) stops the
 * sleeping others; mpirun exits with the abort code (its low byte, 1 if
 * that is 0) and prints the rank and its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_abort_stops_others(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "4", WT_PROG, "abort", "1", "5", "boom\nnow"),
                    NULL, 0, 60);
    assert_int_equal(st, 5);
    assert_non_null(strstr(j.err, "mpirun: rank 1 (pid "));
    assert_non_null(strstr(j.err, ") aborted the job with error code 5: boom now\n"));
    assert_int_equal(wt_count_lines(j.err, "mpirun: "), 1);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_abort_code_256_is_failure(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", WT_PROG, "abort", "0", "256", ""),
                    NULL, 0, 60);
    assert_int_equal(st, 1);
    assert_non_null(strstr(j.err, "aborted the job with error code 256\n"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abort_stops_others),
        cmocka_unit_test(test_abort_code_256_is_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
