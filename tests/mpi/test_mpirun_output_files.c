/* Output options: --output-filename DIR writes rank R's stdout and stderr
 * to DIR/1/rank.R/stdout and stderr (Open MPI 4's layout) and still to
 * mpirun's; --merge-stderr-to-stdout sends the ranks' stderr to stdout
 * (and to the stdout file); --timestamp-output prefixes each line with
 * the time. An output directory that cannot be made is a usage error. */
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

#define LINES "4" /* per rank and stream (boot_prog "lines") */

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "wt_outdir_XXXXXX"); /* in the test's directory */
    assert_non_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The whole file, or NULL if it does not exist. */
static char *slurp(int rank, const char *name)
{
    char path[160];
    snprintf(path, sizeof path, "%s/out/1/rank.%d/%s", dir, rank, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Every line of `file` is one of rank's lines, also found in `all`. */
static void check_file(const char *file, int rank, const char *all, int want_lines)
{
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%d:", rank);
    assert_non_null(file);
    assert_int_equal(wt_count_lines(file, prefix), want_lines);
    assert_int_equal(wt_count_lines(file, ""), want_lines);
    for (const char *l = file; *l; l = strchr(l, '\n') + 1) {
        char line[1024];
        size_t len = (size_t)(strchr(l, '\n') - l) + 1;
        snprintf(line, sizeof line, "%.*s", (int)len, l);
        if (!strstr(all, line))
            fail_msg("file line \"%s\" not in mpirun's output", line);
    }
}

static void test_files_per_rank(void **state)
{
    (void)state;
    struct wt_job j;
    char out[96];
    make_dir();
    snprintf(out, sizeof out, "%s/out", dir);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "--output-filename", out, WT_PROG, "lines",
                                LINES, "60"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    for (int r = 0; r < 2; r++) {
        char *o = slurp(r, "stdout"), *e = slurp(r, "stderr");
        check_file(o, r, j.out, atoi(LINES));
        check_file(e, r, j.err, atoi(LINES));
        free(o);
        free(e);
    }
    wt_job_free(&j);
    remove_dir();
}

static void test_merge_stderr(void **state)
{
    (void)state;
    struct wt_job j;
    char out[96];
    make_dir();
    snprintf(out, sizeof out, "%s/out", dir);
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "--merge-stderr-to-stdout",
                                "--output-filename", out, WT_PROG, "lines", LINES, "60"),
                    NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    assert_int_equal(wt_count_lines(j.out, "0:"), 2 * atoi(LINES));
    assert_int_equal(wt_count_lines(j.out, "1:"), 2 * atoi(LINES));
    assert_int_equal(wt_count_lines(j.err, "0:") + wt_count_lines(j.err, "1:"), 0);
    char *o = slurp(1, "stdout"), *e = slurp(1, "stderr");
    check_file(o, 1, j.out, 2 * atoi(LINES));
    assert_null(e);
    free(o);
    wt_job_free(&j);
    remove_dir();
}

/* "[YYYY-MM-DD HH:MM:SS.mmm] " then the line. */
static int stamped(const char *l)
{
    int y, mo, d, h, mi, s, ms, n = 0;
    return sscanf(l, "[%4d-%2d-%2d %2d:%2d:%2d.%3d] %n", &y, &mo, &d, &h, &mi, &s, &ms, &n) == 7 &&
           n == 26;
}

static void test_timestamps(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-n", "2", "--timestamp-output", "--tag-output",
                                WT_PROG, "env", "WEFT_MPI_RANK"), NULL, 0, 4);
    WT_ASSERT_STATUS(&j, st, st == 0);
    int lines = 0;
    for (const char *l = j.out; *l; l = strchr(l, '\n') + 1, lines++) {
        if (!stamped(l) || strncmp(l + 26, "[1,", 3))
            fail_msg("line without a timestamp and tag: %s", l);
    }
    assert_int_equal(lines, 2);
    assert_non_null(strstr(j.out, "] [1,1]<stdout>:rank 1 WEFT_MPI_RANK=1\n"));
    wt_job_free(&j);
}

static void test_bad_dir(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--output-filename", "/dev/null/x", "-n", "1",
                                WT_PROG, "ok"), NULL, 0, 4);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "--output-filename '/dev/null/x': cannot create"));
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files_per_rank),
        cmocka_unit_test(test_merge_stderr),
        cmocka_unit_test(test_timestamps),
        cmocka_unit_test(test_bad_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
