/* --bind-to none leaves each rank every CPU mpirun has (no share per rank,
 * no worker pinned, so threads a rank starts may run anywhere), where the
 * default gives two ranks one share each; WEFT_MPI_BIND=none alone does
 * what --bind-to none does; --report-bindings prints each
 * rank's CPUs; bad --bind-to and --map-by values are usage errors. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static int own_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* Each of the two ranks' main thread may run on every CPU. */
static void expect_every_cpu(struct wt_job *j)
{
    char want[64];
    for (int r = 0; r < 2; r++) {
        snprintf(want, sizeof want, "rank %d cpus=%d\n", r, own_cpus());
        if (!strstr(j->out, want))
            fail_msg("missing \"%s\" in:\n%s", want, j->out);
    }
}

static void test_bind_none(void **state)
{
    (void)state;
    struct wt_job j;
    char want[64];
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "--bind-to", "none", "--report-bindings",
                                WT_MPI_PROG, "whoami"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    expect_every_cpu(&j);
    for (int r = 0; r < 2; r++) {
        snprintf(want, sizeof want, "] MCW rank %d bound to CPUs ", r);
        assert_non_null(strstr(j.err, want));
    }
    wt_job_free(&j);
}

/* WEFT_MPI_BIND=none alone (WEFT_BIND unset) leaves the workers unpinned
 * too, so every rank's main thread is not on the first CPU. */
static void test_mpi_bind_none_alone(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "-x", "WEFT_MPI_BIND=none", WT_MPI_PROG,
                                "whoami"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    expect_every_cpu(&j);
    wt_job_free(&j);
}

static void test_default_shares(void **state)
{
    (void)state;
    struct wt_job j;
    if (own_cpus() < 2)
        skip();
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "--bind-to", "core", WT_MPI_PROG,
                                "whoami"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    char want[64];
    snprintf(want, sizeof want, "rank 1 cpus=%d\n", own_cpus() / 2);
    assert_non_null(strstr(j.out, want));
    wt_job_free(&j);
}

static void test_bad_values(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--bind-to", "cores", WT_PROG, "ok"), NULL, 0, 4);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "--bind-to 'cores': expected"));
    wt_job_free(&j);
    st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--map-by", "ppr:x:node", WT_PROG, "ok"), NULL, 0, 4);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "--map-by 'ppr:x:node': expected"));
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind_none),
        cmocka_unit_test(test_mpi_bind_none_alone),
        cmocka_unit_test(test_default_shares),
        cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
