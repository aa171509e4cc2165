/* Probe, then receive a message of unknown size: MPI_Probe/MPI_Iprobe
 * give the source, tag and size, the program allocates that much and
 * receives exactly the probed message.
 *
 * Every rank s > 0 sends rank 0 K messages of sizes it picks (0 bytes, a
 * few bytes, and above the eager limit), tag k. Rank 0 takes the first
 * half with MPI_Probe(ANY, ANY), the rest with an MPI_Iprobe loop.
 */
#include "mpi_test_util.h"

#define K 6

static size_t size_for(int s, int k)
{
    static const size_t sizes[K] = { 0, 1, 1000, 70000, 300001, 64 };

    return sizes[(s + k) % K];
}

static void take(const MPI_Status *st)
{
    int n, s = st->MPI_SOURCE, k = st->MPI_TAG;
    MPI_Status rs;

    MPI_OK(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK((size_t)n == size_for(s, k), "probed %d bytes from %d tag %d", n, s, k);
    unsigned char *buf = malloc((size_t)n + 1);
    MPI_OK(MPI_Recv(buf, n, MPI_BYTE, s, k, MPI_COMM_WORLD, &rs));
    CHECK(rs.MPI_SOURCE == s && rs.MPI_TAG == k, "received another message");
    CHECK(p2p_verify(buf, (size_t)n, (uint64_t)(s * 100 + k)) == (size_t)-1,
          "payload from %d tag %d", s, k);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size, flag;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) {
        for (int k = 0; k < K; k++) {
            size_t n = size_for(rank, k);
            unsigned char *buf = malloc(n + 1);
            p2p_fill(buf, n, (uint64_t)(rank * 100 + k));
            MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 0, k, MPI_COMM_WORLD));
            free(buf);
        }
    } else {
        int total = K * (size - 1), got = 0;
        for (; got < total / 2; got++) {
            MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            take(&st);
        }
        while (got < total) {
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            if (flag) {
                take(&st);
                got++;
            }
        }
        flag = 1;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        CHECK(!flag, "a message left over");
    }
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_probe: ok\n");
    return 0;
}
