/* Message sizes from 0 bytes to 64 MiB, on both sides of the eager limit,
 * arrive whole: rank 0 sends each size to rank 1, which checks count and
 * content and sends it back; rank 0 checks the echo's checksum.
 */
#include "mpi_test_util.h"

static const size_t sizes[] = {
    0, 1, 7, 1024, 65535, 65536, 65537, 200000, 1 << 20, (size_t)64 << 20,
};
#define NSIZES (sizeof sizes / sizeof *sizes)

int main(int argc, char **argv)
{
    int rank, count;
    MPI_Status st;
    unsigned char *buf = malloc(((size_t)64 << 20) + 1);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(buf, "no memory");
    for (size_t i = 0; i < NSIZES && rank < 2; i++) {
        size_t n = sizes[i];
        if (rank == 0) {
            p2p_fill(buf, n, n);
            uint64_t sum = p2p_checksum(buf, n);
            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, (int)i, MPI_COMM_WORLD));
            memset(buf, 0, n);
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 1, (int)i, MPI_COMM_WORLD, &st));
            CHECK(p2p_checksum(buf, n) == sum, "echo of %zu bytes differs", n);
        } else {
            memset(buf, 0xee, n);
            MPI_OK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, (int)i, MPI_COMM_WORLD, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
            CHECK((size_t)count == n, "got %d bytes of %zu", count, n);
            size_t bad = p2p_verify(buf, n, n);
            CHECK(bad == (size_t)-1, "%zu bytes: byte %zu differs", n, bad);
            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 0, (int)i, MPI_COMM_WORLD));
        }
    }
    free(buf);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_sizes: ok\n");
    return 0;
}
