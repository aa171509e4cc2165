/* MPMD: "mpirun -n 1 A : -n 2 B" runs one MPI_COMM_WORLD of 3 ranks, A's
 * first; each rank's MPI_APPNUM (and WEFT_MPI_APPNUM) is its program's
 * index; -env, -x and -wd after a ':' apply to that program only, those
 * before the first program to every one. A program of a ':' line without
 * -n, or a job option after a ':', is a usage error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

#define LINK_B "wt_mpmd_b" /* a second name for mpi_prog, in the test's directory */

static void want_lines(const char *out, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strstr(out, want[i]))
            fail_msg("missing \"%s\" in:\n%s", want[i], out);
}

static void test_world_of_three(void **state)
{
    (void)state;
    struct wt_job j;
    unlink(LINK_B);
    assert_int_equal(symlink(WT_MPI_PROG, LINK_B), 0);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-x", "WT_ALL=1", "-n", "1", WT_MPI_PROG, "whoami",
                                "WT_ALL", "WT_B", "WEFT_MPI_APPNUM", ":", "-n", "2", "-env",
                                "WT_B", "b b", "./" LINK_B, "whoami", "WT_ALL", "WT_B",
                                "WEFT_MPI_APPNUM"),
                    NULL, 0, 60);
    unlink(LINK_B);
    WT_ASSERT_STATUS(&j, st, st == 0);
    const char *prog = strrchr(WT_MPI_PROG, '/');
    char first[256];
    snprintf(first, sizeof first, "rank 0 size 3 appnum 0 prog %s\n",
             prog ? prog + 1 : WT_MPI_PROG);
    const char *want[] = {
        first, "rank 1 size 3 appnum 1 prog " LINK_B "\n",
        "rank 2 size 3 appnum 1 prog " LINK_B "\n",
        "rank 0 WT_ALL=1\n", "rank 2 WT_ALL=1\n",
        "rank 0 WT_B unset\n", "rank 1 WT_B=b b\n", "rank 2 WT_B=b b\n",
        "rank 0 WEFT_MPI_APPNUM=0\n", "rank 1 WEFT_MPI_APPNUM=1\n",
    };
    want_lines(j.out, want, sizeof want / sizeof want[0]);
    assert_null(strstr(j.out, "rank 3"));
    wt_job_free(&j);
}

/* -wd after a ':' is that program's; before the first, everyone's. */
static void test_wdir_per_program(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-wd", "/", "-n", "1", "/bin/pwd", ":", "-n", "1",
                                "-wd", "/tmp", "/bin/pwd"),
                    NULL, 0, 60);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "/\n"), 1);
    assert_int_equal(wt_count_lines(j.out, "/tmp\n"), 1);
    wt_job_free(&j);
}

static void test_usage_errors(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "1", WT_PROG, "ok", ":", WT_PROG, "ok"),
                    NULL, 0, 60);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "of a ':' line needs -n"));
    wt_job_free(&j);
    st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "1", WT_PROG, "ok", ":", "-n", "1", "--timeout",
                            "5", WT_PROG, "ok"),
                NULL, 0, 60);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "'--timeout' is an option of the whole job"));
    wt_job_free(&j);
    st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "1", WT_PROG, "ok", ":"), NULL, 0, 60);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "no program to run after ':'"));
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_world_of_three),
        cmocka_unit_test(test_wdir_per_program),
        cmocka_unit_test(test_usage_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
