/* mpirun's stdin reaches rank 0 (all of it, then EOF) and no other rank;
 * --stdin picks another rank or none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

#define DATA_LEN (3u << 20)

static char *data;
static char want[128];

static int make_data(void **state)
{
    (void)state;
    unsigned long long sum = 0;
    data = malloc(DATA_LEN);
    for (size_t i = 0; i < DATA_LEN; i++) {
        data[i] = (char)(i * 7 + i / 251);
        sum = sum * 31 + (unsigned char)data[i];
    }
    snprintf(want, sizeof want, "bytes=%u sum=%llu\n", DATA_LEN, sum);
    return 0;
}

static int free_data(void **state)
{
    (void)state;
    free(data);
    return 0;
}

/* The line rank r printed, e.g. "rank 0 bytes=... sum=...". */
static const char *line_of(const struct wt_job *j, int r)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "rank %d ", r);
    const char *l = strstr(j->out, prefix);
    assert_non_null(l);
    return l + strlen(prefix);
}

static void test_stdin_to_rank0(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "3", WT_PROG, "stdin"), data, DATA_LEN, 60);
    assert_int_equal(st, 0);
    assert_memory_equal(line_of(&j, 0), want, strlen(want));
    assert_memory_equal(line_of(&j, 1), "bytes=0 sum=0\n", 14);
    assert_memory_equal(line_of(&j, 2), "bytes=0 sum=0\n", 14);
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_stdin_to_other_rank(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--stdin", "1", "-n", "2", WT_PROG, "stdin"), data,
                    DATA_LEN, 60);
    assert_int_equal(st, 0);
    assert_memory_equal(line_of(&j, 0), "bytes=0 sum=0\n", 14);
    assert_memory_equal(line_of(&j, 1), want, strlen(want));
    wt_job_free(&j);
}

static void test_stdin_none(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--stdin", "none", "-n", "1", WT_PROG, "stdin"), data,
                    DATA_LEN, 60);
    assert_int_equal(st, 0);
    assert_memory_equal(line_of(&j, 0), "bytes=0 sum=0\n", 14);
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stdin_to_rank0),
        cmocka_unit_test(test_stdin_to_other_rank),
        cmocka_unit_test(test_stdin_none),
    };
    return cmocka_run_group_tests(tests, make_data, free_data);
}
