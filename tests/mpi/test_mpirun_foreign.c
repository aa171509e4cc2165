/* A rank program started without Weft's mpirun: alone it runs as a
 * singleton (rank 0 of 1); under Open MPI's mpirun it joins the job through
 * PMIx (when Weft was built with PMIx and Open MPI is installed: the tests
 * otherwise skip), all-gathers, runs MPI traffic and collectives over TCP
 * and shared memory, gets MPI_APPNUM from an MPMD line, and an abort ends
 * the job with its code; where the environment shows a launcher Weft
 * cannot talk to (PMI-1/PMI-2, Slurm without PMIx, a PMIx rank whose
 * server does not answer), init fails with one line naming that launcher,
 * instead of running as one of N silent one-rank jobs. A launcher's
 * variables that describe a job of one rank still give a singleton.
 *
 * Arguments: mpirun, boot_prog, mpi_prog (launch_harness.h); Open MPI's
 * mpirun is WT_OMPI_MPIRUN, set by the build ("" if absent). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>

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

/* -------------------------------------------------- under Open MPI's mpirun */

#define OMPI_BOUND_S 20 /* seconds a job under Open MPI's mpirun may take */

/* Skip unless Weft has PMIx and Open MPI's mpirun is there to start it. */
static void need_ompi(void)
{
    struct stat st;
    if (!WT_HAVE_PMIX || !*WT_OMPI_MPIRUN || stat(WT_OMPI_MPIRUN, &st) != 0) {
        print_message("Open MPI's mpirun or Weft's PMIx support is missing: skipped\n");
        skip();
    }
}

/* Open MPI's mpirun -n `np` with the rest of argv; its status. */
static int run_ompi(struct wt_job *j, const char *np, char *prog, char *arg1, char *arg2,
                    char *arg3, char *arg4)
{
    return wt_run(j, WT_ARGV((char *)WT_OMPI_MPIRUN, "-n", (char *)np, "--oversubscribe",
                             "--timeout", "15", prog, arg1, arg2, arg3, arg4),
                  NULL, 0, OMPI_BOUND_S);
}

static void test_openmpi_mpirun_bootstraps(void **state)
{
    (void)state;
    need_ompi();
    struct wt_job j;
    int st = run_ompi(&j, "3", WT_PROG, "ok", NULL, NULL, NULL);
    WT_ASSERT_STATUS(&j, st, st == 0);
    for (int r = 0; r < 3; r++) {
        char line[32];
        snprintf(line, sizeof line, "rank %d ok\n", r);
        assert_non_null(strstr(j.out, line));
    }
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

/* Every pair over shared memory, messages both sides of the eager limit,
 * and the collectives, among 4 ranks Open MPI's mpirun started. */
static void test_openmpi_mpirun_runs_mpi(void **state)
{
    (void)state;
    need_ompi();
    struct wt_job j;
    int st = run_ompi(&j, "4", WT_MPI_PROG, "mesh", NULL, NULL, NULL);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), 4);
    for (int r = 0; r < 4; r++) {
        char line[64];
        snprintf(line, sizeof line, "rank %d mesh ok ", r);
        assert_non_null(strstr(j.out, line));
    }
    assert_null(strstr(j.out, "memfd_maps=0"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

/* Over TCP every connection between ranks presents the job's secret,
 * which rank 0 handed to the others through the PMIx server: the mesh
 * completes only if every rank got the same one. */
static void test_openmpi_mpirun_tcp_secret(void **state)
{
    (void)state;
    need_ompi();
    struct wt_job j;
    setenv("WEFT_MPI_TRANSPORT", "tcp", 1);
    int st = run_ompi(&j, "3", WT_MPI_PROG, "mesh", NULL, NULL, NULL);
    unsetenv("WEFT_MPI_TRANSPORT");
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), 3);
    assert_int_equal(wt_count_lines(j.out, "rank 0 mesh ok "), 1);
    assert_null(strstr(j.out, "memfd_maps=1"));
    assert_null(strstr(j.out, "memfd_maps=2"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

/* An MPMD line: MPI_APPNUM comes from PMIx (PMIX_APPNUM). */
static void test_openmpi_mpirun_appnum(void **state)
{
    (void)state;
    need_ompi();
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV((char *)WT_OMPI_MPIRUN, "--oversubscribe", "--timeout", "15",
                                "-n", "1", WT_MPI_PROG, "whoami", ":", "-n", "2", WT_MPI_PROG,
                                "whoami"),
                    NULL, 0, OMPI_BOUND_S);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_non_null(strstr(j.out, "rank 0 size 3 appnum 0 "));
    assert_non_null(strstr(j.out, "rank 1 size 3 appnum 1 "));
    assert_non_null(strstr(j.out, "rank 2 size 3 appnum 1 "));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_openmpi_mpirun_abort(void **state)
{
    (void)state;
    need_ompi();
    struct wt_job j;
    int st = run_ompi(&j, "3", WT_PROG, "abort", "1", "7", "out of cheese");
    WT_ASSERT_STATUS(&j, st, st == 7);
    assert_non_null(
        strstr(j.err, "weft mpi: rank 1 aborted the job with error code 7: out of cheese"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

/* PMIx's variables without a server behind them: refused, and fast. */
static void test_pmix_without_server_is_refused(void **state)
{
    (void)state;
    struct wt_job j;
    setenv("PMIX_NAMESPACE", "weft-test-nobody", 1);
    int st = run_alone(&j, "PMIX_RANK", "0");
    unsetenv("PMIX_NAMESPACE");
    assert_int_not_equal(st, 0);
    assert_non_null(strstr(j.err, "weft mpi: started by a PMIx launcher (srun --mpi=pmix, "
                                  "Open MPI's mpirun), which Weft cannot join ("));
    assert_null(strstr(j.out, "rank 0 ok"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    /* CI runs as root, which Open MPI's mpirun refuses unless told. */
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alone_is_a_singleton),
        cmocka_unit_test(test_job_of_one_is_a_singleton),
        cmocka_unit_test(test_other_launchers_are_named),
        cmocka_unit_test(test_pmix_without_server_is_refused),
        cmocka_unit_test(test_openmpi_mpirun_bootstraps),
        cmocka_unit_test(test_openmpi_mpirun_runs_mpi),
        cmocka_unit_test(test_openmpi_mpirun_tcp_secret),
        cmocka_unit_test(test_openmpi_mpirun_appnum),
        cmocka_unit_test(test_openmpi_mpirun_abort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
