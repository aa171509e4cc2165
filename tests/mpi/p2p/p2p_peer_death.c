/* A rank that dies mid-job turns into errors for the others, never into a
 * hang: rank 1 exits abruptly (no MPI_Finalize) while rank 0 waits in
 * MPI_Recv for a message from it. Under MPI_ERRORS_RETURN rank 0's receive
 * fails (or the launcher stops rank 0 first); either way the job ends
 * promptly with a non-zero status, which is what the test runner checks
 * (expect_failure.cmake).
 */
#include <unistd.h>

#include "mpi_test_util.h"

int main(int argc, char **argv)
{
    int rank, v = 0, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        fflush(stdout);
        _exit(7);
    }
    if (rank == 0) {
        rc = MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc != MPI_SUCCESS, "a receive from a dead rank succeeded");
        printf("p2p_peer_death: rank 0 saw the error (code %d)\n", rc);
    }
    MPI_Finalize();
    return 0;
}
