/* Collectives on 16 MiB buffers (the long-message algorithms: scatter +
 * ring broadcast, Rabenseifner allreduce and reduce, ring allgather, pairwise
 * alltoall), blocking and nonblocking, against serial computations. Few
 * and big: the suite also runs under AddressSanitizer.
 */
#include "coll_test.h"

#define BIG (16L << 20) /* bytes */

static int me, np;

static void test_bcast(int root)
{
    long n = BIG / (long)sizeof(int);
    int *b = xmalloc((size_t)BIG);

    for (long i = 0; i < n; i++)
        b[i] = me == root ? coll_val(root, i, 1) : -1;
    MPI_OK(MPI_Bcast(b, (int)n, MPI_INT, root, MPI_COMM_WORLD));
    for (long i = 0; i < n; i++)
        CHECK(b[i] == coll_val(root, i, 1), "bcast [%ld]", i);
    free(b);
}

static void test_allreduce(int nonblocking)
{
    long n = BIG / (long)sizeof(int);
    int *s = xmalloc((size_t)BIG), *r = xmalloc((size_t)BIG);
    MPI_Request rq;

    for (long i = 0; i < n; i++)
        s[i] = coll_val(me, i, 2);
    if (nonblocking) {
        MPI_OK(MPI_Iallreduce(s, r, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Allreduce(s, r, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    }
    for (long i = 0; i < n; i++) {
        int want = 0;
        for (int q = 0; q < np; q++)
            want += coll_val(q, i, 2);
        CHECK(r[i] == want, "allreduce [%ld]=%d want %d", i, r[i], want);
    }
    free(s);
    free(r);
}

static void test_reduce(int root)
{
    long n = BIG / (long)sizeof(int);
    int *s = xmalloc((size_t)BIG), *r = me == root ? xmalloc((size_t)BIG) : NULL;

    for (long i = 0; i < n; i++)
        s[i] = coll_val(me, i, 5);
    MPI_OK(MPI_Reduce(s, r, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    for (long i = 0; i < n && me == root; i++) {
        int want = 0;
        for (int q = 0; q < np; q++)
            want += coll_val(q, i, 5);
        CHECK(r[i] == want, "reduce [%ld]=%d want %d", i, r[i], want);
    }
    free(s);
    free(r);
}

static void test_allgather(void)
{
    long n = BIG / (long)sizeof(int) / np; /* the result is 16 MiB */
    int *s = xmalloc((size_t)n * sizeof *s), *r = xmalloc((size_t)n * np * sizeof *r);

    for (long i = 0; i < n; i++)
        s[i] = coll_val(me, i, 3);
    MPI_OK(MPI_Allgather(s, (int)n, MPI_INT, r, (int)n, MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < np; q++)
        for (long i = 0; i < n; i++)
            CHECK(r[q * n + i] == coll_val(q, i, 3), "allgather q=%d [%ld]", q, i);
    free(s);
    free(r);
}

static void test_alltoall(void)
{
    long n = BIG / (long)sizeof(int) / np / np; /* 16 MiB over all ranks */
    int *s = xmalloc((size_t)n * np * sizeof *s), *r = xmalloc((size_t)n * np * sizeof *r);
    MPI_Request rq;

    for (int q = 0; q < np; q++)
        for (long i = 0; i < n; i++)
            s[q * n + i] = coll_val(me, q * n + i, 4);
    MPI_OK(MPI_Ialltoall(s, (int)n, MPI_INT, r, (int)n, MPI_INT, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int q = 0; q < np; q++)
        for (long i = 0; i < n; i++)
            CHECK(r[q * n + i] == coll_val(q, me * n + i, 4), "alltoall q=%d [%ld]", q, i);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    test_bcast(np / 2);
    test_allreduce(1);
    test_reduce(np - 1);
    test_allgather();
    test_alltoall();
    MPI_OK(MPI_Finalize());
    return 0;
}
