/* SIGUSR1, SIGUSR2, SIGTSTP and SIGCONT sent to mpirun reach every rank:
 * a rank that waits for SIGUSR1 exits 0 when mpirun gets it, and the job
 * ends 0. SIGTSTP stops the ranks and then mpirun itself; SIGCONT resumes
 * them all. Remote ranks get them through a launch agent that passes
 * signals on; through ssh, which cannot, mpirun says so and leaves them be
 * (rather than kill the ssh client, and the rank with it). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

#define NRANKS 2

/* The state letter of /proc/PID/stat (R, S, T...), or '?'. */
static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    return rp && rp[1] == ' ' ? rp[2] : '?';
}

/* Wait up to 3 s for pid to be stopped (want 1) or not (want 0). */
static int wait_stopped(pid_t pid, int want)
{
    for (int i = 0; i < 300; i++) {
        char s = proc_state(pid);
        if ((s == 'T') == want)
            return 0;
        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
    }
    return -1;
}

static void start(struct wt_job *j, pid_t *pids)
{
    char n[8];
    snprintf(n, sizeof n, "%d", NRANKS);
    assert_int_equal(wt_job_start(j, WT_ARGV(WT_MPIRUN, "-n", n, WT_MPI_PROG, "signals"), NULL,
                                  0), 0);
    assert_int_equal(wt_job_wait_lines(j, "ready ", NRANKS, 4), 0);
    assert_int_equal(wt_ready_pids(j, pids, NRANKS), 0);
}

/* Rank 0 here, rank 1 on "nodeR" through `agent`; mpirun gets SIGUSR1. */
static void start_remote(struct wt_job *j, const char *agent)
{
    assert_int_equal(wt_job_start(j, WT_ARGV(WT_MPIRUN, "--launch-agent", (char *)agent,
                                             "--control-address", "127.0.0.1", "--host",
                                             "localhost,nodeR", WT_MPI_PROG, "signals"),
                                  NULL, 0), 0);
    assert_int_equal(wt_job_wait_lines(j, "ready ", 2, 4), 0);
    kill(j->pid, SIGUSR1);
}

#define FAKE_SSH "wt_fake_ssh" /* runs the command here, like ssh to this host */

static void test_remote_ranks(void **state)
{
    (void)state;
    struct wt_job j;
    start_remote(&j, "env WT_HOST={host}");
    int st = wt_job_finish(&j, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_non_null(strstr(j.out, "rank 1 got SIGUSR1\n"));
    wt_job_free(&j);
    FILE *f = fopen(FAKE_SSH, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nshift\nexec \"$@\"\n", f);
    fclose(f);
    assert_int_equal(chmod(FAKE_SSH, 0755), 0);
    start_remote(&j, "./" FAKE_SSH);
    assert_int_equal(wt_job_wait_lines(&j, "rank 0 got SIGUSR1", 1, 4), 0);
    kill(j.pid, SIGTERM);
    st = wt_job_finish(&j, 4);
    unlink(FAKE_SSH);
    WT_ASSERT_STATUS(&j, st, st == 128 + SIGTERM);
    assert_non_null(strstr(j.err, "not passed to ranks started through './" FAKE_SSH "'"));
    assert_null(strstr(j.out, "rank 1 got"));
    assert_null(strstr(j.err, "rank 1 (pid"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_usr2_then_usr1(void **state)
{
    (void)state;
    struct wt_job j;
    pid_t pids[NRANKS];
    start(&j, pids);
    kill(j.pid, SIGUSR2);
    assert_int_equal(wt_job_wait_lines(&j, "rank ", NRANKS, 4), 0);
    kill(j.pid, SIGUSR1);
    int st = wt_job_finish(&j, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    for (int r = 0; r < NRANKS; r++) {
        char want[64];
        snprintf(want, sizeof want, "rank %d got SIGUSR2\n", r);
        assert_non_null(strstr(j.out, want));
        snprintf(want, sizeof want, "rank %d got SIGUSR1\n", r);
        assert_non_null(strstr(j.out, want));
    }
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_tstp_and_cont(void **state)
{
    (void)state;
    struct wt_job j;
    pid_t pids[NRANKS];
    start(&j, pids);
    kill(j.pid, SIGTSTP);
    assert_int_equal(wait_stopped(j.pid, 1), 0);
    for (int r = 0; r < NRANKS; r++)
        assert_int_equal(wait_stopped(pids[r], 1), 0);
    kill(j.pid, SIGCONT);
    assert_int_equal(wait_stopped(j.pid, 0), 0);
    for (int r = 0; r < NRANKS; r++)
        assert_int_equal(wait_stopped(pids[r], 0), 0);
    kill(j.pid, SIGUSR1);
    int st = wt_job_finish(&j, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), NRANKS);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    /* mpirun stops on SIGTSTP only if its process group is not orphaned
     * (the kernel's rule): a group of our own, whose leader's parent is in
     * another group of the same session, is not, however we were started. */
    setpgid(0, 0);
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usr2_then_usr1),
        cmocka_unit_test(test_tstp_and_cont),
        cmocka_unit_test(test_remote_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
