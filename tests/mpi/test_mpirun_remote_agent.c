/* Ranks on "other hosts", started through the launch agent. The agent here
 * is `env WT_AGENT_HOST={host}`, which runs the command on this machine
 * with one more variable, so the whole remote path runs without ssh: the
 * helper (mpirun --weft-remote-exec), the secret passed on stdin, the
 * environment sent in the launch plan, stdin forwarding, and stopping
 * remote ranks. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

#define REMOTE(...)                                                                       \
    WT_ARGV(WT_MPIRUN, "--launch-agent", "env WT_AGENT_HOST={host}", "--control-address", \
            "127.0.0.1", "--host", "nodeA:2,nodeB:2", "-n", "4", WT_PROG, __VA_ARGS__)

static void test_remote_boot(void **state)
{
    (void)state;
    struct wt_job j;
    assert_int_equal(wt_run(&j, REMOTE("ok"), NULL, 0, 60), 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), 4);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_remote_env(void **state)
{
    (void)state;
    struct wt_job j;
    setenv("WEFT_TEST_FORWARDED", "yes", 1);
    int st = wt_run(&j, REMOTE("env", "WT_AGENT_HOST", "WEFT_MPI_HOST", "WEFT_MPI_LOCAL_RANK",
                               "WEFT_TEST_FORWARDED", "WEFT_MPI_SECRET"), NULL, 0, 60);
    assert_int_equal(st, 0);
    assert_non_null(strstr(j.out, "rank 1 WT_AGENT_HOST=nodeA\n"));
    assert_non_null(strstr(j.out, "rank 2 WT_AGENT_HOST=nodeB\n"));
    assert_non_null(strstr(j.out, "rank 2 WEFT_MPI_HOST=nodeB\n"));
    assert_non_null(strstr(j.out, "rank 2 WEFT_MPI_LOCAL_RANK=0\n"));
    assert_non_null(strstr(j.out, "rank 3 WEFT_TEST_FORWARDED=yes\n"));
    assert_non_null(strstr(j.out, "rank 3 WEFT_MPI_SECRET="));
    wt_job_free(&j);
}

static void test_remote_stdin(void **state)
{
    (void)state;
    struct wt_job j;
    const char data[] = "line one\nline two\n";
    assert_int_equal(wt_run(&j, REMOTE("stdin"), data, sizeof data - 1, 60), 0);
    unsigned long long sum = 0;
    for (size_t i = 0; i < sizeof data - 1; i++)
        sum = sum * 31 + (unsigned char)data[i];
    char want[96];
    snprintf(want, sizeof want, "rank 0 bytes=%zu sum=%llu\n", sizeof data - 1, sum);
    assert_non_null(strstr(j.out, want));
    assert_non_null(strstr(j.out, "rank 3 bytes=0 sum=0\n"));
    wt_job_free(&j);
}

static void test_remote_rank_killed(void **state)
{
    (void)state;
    struct wt_job j;
    pid_t pids[4];
    char want[128];
    assert_int_equal(wt_job_start(&j, REMOTE("hang"), NULL, 0), 0);
    assert_int_equal(wt_job_wait_lines(&j, "ready ", 4, 60), 0);
    assert_int_equal(wt_ready_pids(&j, pids, 4), 0);
    kill(pids[3], SIGKILL);
    assert_int_equal(wt_job_finish(&j, 60), 128 + SIGKILL);
    snprintf(want, sizeof want, "rank 3 (pid %d on host nodeB) was killed by signal 9",
             (int)pids[3]);
    assert_non_null(strstr(j.err, want));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_remote_interrupt(void **state)
{
    (void)state;
    struct wt_job j;
    assert_int_equal(wt_job_start(&j, REMOTE("hang"), NULL, 0), 0);
    assert_int_equal(wt_job_wait_lines(&j, "ready ", 4, 60), 0);
    kill(j.pid, SIGINT);
    assert_int_equal(wt_job_finish(&j, 60), 128 + SIGINT);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_remote_boot),
        cmocka_unit_test(test_remote_env),
        cmocka_unit_test(test_remote_stdin),
        cmocka_unit_test(test_remote_rank_killed),
        cmocka_unit_test(test_remote_interrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
