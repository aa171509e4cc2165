/* Stack overflow: a ULT that runs off its stack is reported by name and the
 * process aborts.
 *
 * A forked child starts the runtime (the parent never does, so the fork is
 * clean), creates a named ULT that recurses without bound, and joins it.
 * The parent captures the child's stderr through a pipe and checks that the
 * child died by SIGABRT after printing "weft: stack overflow in thread
 * <name>". Done once with a small (64 KiB) stack and once with the default
 * size. Under AddressSanitizer, whose own SIGSEGV handler may report the
 * overflow first, an ASan report instead of Weft's is a skip, not a failure.
 */
#include "test_support.h"

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <weft.h>

#if defined(__SANITIZE_ADDRESS__)
#define WT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WT_ASAN 1
#endif
#endif
#ifndef WT_ASAN
#define WT_ASAN 0
#endif

#define CHILD_DEADLINE_NS 30000000000LL /* hang guard only */
#define OUT_MAX 8192

enum { CHILD_INIT_FAILED = 10, CHILD_CREATE_FAILED, CHILD_SURVIVED };

static volatile int recursion_limit = INT_MAX; /* never reached */

static int recurse(int depth)
{
    volatile char frame[512];
    frame[0] = (char)depth;
    frame[sizeof frame - 1] = (char)depth;
    if (depth >= recursion_limit)
        return frame[0];
    return recurse(depth + 1) + frame[sizeof frame - 1];
}

static void *overflow(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)recurse(0);
}

static _Noreturn void child(int errfd, size_t stack_size, const char *name)
{
    struct rlimit no_core = {0, 0};
    weft_thread_attr a;
    weft_thread_t t;

    setrlimit(RLIMIT_CORE, &no_core);
    /* cmocka's handlers would longjmp back into the test runner */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    dup2(errfd, STDERR_FILENO);
    if (weft_init() != 0)
        _exit(CHILD_INIT_FAILED);
    weft_thread_attr_init(&a);
    a.stack_size = stack_size;
    a.name = name;
    if (weft_thread_create(&t, &a, overflow, NULL) != 0)
        _exit(CHILD_CREATE_FAILED);
    weft_thread_join(t, NULL);
    _exit(CHILD_SURVIVED);
}

/* Run the child; fills out[] with its stderr and returns its wait status. */
static int run_child(size_t stack_size, const char *name, char *out)
{
    int p[2], status = 0;

    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        child(p[1], stack_size, name);
    }
    close(p[1]);
    out[0] = '\0';
    int rc = wt_read_all(p[0], out, OUT_MAX, wt_now_ns() + CHILD_DEADLINE_NS);
    close(p[0]);
    if (rc != 0)
        kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (rc != 0)
        fail_msg("child did not finish; stderr so far:\n%s", out);
    return status;
}

/* 1 if out holds "weft: stack overflow in thread " followed, on the same
 * line, by `name`. */
static int has_report(const char *out, const char *name)
{
    const char *head = "weft: stack overflow in thread ";
    const char *at = strstr(out, head);
    if (!at)
        return 0;
    const char *eol = strchr(at, '\n');
    const char *n = strstr(at + strlen(head), name);
    return n && (!eol || n < eol);
}

static void check_overflow(size_t stack_size, const char *name)
{
    static char out[OUT_MAX];
    int status = run_child(stack_size, name, out);

    print_message("child stderr:\n%s\n", out);
    if (WT_ASAN && !has_report(out, name) && strstr(out, "AddressSanitizer")) {
        print_message("ASan caught the overflow before Weft's handler\n");
        skip();
    }
    if (WIFEXITED(status))
        fail_msg("child exited with status %d instead of SIGABRT",
                 WEXITSTATUS(status));
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    if (!has_report(out, name))
        fail_msg("no \"weft: stack overflow in thread %s\" in stderr", name);
}

static void test_small_stack_overflow(void **state)
{
    (void)state;
    check_overflow(64 * 1024, "deep-diver");
}

static void test_default_stack_overflow(void **state)
{
    (void)state;
    check_overflow(0, "default-diver");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_stack_overflow),
        cmocka_unit_test(test_default_stack_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
