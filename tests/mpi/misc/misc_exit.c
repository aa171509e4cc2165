/* How a job ends when a rank leaves early, with the real MPI library (the
 * launcher's own tests use a bootstrap-only rank program). The first
 * argument picks the case; expect_exit.cmake checks mpirun's status and
 * message:
 *   nofinalize   rank 1 returns 0 from main without MPI_Finalize while the
 *                others wait in MPI_Recv for it: mpirun names rank 1 and
 *                exits 1;
 *   code N       rank 1 exits with status N mid-job while the others wait
 *                in MPI_Recv: the job exits with N and the others are
 *                stopped;
 *   after N      rank 1 exits with N after MPI_Finalize: the job exits N.
 */
#include "mpi_test_util.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int code = argc > 2 ? atoi(argv[2]) : 0;
    int rank, v = 0;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (strcmp(mode, "after") == 0) {
        MPI_Finalize();
        return rank == 1 ? code : 0;
    }
    if (rank == 1) {
        printf("rank 1 leaving\n");
        fflush(stdout);
        return strcmp(mode, "nofinalize") == 0 ? 0 : code;
    }
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
