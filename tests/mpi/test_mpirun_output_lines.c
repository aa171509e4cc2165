/* Output of many ranks writing long lines concurrently, each line split
 * into many small write()s: every line reaches mpirun's stdout (or stderr)
 * whole, in order per rank, with and without --tag-output, including lines
 * much longer than a pipe buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

#define RANKS 4

/* Check one line "R:I:LEN:payload" (after its tag, if tagged); returns its
 * rank, or -1. next[R] is the index the rank's next line must have. */
static int check_line(const char *l, size_t len, int tagged, const char *stream, int *next)
{
    int tr = -1, r, i, n = 0;
    size_t plen;
    char tag[32];
    if (tagged) {
        if (sscanf(l, "[1,%d]<%31[a-z]>:%n", &tr, tag, &n) != 2 || strcmp(tag, stream))
            return -1;
        l += n;
        len -= (size_t)n;
    }
    if (sscanf(l, "%d:%d:%zu:%n", &r, &i, &plen, &n) != 3 || r < 0 || r >= RANKS ||
        (tagged && tr != r) || i != next[r] || (size_t)n + plen != len)
        return -1;
    for (size_t k = 0; k < plen; k++)
        if (l[n + k] != (char)('a' + (r + i + k) % 26))
            return -1;
    next[r]++;
    return r;
}

static void check_stream(const char *text, int tagged, const char *stream, int lines)
{
    int next[RANKS] = { 0 };
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        assert_non_null(nl);
        if (strncmp(l, "mpirun:", 7)) /* skip mpirun's own messages, if any */
            assert_true(check_line(l, (size_t)(nl - l), tagged, stream, next) >= 0);
        l = nl + 1;
    }
    for (int r = 0; r < RANKS; r++)
        assert_int_equal(next[r], lines);
}

static void run_lines(int tagged, const char *lines, const char *max)
{
    struct wt_job j;
    char *const *argv = tagged
        ? WT_ARGV(WT_MPIRUN, "-n", "4", "--tag-output", WT_PROG, "lines", (char *)lines,
                  (char *)max)
        : WT_ARGV(WT_MPIRUN, "-n", "4", WT_PROG, "lines", (char *)lines, (char *)max);
    assert_int_equal(wt_run(&j, argv, NULL, 0, 100), 0);
    check_stream(j.out, tagged, "stdout", atoi(lines));
    check_stream(j.err, tagged, "stderr", atoi(lines));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_lines_plain(void **state)
{
    (void)state;
    run_lines(0, "200", "9000");
}

static void test_lines_tagged(void **state)
{
    (void)state;
    run_lines(1, "200", "9000");
}

static void test_long_lines(void **state)
{
    (void)state;
    run_lines(0, "6", "300000");
    run_lines(1, "6", "300000");
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_plain),
        cmocka_unit_test(test_lines_tagged),
        cmocka_unit_test(test_long_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
