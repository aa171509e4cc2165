/* A WEFT_EVENT_FUNCTION event must not block: one that calls weft_sleep
 * aborts the process with a message naming the misuse. Run in a child
 * process; the parent expects it to die of SIGABRT (and kills it after a
 * generous bound, so the test cannot hang).
 */
#include "test_support.h"

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <weft.h>

#define CHILD_GUARD_NS 20000000000LL

static void sleeps_in_function(void *arg)
{
    (void)arg;
    weft_sleep(1000000); /* forbidden here */
}

static void child(void)
{
    if (weft_init() != 0)
        _exit(2);
    weft_event_after(NULL, 1000000, NULL, sleeps_in_function, NULL);
    weft_sleep(5000000000LL); /* the event aborts us first */
    _exit(3);
}

static int wait_child(pid_t pid)
{
    int status = 0;
    int64_t guard = wt_now_ns() + CHILD_GUARD_NS;
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (wt_now_ns() > guard) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        usleep(10000);
    }
    return status;
}

static void test_blocking_function_aborts(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child();
    int status = wait_child(pid);
    assert_true(status != -1);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocking_function_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
