/* A program that starts Weft itself before MPI_Init (built against Weft's
 * mpi.h, WEFT_MPI defined; under Open MPI the exchange alone runs): MPI
 * then uses the running runtime, and every rank exchanges small and 4 MiB
 * messages with every other rank at once (MPI_Isend / MPI_Irecv /
 * MPI_Waitall), the data checked byte for byte. With more ranks than
 * CPUs the engine's idle polls move large messages in larger passes
 * (engine/core/init.c): both budgets are exercised by the rank counts in the
 * testlist.
 */
#include "mpi_test_util.h"

#ifdef WEFT_MPI
#include <weft.h>
#endif

#define LARGE (4 << 20) /* bytes */
#define ROUNDS 3

static int rank, size;

/* One round: to every other rank a message of `len` bytes, from every
 * other rank one back; seeds name sender, receiver and round. */
static void exchange(unsigned char **out, unsigned char **in, size_t len, int round)
{
    MPI_Request *rq = malloc(2 * (size_t)size * sizeof *rq);
    int n = 0;

    CHECK(rq != NULL, "out of memory");
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        p2p_fill(out[p], len, (uint64_t)(rank * 1000 + p * 10 + round));
        MPI_OK(MPI_Irecv(in[p], (int)len, MPI_BYTE, p, round, MPI_COMM_WORLD, &rq[n++]));
        MPI_OK(MPI_Isend(out[p], (int)len, MPI_BYTE, p, round, MPI_COMM_WORLD, &rq[n++]));
    }
    MPI_OK(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; p++)
        CHECK(p == rank || p2p_verify(in[p], len, (uint64_t)(p * 1000 + rank * 10 + round)) ==
                               (size_t)-1,
              "round %d: wrong data from rank %d (%zu bytes)", round, p, len);
    free(rq);
}

int main(int argc, char **argv)
{
#ifdef WEFT_MPI
    CHECK(weft_init() == 0, "weft_init");
#endif
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char **out = calloc((size_t)size, sizeof *out), **in = calloc((size_t)size, sizeof *in);
    CHECK(out && in, "out of memory");
    for (int p = 0; p < size; p++) {
        out[p] = malloc(LARGE);
        in[p] = malloc(LARGE);
        CHECK(out[p] && in[p], "out of memory");
    }
    for (int round = 0; round < ROUNDS; round++) {
        exchange(out, in, 16, 2 * round);
        exchange(out, in, LARGE, 2 * round + 1);
    }
    for (int p = 0; p < size; p++) {
        free(out[p]);
        free(in[p]);
    }
    free(out);
    free(in);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_weft_first: ok\n");
    return 0;
}
