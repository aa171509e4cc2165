/* Messages that arrive before their receives are posted (unexpected)
 * come out whole and in their own sizes, round after round, whatever the
 * size of the message buffered before them: rank 1 sends a batch of
 * messages of sizes around 4 KiB, 32 KiB and 64 KiB (Weft's default eager
 * limit) and a zero-byte one; only after a barrier does rank 0 receive
 * them, in reverse order, checking count and content. Each round shifts
 * the sizes by one place, so a record freed by one message is reused for
 * a message of another size in the next round.
 */
#include "mpi_test_util.h"

static const int sizes[] = {
    0, 1, 4095, 4096, 4097, 32768, 36000, 65535, 65536, 65537, 200000,
};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))
#define ROUNDS 4
#define BATCH (2 * NSIZES)

static int size_of(int round, int k)
{
    return sizes[(k + round) % NSIZES];
}

static void send_batch(unsigned char **bufs, int round)
{
    MPI_Request reqs[BATCH];

    for (int k = 0; k < BATCH; k++) {
        int n = size_of(round, k);
        p2p_fill(bufs[k], (size_t)n, (uint64_t)(round * BATCH + k));
        MPI_OK(MPI_Isend(bufs[k], n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &reqs[k]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Waitall(BATCH, reqs, MPI_STATUSES_IGNORE));
}

static void receive_batch(unsigned char *buf, int round)
{
    MPI_Status st;
    int count;

    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = BATCH - 1; k >= 0; k--) {
        int n = size_of(round, k);
        memset(buf, 0xee, (size_t)n + 1);
        MPI_OK(MPI_Recv(buf, n + 1, MPI_BYTE, 1, k, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == n, "round %d tag %d: got %d bytes of %d", round, k, count, n);
        size_t bad = p2p_verify(buf, (size_t)n, (uint64_t)(round * BATCH + k));
        CHECK(bad == (size_t)-1, "round %d, %d bytes: byte %zu differs", round, n, bad);
        CHECK(buf[n] == 0xee, "round %d: %d bytes overran the message", round, n);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    unsigned char *bufs[BATCH];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks, has %d", size);
    for (int k = 0; k < BATCH; k++) {
        bufs[k] = malloc(200001);
        CHECK(bufs[k], "no memory");
    }
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 1)
            send_batch(bufs, round);
        else
            receive_batch(bufs[0], round);
    }
    for (int k = 0; k < BATCH; k++)
        free(bufs[k]);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_unexpected: ok\n");
    return 0;
}
