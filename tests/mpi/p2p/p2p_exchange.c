/* Two ranks exchanging 64 MiB each way at the same time never deadlock
 * (sending and receiving progress independently): with MPI_Isend and
 * MPI_Irecv in both orders, and with MPI_Sendrecv. With more ranks, every
 * rank also exchanges 8 MiB with every other at once. Checksums verify
 * the data.
 */
#include "mpi_test_util.h"

#define BIG ((size_t)64 << 20)
#define ALL ((size_t)8 << 20)

static void pair(int rank, int peer, unsigned char *out, unsigned char *in, int order)
{
    MPI_Request rq[2];

    p2p_fill(out, BIG, (uint64_t)rank * 7 + (uint64_t)order);
    memset(in, 0, BIG);
    if (order == 0) {
        MPI_OK(MPI_Irecv(in, (int)BIG, MPI_BYTE, peer, order, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Isend(out, (int)BIG, MPI_BYTE, peer, order, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    } else if (order == 1) {
        MPI_OK(MPI_Isend(out, (int)BIG, MPI_BYTE, peer, order, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Irecv(in, (int)BIG, MPI_BYTE, peer, order, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Sendrecv(out, (int)BIG, MPI_BYTE, peer, order, in, (int)BIG,
                            MPI_BYTE, peer, order, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    size_t bad = p2p_verify(in, BIG, (uint64_t)peer * 7 + (uint64_t)order);
    CHECK(bad == (size_t)-1, "order %d: byte %zu from %d differs", order, bad, peer);
}

static void all_to_all(int rank, int size, unsigned char *out, unsigned char *in)
{
    MPI_Request *rq = malloc(2 * (size_t)size * sizeof *rq);
    int n = 0;

    p2p_fill(out, ALL, (uint64_t)rank + 1000);
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        MPI_OK(MPI_Irecv(in + (size_t)p * ALL, (int)ALL, MPI_BYTE, p, 9, MPI_COMM_WORLD, &rq[n++]));
        MPI_OK(MPI_Isend(out, (int)ALL, MPI_BYTE, p, 9, MPI_COMM_WORLD, &rq[n++]));
    }
    MPI_OK(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; p++)
        CHECK(p == rank || p2p_verify(in + (size_t)p * ALL, ALL, (uint64_t)p + 1000) == (size_t)-1,
              "all-to-all: data from %d differs", p);
    free(rq);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *out = malloc(BIG), *in = malloc(BIG > ALL * (size_t)size ? BIG : ALL * (size_t)size);
    CHECK(out && in, "no memory");
    if ((rank ^ 1) < size)
        for (int order = 0; order < 3; order++)
            pair(rank, rank ^ 1, out, in, order);
    all_to_all(rank, size, out, in);
    free(out);
    free(in);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_exchange: ok\n");
    return 0;
}
