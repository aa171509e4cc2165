/* The reductions the OSU micro-benchmarks run, on their default datatype
 * MPI_CHAR with MPI_SUM: MPI_Allreduce, MPI_Reduce, MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block and their non-blocking forms. Each succeeds
 * and gives the sum of every rank's contribution, wrapped to char.
 *
 * Rank r contributes (r + i) % 5 at index i, so a sum stays well inside
 * char's range on any number of ranks this suite runs.
 */
#include <stdlib.h>

#include "mpi_test_util.h"

#define PER_RANK 37

static int rank, size;

static char contribution(int r, int i)
{
    return (char)((r + i) % 5);
}

static char expected(int i)
{
    int s = 0;
    for (int r = 0; r < size; r++)
        s += contribution(r, i);
    return (char)s;
}

static void fill(char *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = contribution(rank, i);
}

/* buf[0, n) holds the sums of indices [first, first + n). */
static void check_sums(const char *buf, int first, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == expected(first + i), "%s: index %d is %d, expected %d", what,
              first + i, buf[i], expected(first + i));
}

static void allreduce_and_reduce(char *in, char *out, int n)
{
    MPI_Request rq;

    MPI_OK(MPI_Allreduce(in, out, n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_sums(out, 0, n, "MPI_Allreduce");
    MPI_OK(MPI_Iallreduce(in, out, n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_sums(out, 0, n, "MPI_Iallreduce");
    MPI_OK(MPI_Reduce(in, out, n, MPI_CHAR, MPI_SUM, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        check_sums(out, 0, n, "MPI_Reduce");
    MPI_OK(MPI_Ireduce(in, out, n, MPI_CHAR, MPI_SUM, 0, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (rank == 0)
        check_sums(out, 0, n, "MPI_Ireduce");
}

static void reduce_scatters(char *in, char *out)
{
    int *counts = malloc((size_t)size * sizeof *counts);
    MPI_Request rq;

    CHECK(counts != NULL, "out of memory");
    for (int r = 0; r < size; r++)
        counts[r] = PER_RANK;
    MPI_OK(MPI_Reduce_scatter(in, out, counts, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_sums(out, rank * PER_RANK, PER_RANK, "MPI_Reduce_scatter");
    MPI_OK(MPI_Ireduce_scatter(in, out, counts, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_sums(out, rank * PER_RANK, PER_RANK, "MPI_Ireduce_scatter");
    MPI_OK(MPI_Reduce_scatter_block(in, out, PER_RANK, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
    check_sums(out, rank * PER_RANK, PER_RANK, "MPI_Reduce_scatter_block");
    MPI_OK(MPI_Ireduce_scatter_block(in, out, PER_RANK, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD,
                                     &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    check_sums(out, rank * PER_RANK, PER_RANK, "MPI_Ireduce_scatter_block");
    free(counts);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    int n = PER_RANK * size;
    char *in = malloc((size_t)n), *out = malloc((size_t)n);
    CHECK(in && out, "out of memory");
    fill(in, n);
    allreduce_and_reduce(in, out, n);
    reduce_scatters(in, out);
    free(in);
    free(out);
    MPI_OK(MPI_Finalize());
    return 0;
}
