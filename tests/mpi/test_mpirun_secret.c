/* The control server refuses connections without the job secret: a wrong
 * secret, garbage, and a second HELLO for a rank already connected are all
 * closed without a reply, and the job carries on to a clean end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_strays_refused(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-v", "-n", "3", WT_PROG, "stray"), NULL, 0, 60);
    assert_int_equal(st, 0);
    assert_int_equal(wt_count_lines(j.out, "stray refused"), 1);
    assert_int_equal(wt_count_lines(j.out, "rank "), 3);
    /* -v says why each was refused */
    assert_int_equal(wt_count_lines(j.err, "mpirun: refused a control connection"), 4);
    assert_non_null(strstr(j.err, ": wrong job secret\n"));
    assert_non_null(strstr(j.err, ": rank already connected\n"));
    assert_non_null(strstr(j.err, ": closed, or sent something other than a HELLO\n"));
    wt_job_free(&j);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strays_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
