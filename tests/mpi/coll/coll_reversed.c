/* Collectives on a type with a negative extent: MPI_Type_create_resized(
 * MPI_INT, 0, -4) lays element i at buf - 4 i, so an array of such
 * elements runs backwards from buf. Reductions and the gathers use
 * scratch buffers shaped like the user's; each must cover the bytes below
 * buf, not above it. Checks exact values and that the ints around the
 * buffers stay untouched. Plain MPI + C.
 */
#include "mpi_test_util.h"

#define N 5     /* elements per rank */
#define GUARD 3 /* untouched ints on each side */
#define MAXR 8

static int rank, size;
static MPI_Datatype rev;

/* An array of GUARD + n + GUARD ints; the elements are a[GUARD .. GUARD+n),
 * element i of the reversed type being a[GUARD + n - 1 - i]. */
typedef struct arr {
    int a[2 * GUARD + N * MAXR];
    int n;
} arr;

static void arr_init(arr *x, int n, int fill)
{
    x->n = n;
    for (int i = 0; i < 2 * GUARD + n; i++)
        x->a[i] = fill;
}

static int *first(arr *x)
{
    return &x->a[GUARD + x->n - 1];
}

static int *elem(arr *x, int i)
{
    return first(x) - i;
}

static void check_guards(arr *x, int fill, const char *what)
{
    for (int i = 0; i < GUARD; i++)
        CHECK(x->a[i] == fill && x->a[GUARD + x->n + i] == fill, "%s: a guard int changed", what);
}

static void reductions(void)
{
    arr s, r;

    arr_init(&s, N, -1);
    for (int i = 0; i < N; i++)
        *elem(&s, i) = rank * 100 + i;
    arr_init(&r, N, -2);
    MPI_OK(MPI_Allreduce(first(&s), first(&r), N, rev, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(*elem(&r, i) == 100 * size * (size - 1) / 2 + size * i, "allreduce element %d", i);
    check_guards(&r, -2, "allreduce");
    arr_init(&r, N, -2);
    MPI_OK(MPI_Reduce(first(&s), first(&r), N, rev, MPI_MAX, size - 1, MPI_COMM_WORLD));
    for (int i = 0; rank == size - 1 && i < N; i++)
        CHECK(*elem(&r, i) == (size - 1) * 100 + i, "reduce element %d", i);
    check_guards(&r, -2, "reduce");
    arr_init(&r, N, -2);
    MPI_OK(MPI_Scan(first(&s), first(&r), N, rev, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(*elem(&r, i) == 100 * rank * (rank + 1) / 2 + (rank + 1) * i, "scan element %d", i);
    check_guards(&r, -2, "scan");
    check_guards(&s, -1, "reduction send buffer");
}

static void movers(void)
{
    arr s, r;

    arr_init(&s, N, -1);
    for (int i = 0; i < N; i++)
        *elem(&s, i) = rank == 0 ? 7 * i + 1 : -5;
    MPI_OK(MPI_Bcast(first(&s), N, rev, 0, MPI_COMM_WORLD));
    for (int i = 0; i < N; i++)
        CHECK(*elem(&s, i) == 7 * i + 1, "bcast element %d", i);
    check_guards(&s, -1, "bcast");

    arr_init(&s, N, -1);
    for (int i = 0; i < N; i++)
        *elem(&s, i) = rank * 100 + i;
    arr_init(&r, N * size, -2);
    MPI_OK(MPI_Allgather(first(&s), N, rev, first(&r), N, rev, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < N; i++)
            CHECK(*elem(&r, q * N + i) == q * 100 + i, "allgather block %d element %d", q, i);
    check_guards(&r, -2, "allgather");

    arr_init(&s, N * size, -1);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < N; i++)
            *elem(&s, q * N + i) = rank * 1000 + q * 10 + i;
    arr_init(&r, N * size, -2);
    MPI_OK(MPI_Alltoall(first(&s), N, rev, first(&r), N, rev, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < N; i++)
            CHECK(*elem(&r, q * N + i) == q * 1000 + rank * 10 + i,
                  "alltoall block %d element %d", q, i);
    check_guards(&r, -2, "alltoall");
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= MAXR, "at most %d ranks", MAXR);
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &rev));
    MPI_OK(MPI_Type_commit(&rev));
    for (int round = 0; round < 3; round++) {
        reductions();
        movers();
    }
    MPI_OK(MPI_Type_free(&rev));
    if (rank == 0)
        printf("coll_reversed: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
