/* Behaviour: ULT stacks come from a bounded, thread-safe pool of mmap'ed
 * regions, each with a PROT_NONE guard page below its usable part.
 * Checked here: sizes round up to pages and the whole usable part is
 * writable; a freed stack is handed out again; the pool keeps at most 64
 * stacks of a size and drain unmaps them; writing just below `lo` kills a
 * child process with SIGSEGV; wf_stack_guard_hit classifies addresses;
 * WEFT_STACK_SIZE parsing (number, k/K/m/M suffix, invalid or below 16 KiB
 * falls back to 256 KiB with one warning). No runtime needed. */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sched/stack.h"
#include "weft/errno.h"

#define KIB ((size_t)1024)

static size_t page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* 1 if [p, p + len) is mapped (msync fails with ENOMEM on a hole). */
static int is_mapped(void *p, size_t len)
{
    return msync(p, len, MS_ASYNC) == 0;
}

static int empty_pool(void **state)
{
    (void)state;
    wf_stack_pool_drain();
    return 0;
}

static void test_alloc_rounds_to_pages_and_is_writable(void **state)
{
    (void)state;
    wf_stack s;

    assert_int_equal(wf_stack_alloc(&s, 20 * KIB + 1), 0);
    assert_int_equal(s.size % page(), 0);
    assert_true(s.size >= 20 * KIB + 1 && s.size < 20 * KIB + 1 + page());
    assert_ptr_equal(s.lo, (char *)s.map + page());
    assert_int_equal(s.map_len, s.size + page());
    memset(s.lo, 0xC3, s.size); /* every usable byte is writable */
    wf_stack_free(&s);
    assert_null(s.map);
}

static void test_alloc_zero_gives_default_size(void **state)
{
    (void)state;
    wf_stack s;

    assert_int_equal(wf_stack_alloc(&s, 0), 0);
    assert_true(s.size >= wf_stack_default_size());
    wf_stack_free(&s);
}

static void test_huge_size_is_enomem(void **state)
{
    (void)state;
    wf_stack s;

    assert_int_equal(wf_stack_alloc(&s, SIZE_MAX - 10), WEFT_ENOMEM);
    assert_null(s.map);
}

static void test_freed_stack_is_reused(void **state)
{
    (void)state;
    wf_stack a, b, c;

    assert_int_equal(wf_stack_alloc(&a, 32 * KIB), 0);
    void *first = a.map;
    wf_stack_free(&a);
    assert_true(is_mapped(first, 32 * KIB + page())); /* kept, not unmapped */
    assert_int_equal(wf_stack_alloc(&b, 32 * KIB), 0);
    assert_ptr_equal(b.map, first);
    assert_int_equal(wf_stack_alloc(&c, 32 * KIB), 0); /* pool now empty */
    assert_ptr_not_equal(c.map, first);
    wf_stack_free(&b);
    wf_stack_free(&c);
}

enum { MANY = 100, POOL_BOUND = 64 };

static void test_pool_is_bounded_and_drain_unmaps(void **state)
{
    (void)state;
    static wf_stack s[MANY];
    static void *maps[MANY];
    size_t len = 16 * KIB + page();
    int still_mapped = 0;

    for (int i = 0; i < MANY; i++) {
        assert_int_equal(wf_stack_alloc(&s[i], 16 * KIB), 0);
        maps[i] = s[i].map;
    }
    for (int i = 0; i < MANY; i++)
        wf_stack_free(&s[i]);
    for (int i = 0; i < MANY; i++)
        still_mapped += is_mapped(maps[i], len);
    assert_in_range(still_mapped, 1, POOL_BOUND);
    wf_stack_pool_drain();
    for (int i = 0; i < MANY; i++)
        assert_false(is_mapped(maps[i], len));
}

/* In a child, write one byte at lo - 1 (below) or at lo; return the
 * child's wait status. */
static int child_write(const wf_stack *s, int below)
{
    pid_t pid = fork();
    int status = 0;

    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        signal(SIGSEGV, SIG_DFL); /* bypass any sanitizer handler */
        volatile char *target = (char *)s->lo - (below ? 1 : 0);
        *target = 1;
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void test_write_below_lo_dies_with_sigsegv(void **state)
{
    (void)state;
    wf_stack s;
    int status;

    assert_int_equal(wf_stack_alloc(&s, 64 * KIB), 0);
    status = child_write(&s, 1);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    status = child_write(&s, 0); /* control: lo itself is usable */
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    wf_stack_free(&s);
}

static void test_guard_hit_classifies_addresses(void **state)
{
    (void)state;
    wf_stack s, none;
    char *lo;

    assert_int_equal(wf_stack_alloc(&s, 64 * KIB), 0);
    lo = s.lo;
    assert_true(wf_stack_guard_hit(&s, lo - 1));
    assert_true(wf_stack_guard_hit(&s, s.map));
    assert_true(wf_stack_guard_hit(&s, (char *)s.map - page())); /* big frame */
    assert_false(wf_stack_guard_hit(&s, (char *)s.map - page() - 1));
    assert_false(wf_stack_guard_hit(&s, lo));
    assert_false(wf_stack_guard_hit(&s, lo + s.size - 1));
    assert_false(wf_stack_guard_hit(&s, lo + s.size));
    memset(&none, 0, sizeof none);
    assert_false(wf_stack_guard_hit(&none, NULL));
    wf_stack_free(&s);
}

/* ---- concurrent use -------------------------------------------------- */

enum { THREADS = 4, ITERATIONS = 2000 };

/* Each thread stamps its stacks with its id and checks the stamp before
 * freeing: a stack handed to two owners at once breaks a stamp. */
static void *churn(void *arg)
{
    uintptr_t id = (uintptr_t)arg, bad = 0;
    wf_stack s[3];

    for (int i = 0; i < ITERATIONS; i++) {
        for (int k = 0; k < 3; k++) {
            if (wf_stack_alloc(&s[k], (size_t)(k + 1) * 16 * KIB) != 0)
                return (void *)1;
            *(volatile uintptr_t *)s[k].lo = id;
        }
        sched_yield();
        for (int k = 0; k < 3; k++) {
            bad |= *(volatile uintptr_t *)s[k].lo != id;
            wf_stack_free(&s[k]);
        }
    }
    return (void *)bad;
}

static void test_pool_is_thread_safe(void **state)
{
    (void)state;
    pthread_t t[THREADS];
    void *bad;

    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(t[i], &bad), 0);
        assert_null(bad);
    }
}

/* ---- WEFT_STACK_SIZE ------------------------------------------------- */

struct env_result {
    size_t size;
    char err[256]; /* what the child printed on stderr */
};

static void read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;

    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
}

#define PRINT_DEFAULT_SIZE "--print-default-stack-size"

/* Child mode of this test program: print the default size (queried twice,
 * 0 if the answers differ) as raw bytes on stdout. */
static int print_default_size(void)
{
    size_t size = wf_stack_default_size();

    size = wf_stack_default_size() == size ? size : 0;
    return write(STDOUT_FILENO, &size, sizeof size) == sizeof size ? 0 : 1;
}

/* Re-run this program in PRINT_DEFAULT_SIZE mode with WEFT_STACK_SIZE set
 * to `value` (NULL: unset): a fresh process, since the default is computed
 * once per process. */
static struct env_result default_size_with(const char *value)
{
    struct env_result res;
    int out[2], err[2], status;
    pid_t pid;

    memset(&res, 0, sizeof res);
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(err), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char *argv[] = { "self", PRINT_DEFAULT_SIZE, NULL };
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        if (value != NULL)
            setenv("WEFT_STACK_SIZE", value, 1);
        else
            unsetenv("WEFT_STACK_SIZE");
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    assert_int_equal(read(out[0], &res.size, sizeof res.size), sizeof res.size);
    read_all(err[0], res.err, sizeof res.err);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(out[0]);
    close(err[0]);
    return res;
}

static void expect_size(const char *value, size_t size)
{
    struct env_result r = default_size_with(value);

    assert_int_equal(r.size, size);
    assert_string_equal(r.err, "");
}

static void expect_fallback(const char *value)
{
    struct env_result r = default_size_with(value);
    char *nl = strchr(r.err, '\n');

    assert_int_equal(r.size, 256 * KIB);
    assert_non_null(strstr(r.err, "WEFT_STACK_SIZE"));
    assert_non_null(nl);                 /* one line ... */
    assert_string_equal(nl + 1, "");     /* ... printed once */
}

static void test_default_size_from_environment(void **state)
{
    (void)state;
    expect_size(NULL, 256 * KIB);
    expect_size("65536", 65536);
    expect_size("64k", 64 * KIB);
    expect_size("64K", 64 * KIB);
    expect_size("1m", 1024 * KIB);
    expect_size("2M", 2048 * KIB);
    expect_size("16384", 16 * KIB); /* the minimum itself is fine */
    expect_fallback("16383");
    expect_fallback("8k");
    expect_fallback("");
    expect_fallback("abc");
    expect_fallback("12x");
    expect_fallback("64kb");
    expect_fallback("-65536");
    expect_fallback("99999999999999999999999999");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], PRINT_DEFAULT_SIZE) == 0)
        return print_default_size();

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_alloc_rounds_to_pages_and_is_writable, empty_pool),
        cmocka_unit_test_setup(test_alloc_zero_gives_default_size, empty_pool),
        cmocka_unit_test_setup(test_huge_size_is_enomem, empty_pool),
        cmocka_unit_test_setup(test_freed_stack_is_reused, empty_pool),
        cmocka_unit_test_setup(test_pool_is_bounded_and_drain_unmaps, empty_pool),
        cmocka_unit_test_setup(test_write_below_lo_dies_with_sigsegv, empty_pool),
        cmocka_unit_test_setup(test_guard_hit_classifies_addresses, empty_pool),
        cmocka_unit_test_setup(test_pool_is_thread_safe, empty_pool),
        cmocka_unit_test(test_default_size_from_environment),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    wf_stack_pool_drain();
    return failed;
}
