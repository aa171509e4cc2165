/* A send buffer is the program's again as soon as its send completes: what
 * the receiver gets is what the buffer held while the send was pending,
 * even when the program overwrites it the moment MPI_Send, MPI_Wait or
 * MPI_Waitall returns (a transport that hands the buffer's pages to the
 * kernel must not complete the send before the peer has read them).
 * Rank 0 sends large messages (128 KiB to 8 MiB, at odd offsets) from one
 * buffer, refilling it with the next message's pattern right after each
 * completion; a window of sends from distinct buffers is overwritten after
 * MPI_Waitall. Rank 1 checks every message against its pattern.
 */
#include "mpi_test_util.h"

#define ROUNDS 6
#define WINDOW 8
static const size_t sizes[] = { 131072, 1048576 + 3, 4194304, 8388608 - 5 };
#define NSIZES (sizeof sizes / sizeof *sizes)
#define MAXSZ ((size_t)8388608)

static void one_at_a_time(unsigned char *buf, int rank)
{
    for (int k = 0; k < ROUNDS * (int)NSIZES; k++) {
        size_t n = sizes[k % NSIZES], off = (size_t)k % 7;
        if (rank == 0) {
            p2p_fill(buf + off, n, (uint64_t)k);
            if (k % 2)
                MPI_OK(MPI_Send(buf + off, (int)n, MPI_BYTE, 1, k, MPI_COMM_WORLD));
            else {
                MPI_Request rq;
                MPI_OK(MPI_Isend(buf + off, (int)n, MPI_BYTE, 1, k, MPI_COMM_WORLD, &rq));
                MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            }
            memset(buf, 0xa5, MAXSZ + 8); /* the buffer is ours again */
        } else {
            MPI_OK(MPI_Recv(buf + off, (int)n, MPI_BYTE, 0, k, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE));
            size_t bad = p2p_verify(buf + off, n, (uint64_t)k);
            CHECK(bad == (size_t)-1, "message %d (%zu bytes): byte %zu differs", k, n, bad);
        }
    }
}

static void windows(unsigned char **bufs, int rank)
{
    MPI_Request rq[WINDOW];
    size_t n = 1048576;

    for (int round = 0; round < ROUNDS; round++) {
        for (int j = 0; j < WINDOW; j++) {
            uint64_t seed = 1000u + (uint64_t)(round * WINDOW + j);
            if (rank == 0) {
                p2p_fill(bufs[j], n, seed);
                MPI_OK(MPI_Isend(bufs[j], (int)n, MPI_BYTE, 1, j, MPI_COMM_WORLD, &rq[j]));
            } else {
                MPI_OK(MPI_Irecv(bufs[j], (int)n, MPI_BYTE, 0, j, MPI_COMM_WORLD, &rq[j]));
            }
        }
        MPI_OK(MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE));
        for (int j = 0; j < WINDOW; j++) {
            uint64_t seed = 1000u + (uint64_t)(round * WINDOW + j);
            if (rank == 0) {
                memset(bufs[j], 0x5a, n);
                continue;
            }
            size_t bad = p2p_verify(bufs[j], n, seed);
            CHECK(bad == (size_t)-1, "round %d message %d: byte %zu differs", round, j, bad);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned char *buf, *bufs[WINDOW];
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    buf = malloc(MAXSZ + 8);
    CHECK(buf, "out of memory");
    for (int j = 0; j < WINDOW; j++) {
        bufs[j] = malloc(1048576);
        CHECK(bufs[j], "out of memory");
    }
    if (rank < 2) {
        one_at_a_time(buf, rank);
        windows(bufs, rank);
    }
    for (int j = 0; j < WINDOW; j++)
        free(bufs[j]);
    free(buf);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_reuse: %d messages and %d windows intact\n",
               ROUNDS * (int)NSIZES, ROUNDS);
    return 0;
}
