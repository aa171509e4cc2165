/* Rank placement: --hostfile and --host lists fill each host's slots in
 * order and wrap around when -n exceeds them; local names run directly,
 * others through the launch agent; a broken hostfile is a usage error. */
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

#define AGENT "--launch-agent", "env WT_AGENT_HOST={host}", "--control-address", "127.0.0.1"

static char path[64];

static void write_hostfile(const char *text)
{
    snprintf(path, sizeof path, "wt_hostfile_XXXXXX"); /* in the test's directory */
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static void test_hostfile_placement(void **state)
{
    (void)state;
    struct wt_job j;
    write_hostfile("# two hosts\nnodeA slots=1\n\nnodeB:3   # three slots\n");
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "--hostfile", path, "-n", "5", WT_PROG, "env",
                                "WEFT_MPI_HOST", "WEFT_MPI_LOCAL_RANK", "WEFT_MPI_LOCAL_SIZE"),
                    NULL, 0, 60);
    unlink(path);
    assert_int_equal(st, 0);
    const char *want[] = {
        "rank 0 WEFT_MPI_HOST=nodeA\n", "rank 1 WEFT_MPI_HOST=nodeB\n",
        "rank 3 WEFT_MPI_HOST=nodeB\n", "rank 3 WEFT_MPI_LOCAL_RANK=2\n",
        "rank 4 WEFT_MPI_HOST=nodeA\n", "rank 4 WEFT_MPI_LOCAL_RANK=1\n",
        "rank 4 WEFT_MPI_LOCAL_SIZE=2\n", "rank 2 WEFT_MPI_LOCAL_SIZE=3\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(strstr(j.out, want[i]));
    wt_job_free(&j);
}

static void test_host_list_local_and_remote(void **state)
{
    (void)state;
    struct wt_job j;
    unsetenv("WT_AGENT_HOST");
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, AGENT, "--host", "localhost:2,nodeC", WT_PROG, "env",
                                "WT_AGENT_HOST"), NULL, 0, 60);
    assert_int_equal(st, 0);
    assert_non_null(strstr(j.out, "rank 0 WT_AGENT_HOST unset\n"));
    assert_non_null(strstr(j.out, "rank 1 WT_AGENT_HOST unset\n"));
    assert_non_null(strstr(j.out, "rank 2 WT_AGENT_HOST=nodeC\n"));
    assert_null(strstr(j.out, "rank 3"));
    wt_job_free(&j);
}

static void test_bad_hostfile(void **state)
{
    (void)state;
    struct wt_job j;
    write_hostfile("nodeA slots=zero\n");
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "--hostfile", path, WT_PROG, "ok"), NULL, 0, 60);
    unlink(path);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "invalid slot count 'zero'"));
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostfile_placement),
        cmocka_unit_test(test_host_list_local_and_remote),
        cmocka_unit_test(test_bad_hostfile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
