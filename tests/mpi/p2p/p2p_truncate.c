/* Truncation: under MPI_ERRORS_RETURN a receive whose buffer is smaller
 * than the message returns MPI_ERR_TRUNCATE (eager and rendezvous sizes,
 * blocking and nonblocking), MPI_Waitall reports it with MPI_ERR_IN_STATUS
 * and the status's MPI_ERROR, and the connection still works afterwards.
 */
#include "mpi_test_util.h"

#define BIG (100 * 1000) /* ints: rendezvous */

static int error_class(int rc)
{
    int cls = -1;

    MPI_OK(MPI_Error_class(rc, &cls));
    return cls;
}

static void sender(void)
{
    int *buf = malloc(BIG * sizeof(int));

    for (int k = 0; k < BIG; k++)
        buf[k] = k;
    MPI_OK(MPI_Send(buf, 10, MPI_INT, 1, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(buf, BIG, MPI_INT, 1, 2, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(buf, 10, MPI_INT, 1, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(buf, BIG, MPI_INT, 1, 4, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(buf, 20, MPI_INT, 1, 5, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(buf, 5, MPI_INT, 1, 6, MPI_COMM_WORLD));
    free(buf);
}

static void receiver(void)
{
    int buf[1000], rc;
    MPI_Request rq[2];
    MPI_Status st, sts[2];

    rc = MPI_Recv(buf, 5, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "eager: rc %d", rc);
    CHECK(buf[4] == 4, "eager: stored prefix wrong");
    rc = MPI_Recv(buf, 1000, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
    CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "rendezvous: rc %d", rc);
    CHECK(buf[999] == 999, "rendezvous: stored prefix wrong");

    MPI_OK(MPI_Irecv(buf, 3, MPI_INT, 0, 3, MPI_COMM_WORLD, &rq[0]));
    rc = MPI_Wait(&rq[0], &st);
    CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "Irecv+Wait: rc %d", rc);

    MPI_OK(MPI_Irecv(buf, 10, MPI_INT, 0, 4, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Irecv(buf + 10, 20, MPI_INT, 0, 5, MPI_COMM_WORLD, &rq[1]));
    rc = MPI_Waitall(2, rq, sts);
    CHECK(error_class(rc) == MPI_ERR_IN_STATUS, "Waitall: rc %d", rc);
    CHECK(error_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE, "Waitall: status 0 %d",
          sts[0].MPI_ERROR);
    /* The standard allows MPI_ERR_PENDING for a request that had not
     * completed when the call gave up (Open MPI does that). */
    CHECK(sts[1].MPI_ERROR == MPI_SUCCESS || error_class(sts[1].MPI_ERROR) == MPI_ERR_PENDING,
          "Waitall: status 1 %d", sts[1].MPI_ERROR);
    if (sts[1].MPI_ERROR != MPI_SUCCESS)
        MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));

    MPI_OK(MPI_Recv(buf, 5, MPI_INT, 0, 6, MPI_COMM_WORLD, &st));
    for (int k = 0; k < 5; k++)
        CHECK(buf[k] == k, "after truncations: element %d is %d", k, buf[k]);
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        sender();
    else if (rank == 1)
        receiver();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_truncate: ok\n");
    return 0;
}
