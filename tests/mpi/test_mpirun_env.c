/* Environment of the ranks: -x VAR=value sets, -x VAR passes mpirun's
 * value, and every rank gets its WEFT_MPI_* and OMPI_COMM_WORLD_* values,
 * OMPI_UNIVERSE_SIZE and Hydra's MPI_LOCALRANKID, MPI_LOCALNRANKS. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "launch_harness.h"

static void test_env_forwarding(void **state)
{
    (void)state;
    struct wt_job j;
    setenv("WT_FROM_TEST", "passed on", 1);
    unsetenv("WT_SET");
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-x", "WT_SET=42", "-x", "WT_FROM_TEST", "-np", "2",
                                WT_PROG, "env", "WT_SET", "WT_FROM_TEST", "WEFT_MPI_RANK",
                                "WEFT_MPI_SIZE", "WEFT_MPI_LOCAL_RANK", "WEFT_MPI_LOCAL_SIZE",
                                "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK",
                                "WEFT_MPI_APPNUM", "OMPI_UNIVERSE_SIZE", "MPI_LOCALRANKID",
                                "MPI_LOCALNRANKS"),
                    NULL, 0, 60);
    assert_int_equal(st, 0);
    const char *want[] = {
        "rank 0 WT_SET=42\n", "rank 1 WT_SET=42\n",
        "rank 0 WT_FROM_TEST=passed on\n", "rank 1 WT_FROM_TEST=passed on\n",
        "rank 1 WEFT_MPI_RANK=1\n", "rank 0 WEFT_MPI_SIZE=2\n",
        "rank 1 WEFT_MPI_LOCAL_RANK=1\n", "rank 1 WEFT_MPI_LOCAL_SIZE=2\n",
        "rank 1 OMPI_COMM_WORLD_RANK=1\n", "rank 1 OMPI_COMM_WORLD_SIZE=2\n",
        "rank 1 PMI_RANK=1\n", "rank 1 WEFT_MPI_APPNUM=0\n", "rank 0 OMPI_UNIVERSE_SIZE=2\n",
        "rank 1 MPI_LOCALRANKID=1\n", "rank 0 MPI_LOCALRANKID=0\n", "rank 1 MPI_LOCALNRANKS=2\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_non_null(strstr(j.out, want[i]));
    wt_job_free(&j);
}

static void test_bad_x_is_usage_error(void **state)
{
    (void)state;
    struct wt_job j;
    int st = wt_run(&j, WT_ARGV(WT_MPIRUN, "-x", "1BAD", "-n", "1", WT_PROG, "ok"), NULL, 0, 60);
    assert_int_equal(st, 2);
    assert_non_null(strstr(j.err, "-x '1BAD'"));
    wt_job_free(&j);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_forwarding),
        cmocka_unit_test(test_bad_x_is_usage_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
