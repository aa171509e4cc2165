/* A get from a target that computes: rank 1 computes for about a second
 * without calling MPI, while rank 0 locks rank 1's window, gets from it
 * and unlocks. Under Weft the target's service thread answers while the
 * target computes, so the get must return before the target left its
 * loop. Other MPIs may serve it only when the target next calls MPI: they
 * print their timing without the check. Times are CLOCK_MONOTONIC, one
 * clock for both ranks of one host; only their order is asserted. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "mpi_test_util.h"

#define COMPUTE_S 1.0

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Busy arithmetic until `seconds` passed; returns the time it stopped. */
static double compute(double seconds, volatile double *sink)
{
    double start = now(), t = start, x = 1.0;

    while (t - start < seconds) {
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
        t = now();
    }
    *sink = x;
    return t;
}

static int is_weft(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    MPI_Get_library_version(v, &len);
    return strstr(v, "Weft") != NULL;
}

int main(int argc, char **argv)
{
    int rank, size, *mem, got = 0;
    double t[2] = { 0, 0 }, start;
    volatile double sink;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(sizeof *mem, sizeof *mem, MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &win));
    *mem = 4242;
    MPI_Barrier(MPI_COMM_WORLD);
    start = now();
    if (rank == 1) {
        t[1] = compute(COMPUTE_S, &sink);
    } else if (rank == 0) {
        compute(0.1, &sink); /* let the target get into its loop */
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MPI_OK(MPI_Get(&got, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(1, win));
        t[0] = now();
        CHECK(got == 4242, "got %d", got);
    }
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX,
                         MPI_COMM_WORLD));
    if (rank == 0) {
        printf("rma_progress: get returned %.3f s after start, target left "
               "its loop at %.3f s\n", t[0] - start, t[1] - start);
        if (is_weft())
            CHECK(t[0] < t[1], "the get waited for the target's loop");
    }
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    return 0;
}
