/* Lines longer than mpirun's line buffer (1 MiB) stay whole: 4 ranks each
 * write a line of up to 2.2 MB to stdout and stderr, in random small pieces,
 * at the same time; every line reaches mpirun's output in one piece, with
 * no other rank's bytes inside it. Under --tag-output such a line comes out
 * as consecutive tagged pieces of one rank. */
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
#define LINES 1

/* Check payload p[0..len) of line `i` of rank `r`. */
static int payload_ok(const char *p, size_t len, int r, int i)
{
    for (size_t k = 0; k < len; k++)
        if (p[k] != (char)('a' + (r + i + k) % 26))
            return 0;
    return 1;
}

/* Plain output: each line is "R:I:LEN:payload", whole. */
static void check_plain(const char *text)
{
    int next[RANKS] = { 0 };
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        int r, i, n = 0;
        size_t len;
        assert_non_null(nl);
        assert_int_equal(sscanf(l, "%d:%d:%zu:%n", &r, &i, &len, &n), 3);
        assert_true(r >= 0 && r < RANKS && i == next[r]);
        assert_int_equal((size_t)(nl - l), (size_t)n + len);
        assert_true(payload_ok(l + n, len, r, i));
        next[r]++;
        l = nl + 1;
    }
    for (int r = 0; r < RANKS; r++)
        assert_int_equal(next[r], LINES);
}

/* Tagged output: a line may be split into consecutive pieces with the
 * same tag; joined, they make the line. */
static void check_tagged(const char *text, const char *stream)
{
    int next[RANKS] = { 0 };
    const char *l = text;
    while (*l) {
        int tr, r, i, n = 0, m = 0;
        size_t len, have;
        char tag[16];
        assert_int_equal(sscanf(l, "[1,%d]<%15[a-z]>:%n", &tr, tag, &m), 2);
        assert_string_equal(tag, stream);
        assert_int_equal(sscanf(l + m, "%d:%d:%zu:%n", &r, &i, &len, &n), 3);
        assert_true(r == tr && i == next[r]);
        char *line = malloc(len + 1);
        const char *nl = strchr(l, '\n');
        have = (size_t)(nl - l) - (size_t)(m + n);
        memcpy(line, l + m + n, have);
        l = nl + 1;
        while (have < len) { /* the next pieces must be this rank's */
            int t2, m2 = 0;
            assert_int_equal(sscanf(l, "[1,%d]<%15[a-z]>:%n", &t2, tag, &m2), 2);
            assert_int_equal(t2, r);
            nl = strchr(l, '\n');
            assert_true((size_t)(nl - l - m2) <= len - have);
            memcpy(line + have, l + m2, (size_t)(nl - l - m2));
            have += (size_t)(nl - l - m2);
            l = nl + 1;
        }
        assert_true(payload_ok(line, len, r, i));
        free(line);
        next[r]++;
    }
    for (int r = 0; r < RANKS; r++)
        assert_int_equal(next[r], LINES);
}

static void test_overlong_lines_plain(void **state)
{
    (void)state;
    struct wt_job j;
    assert_int_equal(wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "4", WT_PROG, "lines", "1", "2200000"),
                            NULL, 0, 100), 0);
    check_plain(j.out);
    check_plain(j.err);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_overlong_lines_tagged(void **state)
{
    (void)state;
    struct wt_job j;
    assert_int_equal(wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "4", "--tag-output", WT_PROG, "lines",
                                        "1", "2200000"), NULL, 0, 100), 0);
    check_tagged(j.out, "stdout");
    check_tagged(j.err, "stderr");
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlong_lines_plain),
        cmocka_unit_test(test_overlong_lines_tagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
