/* MPI_Comm_create_group's tag does not conflict with point-to-point tags
 * (MPI-3.1 6.4.2): a receive from MPI_ANY_SOURCE with MPI_ANY_TAG posted
 * on the parent before the call must not take any message of the
 * creation. Each rank posts one, creates a communicator of every rank
 * with the same tag the program then uses for its own message, checks
 * the new communicator with an allreduce, and only then sends the message
 * the receive waits for: from its left neighbour, naming it.
 */
#include "mpi_test_util.h"

#define TAG 7

int main(int argc, char **argv)
{
    int rank, size, got = -1, sum = -1, mine;
    MPI_Comm parent, c;
    MPI_Group g;
    MPI_Request r;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    MPI_OK(MPI_Comm_group(parent, &g));
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, parent, &r));
    for (int i = 0; i < 3; i++) {
        MPI_OK(MPI_Comm_create_group(parent, g, TAG, &c));
        mine = rank + 1 + i;
        MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
        CHECK(sum == size * (size + 1) / 2 + size * i, "round %d: sum %d", i, sum);
        MPI_OK(MPI_Comm_free(&c));
    }
    mine = 1000 + rank;
    MPI_OK(MPI_Send(&mine, 1, MPI_INT, (rank + 1) % size, TAG, parent));
    MPI_OK(MPI_Wait(&r, &st));
    int left = (rank + size - 1) % size;
    CHECK(got == 1000 + left && st.MPI_SOURCE == left && st.MPI_TAG == TAG,
          "the receive got %d from %d tag %d", got, st.MPI_SOURCE, st.MPI_TAG);
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Comm_free(&parent));
    MPI_Finalize();
    if (rank == 0)
        printf("comm_create_group_tag: ok (%d ranks)\n", size);
    return 0;
}
