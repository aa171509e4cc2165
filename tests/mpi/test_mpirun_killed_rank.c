/* A rank killed from outside mid-job: mpirun stops the other ranks, exits
 * with 128 + 9 and names the rank, its pid and the signal on stderr. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_killed_rank_stops_job(void **state)
{
    (void)state;
    struct wt_job j;
    pid_t pids[4];
    char want[128];
    assert_int_equal(wt_job_start(&j, WT_ARGV(WT_MPIRUN, "-n", "4", WT_PROG, "hang"), NULL, 0), 0);
    assert_int_equal(wt_job_wait_lines(&j, "ready ", 4, 60), 0);
    assert_int_equal(wt_ready_pids(&j, pids, 4), 0);
    kill(pids[2], SIGKILL);
    assert_int_equal(wt_job_finish(&j, 60), 128 + SIGKILL);
    snprintf(want, sizeof want, "mpirun: rank 2 (pid %d) was killed by signal 9 (Killed)\n",
             (int)pids[2]);
    assert_non_null(strstr(j.err, want));
    assert_int_equal(wt_count_lines(j.err, "mpirun: "), 1); /* only the cause */
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_killed_rank_stops_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
