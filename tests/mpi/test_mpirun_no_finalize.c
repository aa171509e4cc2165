/* A rank that exits 0 after MPI_Init without MPI_Finalize, or without ever
 * calling MPI_Init while the others did, fails the job: mpirun names it,
 * stops the others and exits 1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_exit_without_finalize(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "3", WT_PROG, "nofinalize", "2"), NULL, 0, 60);
    assert_int_equal(st, 1);
    assert_non_null(strstr(j.err, "mpirun: rank 2 (pid "));
    assert_non_null(strstr(j.err, ") exited with code 0 without calling MPI_Finalize\n"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_exit_without_init(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "3", WT_PROG, "noinit", "1"), NULL, 0, 60);
    assert_int_equal(st, 1);
    assert_non_null(strstr(j.err, "mpirun: rank 1 (pid "));
    assert_non_null(strstr(j.err, ") exited without calling MPI_Init, while the other ranks did"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_without_finalize),
        cmocka_unit_test(test_exit_without_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
