/* User ops inside collectives: a non-commutative op is applied in rank
 * order by MPI_Reduce and MPI_Allreduce, and an op freed (MPI_Op_free)
 * while a non-blocking collective still uses it stays valid until that
 * collective completes (MPI-3.1 5.9.5: "the operation is marked for
 * deallocation"); the collective's result is still right.
 *
 * The op concatenates decimal digits: an element is (value, width), the
 * digits combined so far and how many there are, and in op inout is in's
 * digits followed by inout's, so the result spells the ranks' digits in
 * the order the op combined them (any other order shows).
 */
#include "mpi_test_util.h"

#define N 5

/* concat(a, b) = a * 10^width(b) + b, widths added. */
typedef struct { long long value, width; } digits;

static void concat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const digits *a = in;
    digits *b = inout;

    (void)dt;
    for (int i = 0; i < *len; i++) {
        long long scale = 1;
        for (long long k = 0; k < b[i].width; k++)
            scale *= 10;
        b[i].value = a[i].value * scale + b[i].value;
        b[i].width += a[i].width;
    }
}

/* The expected digits of element i: (r + i) mod 10 for r = 0 .. size-1
 * (at most 8 digits: no overflow). */
static long long expected(int size, int i)
{
    long long v = 0;

    for (int r = 0; r < size; r++)
        v = v * 10 + (r + i) % 10;
    return v;
}

static void fill(digits *d, int rank)
{
    for (int i = 0; i < N; i++)
        d[i] = (digits){ (rank + i) % 10, 1 };
}

static void check(const digits *d, int size, const char *what)
{
    for (int i = 0; i < N; i++)
        CHECK(d[i].value == expected(size, i) && d[i].width == size,
              "%s element %d: %lld (width %lld), expected %lld", what, i,
              d[i].value, d[i].width, expected(size, i));
}

int main(int argc, char **argv)
{
    int rank, size;
    digits mine[N], out[N];
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Request req;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size <= 8, "at most 8 ranks (digits must fit a long long)");
    MPI_OK(MPI_Type_contiguous(2, MPI_LONG_LONG, &pair));
    MPI_OK(MPI_Type_commit(&pair));
    MPI_OK(MPI_Op_create(concat, 0, &op));

    fill(mine, rank);
    MPI_OK(MPI_Reduce(mine, out, N, pair, op, size - 1, MPI_COMM_WORLD));
    if (rank == size - 1)
        check(out, size, "MPI_Reduce");
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Allreduce(mine, out, N, pair, op, MPI_COMM_WORLD));
    check(out, size, "MPI_Allreduce");

    /* free the op while the collective may still need it */
    memset(out, 0, sizeof out);
    MPI_OK(MPI_Iallreduce(mine, out, N, pair, op, MPI_COMM_WORLD, &req));
    MPI_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free leaves MPI_OP_NULL");
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check(out, size, "MPI_Iallreduce with the op freed");

    MPI_OK(MPI_Type_free(&pair));
    MPI_OK(MPI_Finalize());
    return 0;
}
