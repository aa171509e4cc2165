/* Stack overflow: a ULT that runs off its stack is reported by name and the
 * process aborts.
 *
 * A forked child starts the runtime (the parent never does, so the fork is
 * clean), creates a named ULT that recurses without bound, and joins it.
 * The parent captures the child's stderr through a pipe and checks that the
 * child died by SIGABRT after printing "weft: stack overflow in thread
 * <name>". Done once with a small (64 KiB) stack and once with the default
 * size. A third ULT walks down to a few hundred bytes above its guard page
 * and sends itself a signal whose handler runs on its stack: the kernel
 * cannot push the signal frame and sends SIGSEGV with no fault address,
 * which must be reported as the same overflow (the preemption tick meets
 * this case when it lands near the bottom of a deep stack). Under
 * AddressSanitizer, whose own SIGSEGV handler may report the
 * overflow first, an ASan report instead of Weft's is a skip, not a failure.
 */
#include "test_support.h"

#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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
#define SMALL_STACK (64 * 1024)
/* Stop this far above the guard: less than any x86-64 or arm64 signal
 * frame (over 1 KiB) plus the 128-byte red zone, and more than two of
 * descend()'s frames, so the descent itself never reaches the guard. */
#define SIGNAL_ROOM 640

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

static void on_usr1(int sig)
{
    (void)sig;
}

/* Lowest usable byte of the mapping that holds `addr`, from
 * /proc/self/maps: the guard page below a ULT stack is a mapping of its
 * own, so this is the stack's bottom. 0 if not found. */
static uintptr_t mapping_start(uintptr_t addr)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    uintptr_t lo, hi, found = 0;

    if (!maps)
        return 0;
    while (!found && fgets(line, sizeof line, maps))
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &lo, &hi) == 2 && addr >= lo && addr < hi)
            found = lo;
    fclose(maps);
    return found;
}

/* Recurses until fewer than SIGNAL_ROOM bytes are left above `bottom`,
 * then signals kernel thread `tid` of process `pid`, its own. syscall()
 * has been called before, so its symbol is bound: the dynamic linker's
 * resolver would need more stack than is left. */
static int __attribute__((noinline)) descend(uintptr_t bottom, long pid, long tid, int depth)
{
    volatile char frame[64];
    frame[0] = (char)depth;
    if ((uintptr_t)__builtin_frame_address(0) - bottom >= SIGNAL_ROOM)
        descend(bottom, pid, tid, depth + 1);
    else
        syscall(SYS_tgkill, pid, tid, (long)SIGUSR1);
    return frame[0]; /* a volatile read after the call: no tail call */
}

static void *signal_near_bottom(void *arg)
{
    struct sigaction sa;
    uintptr_t bottom = mapping_start((uintptr_t)__builtin_frame_address(0));

    (void)arg;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1; /* no SA_ONSTACK: the frame goes on this stack */
    sigaction(SIGUSR1, &sa, NULL);
    if (bottom)
        descend(bottom, syscall(SYS_getpid), syscall(SYS_gettid), 0);
    return NULL;
}

static _Noreturn void child(int errfd, size_t stack_size, const char *name,
                            void *(*body)(void *))
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
    if (weft_thread_create(&t, &a, body, NULL) != 0)
        _exit(CHILD_CREATE_FAILED);
    weft_thread_join(t, NULL);
    _exit(CHILD_SURVIVED);
}

/* Run the child; fills out[] with its stderr and returns its wait status. */
static int run_child(size_t stack_size, const char *name, void *(*body)(void *),
                     char *out)
{
    int p[2], status = 0;

    assert_int_equal(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        child(p[1], stack_size, name, body);
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

static void check_overflow(size_t stack_size, const char *name, void *(*body)(void *))
{
    static char out[OUT_MAX];
    int status = run_child(stack_size, name, body, out);

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
    check_overflow(SMALL_STACK, "deep-diver", overflow);
}

static void test_default_stack_overflow(void **state)
{
    (void)state;
    check_overflow(0, "default-diver", overflow);
}

static void test_signal_frame_overflow(void **state)
{
    (void)state;
    check_overflow(SMALL_STACK, "frame-lander", signal_near_bottom);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_stack_overflow),
        cmocka_unit_test(test_default_stack_overflow),
        cmocka_unit_test(test_signal_frame_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
