/* --bind-to none leaves each rank every CPU mpirun has (no share per rank,
 * no worker pinned, so threads a rank starts may run anywhere), where the
 * default gives two ranks one share each; WEFT_MPI_BIND=none alone does
 * what --bind-to none does; --bind-to hwthread gives as many ranks as CPUs
 * one CPU each, --bind-to socket on a one-package machine every rank the
 * whole package, --map-by socket there the default shares; --report-bindings
 * prints each rank's CPUs; bad --bind-to and --map-by values are usage
 * errors. (The deal on machines of several packages and threads per core:
 * tests/unit/mpi/test_mpi_bind_share.c.) */
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

/* Packages among the CPUs this process may use (1 if sysfs does not say). */
static int own_packages(void)
{
    cpu_set_t set;
    int firsts[64], n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        char path[96];
        int first = -1, seen = 0;
        if (!CPU_ISSET(cpu, &set))
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list",
                 cpu);
        FILE *f = fopen(path, "r");
        if (f && fscanf(f, "%d", &first) != 1)
            first = -1;
        if (f)
            fclose(f);
        for (int i = 0; i < n && !seen; i++)
            seen = firsts[i] == first;
        if (!seen && n < 64)
            firsts[n++] = first;
    }
    return n > 0 ? n : 1;
}

/* Every rank of an n-rank job with these --bind-to and --map-by values
 * reports `cpus` CPUs. */
static void expect_cpus_each(char *bind, char *map, int n, int cpus)
{
    struct wt_job j;
    char ns[16], want[64];
    snprintf(ns, sizeof ns, "%d", n);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", ns, "--bind-to", bind, "--map-by", map,
                                WT_MPI_PROG, "whoami"), NULL, 0, 6);
    WT_ASSERT_STATUS(&j, st, st == 0);
    for (int r = 0; r < n; r++) {
        snprintf(want, sizeof want, "rank %d cpus=%d\n", r, cpus);
        if (!strstr(j.out, want))
            fail_msg("--bind-to %s --map-by %s: missing \"%s\" in:\n%s", bind, map, want,
                     j.out);
    }
    wt_job_free(&j);
}

static void test_bind_levels(void **state)
{
    (void)state;
    int c = own_cpus();
    if (c < 2 || c > 8)
        skip();
    expect_cpus_each("hwthread", "slot", c, 1);
    if (own_packages() != 1)
        return;
    expect_cpus_each("socket", "slot", 2, c);
    expect_cpus_each("core", "socket", 2, c / 2);
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
        cmocka_unit_test(test_bind_levels),
        cmocka_unit_test(test_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
