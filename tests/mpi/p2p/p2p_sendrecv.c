/* MPI_Sendrecv and MPI_Sendrecv_replace around a ring (each rank sends to
 * the next and receives from the previous at once, which would deadlock
 * with blocking sends of large messages), with small and large messages
 * and a wildcard source.
 */
#include "mpi_test_util.h"

#define LARGE (1 << 20)

int main(int argc, char **argv)
{
    int rank, size, n;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    unsigned char *out = malloc(LARGE), *in = malloc(LARGE);

    for (int len = 4; len <= LARGE; len *= 64) {
        p2p_fill(out, (size_t)len, (uint64_t)rank + (uint64_t)len);
        MPI_OK(MPI_Sendrecv(out, len, MPI_BYTE, next, 1, in, LARGE, MPI_BYTE,
                            MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == len && st.MPI_SOURCE == prev && st.MPI_TAG == 1, "Sendrecv %d bytes", len);
        CHECK(p2p_verify(in, (size_t)len, (uint64_t)prev + (uint64_t)len) == (size_t)-1,
              "Sendrecv payload of %d bytes", len);

        p2p_fill(out, (size_t)len, (uint64_t)rank * 3 + (uint64_t)len);
        MPI_OK(MPI_Sendrecv_replace(out, len, MPI_BYTE, next, 2, prev, 2, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == len && st.MPI_SOURCE == prev, "Sendrecv_replace %d bytes", len);
        CHECK(p2p_verify(out, (size_t)len, (uint64_t)prev * 3 + (uint64_t)len) == (size_t)-1,
              "Sendrecv_replace payload of %d bytes", len);
    }
    free(out);
    free(in);
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_sendrecv: ok\n");
    return 0;
}
