/* ARIADNE's SIGCHLD use: a thread activated by SIGCHLD reaps the children
 * that exited, while the other threads keep running.
 *
 * A reaper ULT loops: wait for SIGCHLD, then reap with waitpid(WNOHANG)
 * until nothing is left (the kernel merges SIGCHLDs of children that exit
 * together, so one wake-up may stand for several children). Main forks
 * NCHILD children that exit at once with distinct statuses; the reaper
 * must collect every one, with its status, and nobody busy-waits.
 * The signal is used in wake-one mode: a SIGCHLD that arrives while the
 * reaper is busy reaping is then kept pending instead of being lost (under
 * wake-all it would find no waiter, and a child exiting in that gap would
 * never be reaped).
 */
#include "test_support.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>
#include <weft.h>

#define NCHILD 8

static pid_t pids[NCHILD];
static pid_t reaped_pid[NCHILD]; /* in reaping order; a child may be reaped */
static int reaped_status[NCHILD]; /* before fork() returned its pid to main */
static atomic_int reaped, wakeups;

static void reap_all(void)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int k = atomic_load(&reaped);
        if (k < NCHILD) {
            reaped_pid[k] = pid;
            reaped_status[k] = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        atomic_fetch_add(&reaped, 1);
    }
}

static int status_of(pid_t pid)
{
    for (int k = 0; k < NCHILD; k++)
        if (reaped_pid[k] == pid)
            return reaped_status[k];
    return -1;
}

static void *reaper(void *arg)
{
    (void)arg;
    while (atomic_load(&reaped) < NCHILD) {
        if (weft_sig_wait(SIGCHLD) != 0)
            break;
        atomic_fetch_add(&wakeups, 1);
        reap_all();
    }
    return NULL;
}

static void test_sigchld_activated_reaper(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_thread_t r;
    assert_int_equal(weft_sig_set_mode(SIGCHLD, WEFT_SIG_WAKE_ONE), 0);
    assert_int_equal(weft_sig_set(SIGCHLD), 0);
    assert_int_equal(weft_thread_create(&r, NULL, reaper, NULL), 0);
    while (weft_sig_waiters(SIGCHLD) < 1)
        weft_thread_yield();
    for (int i = 0; i < NCHILD; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0)
            _exit(10 + i);
    }
    assert_int_equal(weft_thread_join(r, NULL), 0);
    assert_int_equal(atomic_load(&reaped), NCHILD);
    for (int i = 0; i < NCHILD; i++)
        assert_int_equal(status_of(pids[i]), 10 + i);
    assert_in_range(atomic_load(&wakeups), 1, NCHILD);
    assert_int_equal(weft_sig_clear(SIGCHLD), 0);
    assert_int_equal(weft_sig_set_mode(SIGCHLD, WEFT_SIG_WAKE_ALL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigchld_activated_reaper),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
