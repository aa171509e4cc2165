/* Messages to oneself: small blocking sends (buffered by the library),
 * large ones with MPI_Isend (a blocking large send to oneself before the
 * receive is posted may deadlock, as MPI allows), wildcard receives whose
 * status names oneself, and MPI_COMM_SELF, whose traffic never mixes with
 * MPI_COMM_WORLD's even with the same tag.
 */
#include "mpi_test_util.h"

#define LARGE (1 << 20)

static void small(int rank)
{
    int v = 100 + rank, w = 0;
    MPI_Status st;

    MPI_OK(MPI_Send(&v, 1, MPI_INT, rank, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(w == v && st.MPI_SOURCE == rank && st.MPI_TAG == 1, "self send: %d from %d", w,
          st.MPI_SOURCE);
}

static void large(int rank)
{
    unsigned char *big = malloc(LARGE), *back = malloc(LARGE);
    MPI_Status st;
    MPI_Request r;
    int n;

    p2p_fill(big, LARGE, 5);
    MPI_OK(MPI_Isend(big, LARGE, MPI_BYTE, rank, 2, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(back, LARGE, MPI_BYTE, rank, 2, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == LARGE && p2p_verify(back, LARGE, 5) == (size_t)-1, "large self message");

    MPI_OK(MPI_Irecv(back, LARGE, MPI_BYTE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(big, 1000, MPI_BYTE, rank, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 1000 && st.MPI_SOURCE == rank, "posted-first self receive");
    free(big);
    free(back);
}

static void comm_self(int rank)
{
    int me, n, v, w;
    MPI_Status st;

    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &n));
    CHECK(me == 0 && n == 1, "MPI_COMM_SELF is rank %d of %d", me, n);
    v = 1;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, rank, 4, MPI_COMM_WORLD));
    v = 2;
    MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 4, MPI_COMM_SELF));
    MPI_OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_SELF, &st));
    CHECK(w == 2 && st.MPI_SOURCE == 0, "MPI_COMM_SELF got %d from %d", w, st.MPI_SOURCE);
    MPI_OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st));
    CHECK(w == 1 && st.MPI_SOURCE == rank, "MPI_COMM_WORLD got %d", w);
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    small(rank);
    large(rank);
    comm_self(rank);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_self: ok\n");
    return 0;
}
