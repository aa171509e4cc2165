/* MPI_PROC_NULL: sends to it and receives from it complete at once; a
 * receive's status says source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0,
 * and its buffer is left alone; probes of it succeed at once.
 */
#include "mpi_test_util.h"

static void check_null_status(const MPI_Status *st)
{
    int count = -1;

    CHECK(st->MPI_SOURCE == MPI_PROC_NULL, "source %d", st->MPI_SOURCE);
    CHECK(st->MPI_TAG == MPI_ANY_TAG, "tag %d", st->MPI_TAG);
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == 0, "count %d", count);
}

int main(int argc, char **argv)
{
    int buf[4] = { 1, 2, 3, 4 }, flag = 0;
    MPI_Request r;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_OK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    check_null_status(&st);
    CHECK(buf[0] == 1 && buf[3] == 4, "buffer changed");

    MPI_OK(MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag && r == MPI_REQUEST_NULL, "Irecv from MPI_PROC_NULL not complete");
    check_null_status(&st);
    MPI_OK(MPI_Isend(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));

    MPI_OK(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_null_status(&st);
    flag = 0;
    MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st));
    CHECK(flag, "Iprobe of MPI_PROC_NULL found nothing");
    check_null_status(&st);

    MPI_OK(MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 1, buf, 4, MPI_INT,
                        MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    check_null_status(&st);
    MPI_Finalize();
    printf("p2p_proc_null: ok\n");
    return 0;
}
