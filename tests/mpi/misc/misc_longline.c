/* Output and communication together: rank 0 writes a 2 MiB line in
 * pieces and, half-way through it, waits for a message from rank 1; rank
 * 1 first writes 2 MB of short lines, then sends. A launcher that keeps
 * long lines whole (Weft's mpirun holds other ranks' output until rank
 * 0's newline) must keep reading rank 1's output meanwhile, or rank 1
 * blocks on a full pipe and the job hangs. The test passes if the job
 * ends (bounded by mpirun's --timeout). */
#include <unistd.h>

#include "mpi_test_util.h"

#define PIECE 65536
#define PIECES 32 /* 2 MiB */

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(1, p, n);
        CHECK(w > 0, "write to stdout failed");
        p += w;
        n -= (size_t)w;
    }
}

int main(int argc, char **argv)
{
    static char piece[PIECE], line[1001];
    int rank, size, v = 0;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    memset(piece, 'x', sizeof piece);
    memset(line, 'y', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    if (rank == 0) {
        for (int i = 0; i < PIECES; i++) {
            write_all(piece, sizeof piece);
            if (i == PIECES / 2)
                MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        write_all("\n", 1);
        CHECK(v == 42, "got %d", v);
    } else {
        for (int i = 0; i < 2000; i++)
            write_all(line, sizeof line);
        v = 42;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    }
    MPI_Finalize();
    return 0;
}
