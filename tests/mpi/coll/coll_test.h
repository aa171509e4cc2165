/* What the collective test programs share: each rank's deterministic
 * contribution, and a non-commutative reduction (2x2 matrix product over
 * unsigned ints, wrapping), with its serial reference. Plain MPI + C. */
#ifndef COLL_TEST_H
#define COLL_TEST_H

#include "mpi_test_util.h"

/* Rank r's element i for test `seed`: small enough that sums over 8
 * ranks of products of counts never overflow an int. */
static inline int coll_val(int r, long i, int seed)
{
    return (int)((r + 1) * 1000 + (i * 7 + seed) % 997);
}

/* A 2x2 matrix, row major; the product is not commutative. */
typedef struct mat2 {
    unsigned m[4];
} mat2;

static inline mat2 mat_of(int r, long i, int seed)
{
    mat2 a = { { (unsigned)(r + 2), (unsigned)(i + seed + 1),
                 (unsigned)(r * 3 + 1), (unsigned)(i % 5 + r + 1) } };
    return a;
}

static inline mat2 mat_mul(mat2 a, mat2 b)
{
    mat2 c = { { a.m[0] * b.m[0] + a.m[1] * b.m[2], a.m[0] * b.m[1] + a.m[1] * b.m[3],
                 a.m[2] * b.m[0] + a.m[3] * b.m[2], a.m[2] * b.m[1] + a.m[3] * b.m[3] } };
    return c;
}

static inline int mat_eq(mat2 a, mat2 b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* The product of ranks lo..hi-1's element i, in rank order. */
static inline mat2 mat_range(int lo, int hi, long i, int seed)
{
    mat2 p = mat_of(lo, i, seed);

    for (int r = lo + 1; r < hi; r++)
        p = mat_mul(p, mat_of(r, i, seed));
    return p;
}

/* MPI user function: inout = in * inout (in holds the lower ranks). */
static void mat_op_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat2 *a = in, *b = inout;

    (void)dt;
    for (int i = 0; i < *len; i++)
        b[i] = mat_mul(a[i], b[i]);
}

static MPI_Datatype mat_type;
static MPI_Op mat_op;

static inline void mat_setup(void)
{
    MPI_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type));
    MPI_OK(MPI_Type_commit(&mat_type));
    MPI_OK(MPI_Op_create(mat_op_fn, 0, &mat_op));
}

static inline void mat_teardown(void)
{
    MPI_OK(MPI_Op_free(&mat_op));
    MPI_OK(MPI_Type_free(&mat_type));
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);

    CHECK(p != NULL, "out of memory (%zu bytes)", n);
    return p;
}

#endif /* COLL_TEST_H */
