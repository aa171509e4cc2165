/* Finding the program: a bare name that is not on PATH is run from the
 * ranks' working directory (as Open MPI does); a file that is there but
 * not executable, and a name found nowhere, fail with status 127 and
 * messages that tell the two apart. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "wt_lookup_XXXXXX"); /* in the test's directory */
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_bare_name_in_wdir(void **state)
{
    (void)state;
    struct wt_job j;
    snprintf(path, sizeof path, "%s/wt_bare_prog", dir);
    assert_int_equal(symlink(WT_PROG, path), 0);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "-wd", dir, "wt_bare_prog", "ok"), NULL, 0,
                    4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "rank "), 2);
    wt_job_free(&j);
}

static void test_not_executable(void **state)
{
    (void)state;
    struct wt_job j;
    snprintf(path, sizeof path, "%s/wt_plain_file", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    close(fd);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "1", "-wd", dir, "wt_plain_file"), NULL, 0, 4);
    assert_int_equal(st, 127);
    assert_non_null(strstr(j.err, "'wt_plain_file' is not an executable file"));
    wt_job_free(&j);
}

static void test_not_found(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "1", "-wd", dir, "wt_no_such_prog"), NULL, 0, 4);
    assert_int_equal(st, 127);
    assert_non_null(strstr(j.err, "program 'wt_no_such_prog' not found (not on PATH, nor in "));
    assert_null(strstr(j.err, "not an executable"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bare_name_in_wdir),
        cmocka_unit_test(test_not_executable),
        cmocka_unit_test(test_not_found),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
