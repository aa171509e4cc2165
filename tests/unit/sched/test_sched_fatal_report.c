/* The fatal-signal report (weft_fatal_report_start): who, where and a
 * backtrace, then death by the signal itself; never over a handler that
 * was there first; gone after weft_fatal_report_stop.
 *
 * Each case runs in a forked child (the parent never starts the runtime,
 * so the fork is clean) whose stderr the parent reads through a pipe; the
 * parent checks how the child died and what it wrote:
 *   ult      a named ULT stores through a null pointer: SIGSEGV, and the
 *            report names the label, the signal, the address, the thread
 *   kept     the program's own SIGFPE handler was there first: it runs
 *            (exit 42), no report, and only the other four are taken
 *   stopped  raise(SIGABRT) after weft_fatal_report_stop: SIGABRT, no report
 * The names of functions in the frames need the program's dynamic symbols
 * (-rdynamic); tests/mpi/misc's mpi_misc_crash_* check those. The child
 * first gives the five signals the default action (cmocka's handlers, and
 * ASan's, would otherwise stay in charge), so the cases hold under ASan
 * too. Under TSan, which interposes sigaction and defers handlers, every
 * case is skipped.
 */
#include "test_support.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <weft.h>

#define CHILD_DEADLINE_NS 20000000000LL /* hang guard only */
#define OUT_MAX 16384

enum { CHILD_INIT_FAILED = 10, CHILD_BAD_COUNT, CHILD_SURVIVED, CHILD_HANDLED = 42 };

static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

#if defined(__has_attribute)
#if __has_attribute(no_sanitize_undefined)
__attribute__((no_sanitize_undefined)) /* let it fault, not UBSan stop it */
#endif
#endif
__attribute__((noinline)) static void store_null(volatile int *p)
{
    *p = 1;
}

static void *faulter(void *arg)
{
    store_null(arg);
    return NULL;
}

static void handled(int sig)
{
    (void)sig;
    _exit(CHILD_HANDLED);
}

static void case_ult(void)
{
    weft_thread_attr a;
    weft_thread_t t;
    if (weft_fatal_report_start("unit 7") != 5)
        _exit(CHILD_BAD_COUNT);
    weft_thread_attr_init(&a);
    a.name = "faulter";
    if (weft_thread_create(&t, &a, faulter, NULL) == 0)
        weft_thread_join(t, NULL);
}

static void case_kept(void)
{
    signal(SIGFPE, handled);
    if (weft_fatal_report_start("unit 7") != 4)
        _exit(CHILD_BAD_COUNT);
    raise(SIGFPE);
}

static void case_stopped(void)
{
    weft_fatal_report_start("unit 7");
    weft_fatal_report_stop();
    raise(SIGABRT);
}

static _Noreturn void child(int errfd, void (*body)(void))
{
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
        signal(fatal[i], SIG_DFL); /* cmocka's (they longjmp) and ASan's */
    dup2(errfd, STDERR_FILENO);
    if (weft_init() != 0)
        _exit(CHILD_INIT_FAILED);
    body();
    _exit(CHILD_SURVIVED);
}

/* Run body in a child; fills out[] with its stderr, returns its status. */
static int run_child(void (*body)(void), char *out)
{
    int p[2], status = 0;
    if (WT_TSAN)
        skip(); /* TSan interposes sigaction and defers handlers */
    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        child(p[1], body);
    }
    close(p[1]);
    out[0] = '\0';
    int rc = wt_read_all(p[0], out, OUT_MAX, wt_now_ns() + CHILD_DEADLINE_NS);
    close(p[0]);
    if (rc != 0)
        kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    print_message("child stderr:\n%s\n", out);
    if (rc != 0)
        fail_msg("child did not finish");
    return status;
}

static void assert_killed_by(int status, int sig)
{
    if (WIFEXITED(status))
        fail_msg("child exited with %d, not killed by signal %d", WEXITSTATUS(status), sig);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), sig);
}

static void test_ult_fault_is_reported(void **state)
{
    (void)state;
    static char out[OUT_MAX];
    int status = run_child(case_ult, out);
    assert_killed_by(status, SIGSEGV);
    assert_non_null(strstr(out, "weft: unit 7 (host "));
    assert_non_null(strstr(out, "): killed by SIGSEGV (Segmentation fault)\n"));
    assert_non_null(strstr(out, "weft: unit 7: address not mapped at 0x0, in thread faulter"));
    assert_non_null(strstr(out, "weft: unit 7: backtrace of the faulting thread:\n"));
    assert_non_null(strstr(out, "weft: unit 7:   #0 "));
    assert_non_null(strstr(out, "weft: unit 7: end of report\n"));
}

static void test_program_handler_is_kept(void **state)
{
    (void)state;
    static char out[OUT_MAX];
    int status = run_child(case_kept, out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), CHILD_HANDLED);
    assert_null(strstr(out, "weft: unit 7"));
}

static void test_stop_disarms(void **state)
{
    (void)state;
    static char out[OUT_MAX];
    int status = run_child(case_stopped, out);
    assert_killed_by(status, SIGABRT);
    assert_null(strstr(out, "weft: unit 7"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ult_fault_is_reported),
        cmocka_unit_test(test_program_handler_is_kept),
        cmocka_unit_test(test_stop_disarms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
