/* mpirun inside a Slurm allocation, as its variables describe it
 * (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE), without a
 * Slurm daemon (ci/slurm.sh runs the real thing):
 *   - an allocation of this host with 3 tasks starts 3 ranks with no -n;
 *   - "127.0.0.[1-2]" with "2(x2)" is two local hosts of 2 slots: 4 ranks,
 *     started here (no launch agent);
 *   - --host on the command line wins over the allocation;
 *   - malformed variables stop mpirun before any rank starts, with a line
 *     naming the variable;
 *   - the parsers themselves (slurm.c, linked in): ranges, zero padding,
 *     several brackets, commas inside brackets, run-length task counts,
 *     and what they refuse.
 */
#include <errno.h>
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
#include "launcher.h"

static struct wt_job job;

/* slurm.c reports through mpirun's wl_say; here it goes to stderr. */
void wl_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static void allocation(const char *nodes, const char *tasks)
{
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("SLURM_JOB_NODELIST", nodes, 1);
    setenv("SLURM_TASKS_PER_NODE", tasks, 1);
}

static int teardown(void **state)
{
    (void)state;
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_NODELIST");
    unsetenv("SLURM_TASKS_PER_NODE");
    wt_job_clear(&job);
    return 0;
}

/* mpirun [extra] mpi_prog whoami; its status. */
static int whoami(const char *extra1, const char *extra2)
{
    if (extra1)
        return wt_run(&job, WT_ARGV(WT_MPIRUN, (char *)extra1, (char *)extra2, WT_MPI_PROG,
                                    "whoami"), NULL, 0, 30);
    return wt_run(&job, WT_ARGV(WT_MPIRUN, WT_MPI_PROG, "whoami"), NULL, 0, 30);
}

static void test_this_host_three_tasks(void **state)
{
    char host[256] = "";
    (void)state;
    assert_int_equal(gethostname(host, sizeof host - 1), 0);
    allocation(host, "3");
    int st = whoami(NULL, NULL);
    WT_ASSERT_STATUS(&job, st, st == 0);
    assert_int_equal(wt_count_lines(job.out, "rank "), 6); /* two lines a rank */
    assert_non_null(strstr(job.out, "rank 2 size 3 "));
}

static void test_two_local_hosts(void **state)
{
    (void)state;
    allocation("127.0.0.[1-2]", "2(x2)");
    int st = whoami(NULL, NULL);
    WT_ASSERT_STATUS(&job, st, st == 0);
    assert_non_null(strstr(job.out, "rank 3 size 4 "));
    assert_null(strstr(job.out, "rank 4 "));
}

static void test_host_option_wins(void **state)
{
    (void)state;
    allocation("127.0.0.[1-2]", "2(x2)");
    int st = whoami("--host", "localhost:1");
    WT_ASSERT_STATUS(&job, st, st == 0);
    assert_non_null(strstr(job.out, "rank 0 size 1 "));
}

static void test_malformed(void **state)
{
    (void)state;
    allocation("n[1-", "1");
    int st = whoami(NULL, NULL);
    WT_ASSERT_STATUS(&job, st, st != 0 && st != 124);
    assert_non_null(strstr(job.err, "SLURM_JOB_NODELIST=n[1-"));
    assert_int_equal(wt_count_lines(job.out, "rank "), 0);
    wt_job_clear(&job);
    allocation("127.0.0.1", "3(x2)");
    st = whoami(NULL, NULL);
    WT_ASSERT_STATUS(&job, st, st != 0 && st != 124);
    assert_non_null(strstr(job.err, "SLURM_TASKS_PER_NODE=3(x2)"));
    assert_int_equal(wt_count_lines(job.out, "rank "), 0);
}

/* ------------------------------------------------------------- parsers */

static void expect_hosts(const char *list, const char *want)
{
    char **names, joined[512] = "";
    int n;
    assert_int_equal(wl_slurm_expand_hosts(list, &names, &n), 0);
    for (int i = 0; i < n; i++) {
        strcat(joined, i ? " " : "");
        strcat(joined, names[i]);
    }
    wl_slurm_free_hosts(names, n);
    assert_string_equal(joined, want);
}

static void test_host_lists(void **state)
{
    (void)state;
    expect_hosts("vm", "vm");
    expect_hosts("n[1-3]", "n1 n2 n3");
    expect_hosts("n[08-11],gpu", "n08 n09 n10 n11 gpu");
    expect_hosts("r[1-2]c[1,3]", "r1c1 r1c3 r2c1 r2c3");
    expect_hosts("a[1,3-4]-ib,b", "a1-ib a3-ib a4-ib b");
    const char *bad[] = { "", "n[1-", "n[]", "n[3-1]", "n[x]", ",a", "a,,b", "n]1[" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char **names;
        int n;
        if (wl_slurm_expand_hosts(bad[i], &names, &n) != -EINVAL)
            fail_msg("'%s' was accepted", bad[i]);
        assert_int_equal(n, 0);
    }
}

static void test_tasks(void **state)
{
    int s[5];
    (void)state;
    assert_int_equal(wl_slurm_tasks("2(x3),1", s, 4), 0);
    assert_true(s[0] == 2 && s[1] == 2 && s[2] == 2 && s[3] == 1);
    assert_int_equal(wl_slurm_tasks("4", s, 1), 0);
    assert_int_equal(s[0], 4);
    assert_int_equal(wl_slurm_tasks("2(x3)", s, 2), -EINVAL); /* too many */
    assert_int_equal(wl_slurm_tasks("2", s, 2), -EINVAL);     /* too few */
    assert_int_equal(wl_slurm_tasks("2(x0)", s, 1), -EINVAL);
    assert_int_equal(wl_slurm_tasks("2(y3)", s, 1), -EINVAL);
    assert_int_equal(wl_slurm_tasks("x", s, 1), -EINVAL);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_this_host_three_tasks, teardown),
        cmocka_unit_test_teardown(test_two_local_hosts, teardown),
        cmocka_unit_test_teardown(test_host_option_wins, teardown),
        cmocka_unit_test_teardown(test_malformed, teardown),
        cmocka_unit_test(test_host_lists),
        cmocka_unit_test(test_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
