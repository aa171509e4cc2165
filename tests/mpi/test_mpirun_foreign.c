/* A rank program started without Weft's mpirun: alone it runs as a
 * singleton (rank 0 of 1); where the environment shows another launcher
 * that started it as one rank of several (Open MPI's mpirun, Slurm's srun,
 * a PMI or PMIx launcher), init fails with one line naming that launcher,
 * instead of running as one of N silent one-rank jobs. A launcher's
 * variables that describe a job of one rank still give a singleton. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

/* Run the rank program directly with `var`=`value` set (or nothing if
 * var is NULL); its exit status. */
static int run_alone(struct wt_job *j, const char *var, const char *value)
{
    if (var)
        setenv(var, value, 1);
    int st = wt_run(j, WT_ARGV(WT_PROG, "ok"), NULL, 0, 60);
    if (var)
        unsetenv(var);
    return st;
}

static void expect_singleton(const char *var, const char *value)
{
    struct wt_job j;
    assert_int_equal(run_alone(&j, var, value), 0);
    assert_non_null(strstr(j.out, "rank 0 ok\n"));
    wt_job_free(&j);
}

static void expect_refused(const char *var, const char *value, const char *launcher)
{
    struct wt_job j;
    char line[256];
    snprintf(line, sizeof line, "weft mpi: started by %s, which Weft cannot join yet; ",
             launcher);
    assert_int_not_equal(run_alone(&j, var, value), 0);
    assert_non_null(strstr(j.err, line));
    assert_null(strstr(j.out, "rank 0 ok"));
    wt_job_free(&j);
}

static void test_alone_is_a_singleton(void **state)
{
    (void)state;
    expect_singleton(NULL, NULL);
}

static void test_job_of_one_is_a_singleton(void **state)
{
    (void)state;
    expect_singleton("OMPI_COMM_WORLD_SIZE", "1");
    expect_singleton("PMIX_RANK", "0");
    expect_singleton("SLURM_STEP_NUM_TASKS", "1");
}

static void test_other_launchers_are_named(void **state)
{
    (void)state;
    expect_refused("OMPI_COMM_WORLD_SIZE", "2", "Open MPI's mpirun");
    expect_refused("PMIX_RANK", "1", "a PMIx launcher (srun --mpi=pmix, Open MPI's mpirun)");
    expect_refused("SLURM_STEP_NUM_TASKS", "4", "Slurm's srun");
    expect_refused("PMI_SIZE", "2", "a PMI launcher (srun --mpi=pmi2, MPICH's mpiexec)");
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alone_is_a_singleton),
        cmocka_unit_test(test_job_of_one_is_a_singleton),
        cmocka_unit_test(test_other_launchers_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
