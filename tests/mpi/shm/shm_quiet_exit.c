/* A rank that never traded a message with another may finish first, and
 * its exit is no failure for the ranks still working. Rank 2 of 3 calls
 * MPI_Finalize at once and returns; ranks 0 and 1 ping-pong, receiving
 * with MPI_ANY_SOURCE under MPI_ERRORS_RETURN, before and after a pause
 * long enough for rank 2 to be gone (under Weft, MPI_Finalize trades
 * closing messages only with the ranks it talked to, so rank 2 leaves
 * without waiting for the others; its exit reaches them as the end of a
 * process they watch).
 *
 * Checks: every receive succeeds, from rank 0 or 1 with the value sent.
 * A runtime that took rank 2's exit for a failure fails the
 * MPI_ANY_SOURCE receives that follow it (and says it lost rank 2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep */
#endif
#include <time.h>

#include "mpi_test_util.h"

#define ROUNDS 200
#define PAUSE_MS 500

static void pingpong(int rank, int first)
{
    int other = 1 - rank;

    for (int i = first; i < first + ROUNDS; i++) {
        int v = rank * 100000 + i, w = -1;
        MPI_Status st;
        if (rank == 0)
            MPI_OK(MPI_Send(&v, 1, MPI_INT, other, 0, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == other && w == other * 100000 + i,
              "round %d: %d from rank %d", i, w, st.MPI_SOURCE);
        if (rank == 1)
            MPI_OK(MPI_Send(&v, 1, MPI_INT, other, 0, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    struct timespec pause = { PAUSE_MS / 1000, PAUSE_MS % 1000 * 1000000L };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 3, "run with 3 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank < 2) {
        pingpong(rank, 0);
        nanosleep(&pause, NULL);
        pingpong(rank, ROUNDS);
    }
    MPI_Finalize();
    return 0;
}
