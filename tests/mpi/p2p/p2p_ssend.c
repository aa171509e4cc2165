/* MPI_Ssend completes only after the matching receive has started.
 *
 * Rank 1 posts its receive only after rank 0 says "go" (another message).
 * Until then rank 0's MPI_Issend must not complete however often it is
 * tested (a logical guarantee, not a timing one), for a small message (an
 * eager one in standard mode) and a large one; after "go" it completes.
 * The same holds for a synchronous send to oneself, which completes only
 * once the receive is posted. Blocking MPI_Ssend then completes normally.
 */
#include "mpi_test_util.h"

#define TESTS 2000

static void not_before_go(int n)
{
    int *buf = calloc((size_t)n, sizeof(int)), go = 1, flag = 0;
    MPI_Request r;

    MPI_OK(MPI_Issend(buf, n, MPI_INT, 1, 5, MPI_COMM_WORLD, &r));
    for (int i = 0; i < TESTS; i++) {
        MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend of %d ints completed before the receive was posted", n);
    }
    MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    free(buf);
}

static void receive_after_go(int n)
{
    int *buf = malloc((size_t)n * sizeof(int)), go;

    MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(buf, n, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    free(buf);
}

static void to_self(int rank)
{
    int v = 11, w = 0, flag = 0;
    MPI_Request s, r;

    MPI_OK(MPI_Issend(&v, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &s));
    for (int i = 0; i < TESTS; i++) {
        MPI_OK(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Issend to self completed before the receive was posted");
    }
    MPI_OK(MPI_Irecv(&w, 1, MPI_INT, rank, 9, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(w == 11, "self Issend carried %d", w);
}

int main(int argc, char **argv)
{
    int rank, size, v = 3;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs 2 ranks");
    to_self(rank);
    for (int n = 1; n <= 1 << 18; n <<= 9) {
        if (rank == 0)
            not_before_go(n);
        else if (rank == 1)
            receive_after_go(n);
    }
    if (rank == 0)
        MPI_OK(MPI_Ssend(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
    else if (rank == 1)
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_ssend: ok\n");
    return 0;
}
