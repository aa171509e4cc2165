/* MPI_Cancel of receives: a receive nothing matched is cancelled (its wait
 * returns, MPI_Test_cancelled says so, and the message sent later goes to
 * the next receive); a receive already matched is not cancelled and
 * completes with its data; a cancelled persistent receive can be started
 * again.
 */
#include "mpi_test_util.h"

static int cancelled(const MPI_Status *st)
{
    int flag = -1;

    MPI_OK(MPI_Test_cancelled(st, &flag));
    return flag;
}

static void receiver(void)
{
    int v = -1, w = -1;
    MPI_Request r;
    MPI_Status st;

    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(cancelled(&st), "unmatched receive not cancelled");
    CHECK(v == -1, "cancelled receive wrote %d", v);
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD)); /* now send tag 1 */
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
    CHECK(v == 5, "tag 1 carried %d", v);

    MPI_OK(MPI_Irecv(&w, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &st)); /* tag 2 came first */
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(!cancelled(&st) && w == 7, "matched receive: cancelled %d, value %d", cancelled(&st), w);

    MPI_OK(MPI_Recv_init(&w, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(cancelled(&st), "persistent receive not cancelled");
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD)); /* now send tag 4 */
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(!cancelled(&st) && w == 11, "restarted persistent receive got %d", w);
    MPI_OK(MPI_Request_free(&r));
}

static void sender(void)
{
    int v;

    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    v = 5;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
    v = 7;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    v = 11;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        sender();
    else if (rank == 1)
        receiver();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_cancel: ok\n");
    return 0;
}
