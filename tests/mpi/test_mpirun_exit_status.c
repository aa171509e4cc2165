/* mpirun's exit status: 0 when every rank finishes cleanly (or never uses
 * MPI), else the failing rank's exit code, named on stderr; 127 when the
 * program cannot be started. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_all_ranks_ok(void **state)
{
    (void)state;
    struct wt_job j;
    assert_int_equal(wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "3", WT_PROG, "ok"), NULL, 0, 60), 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), 3);
    assert_string_equal(j.err, "");
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_rank_exit_code(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-np", "3", WT_PROG, "exit", "1", "7"), NULL, 0, 60);
    assert_int_equal(st, 7);
    assert_non_null(strstr(j.err, "mpirun: rank 1 (pid "));
    assert_non_null(strstr(j.err, ") exited with code 7"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_program_without_mpi(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", WT_PROG, "env", "HOME"), NULL, 0, 60);
    assert_int_equal(st, 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), 2);
    wt_job_free(&j);
}

static void test_missing_program(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "./no-such-program-here"), NULL, 0, 60);
    assert_int_equal(st, 127);
    assert_non_null(strstr(j.err, "cannot start rank 0"));
    assert_non_null(strstr(j.err, "No such file or directory"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_ranks_ok),
        cmocka_unit_test(test_rank_exit_code),
        cmocka_unit_test(test_program_without_mpi),
        cmocka_unit_test(test_missing_program),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
