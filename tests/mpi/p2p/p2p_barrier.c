/* MPI_Barrier: many barriers in a row, interleaved with user messages on
 * the same communicator and tags (the barrier's own messages must never
 * match user receives, nor the reverse). Then a check of the barrier
 * itself: before entering barrier i each rank s > 0 starts a synchronous
 * send to rank 0, which posts the receive only after leaving the barrier.
 * A correct barrier keeps rank 0 in it until s entered, so s must find its
 * send still pending just before entering; a barrier that let rank 0 out
 * early could let the send complete there.
 */
#include "mpi_test_util.h"

#define ROUNDS 100

int main(int argc, char **argv)
{
    int rank, size, v, w, flag;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < ROUNDS; i++) {
        v = rank * 1000 + i;
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, next, 0, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&w, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(w == prev * 1000 + i, "round %d: got %d", i, w);
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    for (int i = 0; i < 10 && size > 1; i++) {
        v = i;
        if (rank != 0)
            MPI_OK(MPI_Issend(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r));
        if (rank != 0) {
            MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "Issend done before rank 0 passed barrier %d", i);
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0)
            for (int s = 1; s < size; s++)
                MPI_OK(MPI_Recv(&w, 1, MPI_INT, s, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        else
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_barrier: ok (%d ranks)\n", size);
    return 0;
}
