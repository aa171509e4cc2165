/* The array constructors: MPI_Type_create_subarray and
 * MPI_Type_create_darray, as type maps of an n-dimensional array of the
 * old type.
 *
 * Design: both reduce to one walk. Each dimension contributes the sorted
 * list of indices this type selects along it (a subarray: start ..
 * start + subsize - 1; a darray: this process's block, cyclic blocks, or
 * everything); the type map is their Cartesian product in array order
 * (C: last index fastest; Fortran: first), emitted as one block per run
 * of consecutive indices of the fastest dimension, so the builder merges
 * regular patterns into strided segments. Both types span the whole
 * array: lb 0, extent = product of sizes * extent of the old type, set
 * as markers (as MPI defines them through MPI_Type_create_resized).
 *
 * darray (MPI-3.1 4.1.4): processes form a row-major grid of psizes
 * whatever the array order; BLOCK gives process p indices
 * [p*b, min((p+1)*b, g)) with b = darg or ceil(g/psize); CYCLIC(k) gives
 * blocks of k every psize*k (k = darg or 1); NONE the whole dimension
 * (psize must be 1).
 *
 * Rejected: building darray from nested vectors and resized types as the
 * standard describes it (several intermediate types per dimension; the
 * index lists give the same map directly).
 * Invariants: index lists are strictly increasing and within [0, g).
 * Locking: none (a type under construction belongs to its caller).
 */
#include <stdlib.h>

#include "engine/objects/datatype_impl.h"

/* An n-dimensional selection in walk order (slowest dimension first). */
typedef struct grid {
    int n;
    const int *g;      /* sizes, by array dimension */
    int fortran;       /* walk dimensions in reverse */
    int64_t **ix;      /* [n]: selected indices, by walk dimension */
    int64_t *nix;      /* [n]: how many */
} grid;

static int dim_of(const grid *q, int k)
{
    return q->fortran ? q->n - 1 - k : k;
}

/* One block per run of consecutive indices of the fastest dimension. */
static void emit_row(wmpi_build *b, const wmpi_datatype *old, const grid *q,
                     int64_t base, int64_t step)
{
    const int64_t *ix = q->ix[q->n - 1];
    int64_t i = 0, j;

    while (i < q->nix[q->n - 1] && !b->err) {
        for (j = i + 1; j < q->nix[q->n - 1] && ix[j] == ix[j - 1] + 1; j++)
            ;
        wmpi_build_block(b, old, j - i,
                         wmpi_build_add(b, base, wmpi_build_mul(b, ix[i], step)));
        i = j;
    }
}

/* The Cartesian product of the outer dimensions' indices (odometer in
 * pos[]), each row emitted; then the whole array's bounds. */
static void walk(wmpi_build *b, const wmpi_datatype *old, const grid *q,
                 int64_t *step, int64_t *pos)
{
    int n = q->n, k;
    int64_t base;

    step[n - 1] = wmpi_datatype_extent64(old);
    for (k = n - 2; k >= 0; k--)
        step[k] = wmpi_build_mul(b, step[k + 1], q->g[dim_of(q, k + 1)]);
    for (k = 0; k < n; k++)
        if (q->nix[k] == 0)
            goto bounds; /* nothing selected */
    for (;;) {
        base = 0;
        for (k = 0; k < n - 1; k++)
            base = wmpi_build_add(b, base,
                                  wmpi_build_mul(b, q->ix[k][pos[k]], step[k]));
        emit_row(b, old, q, base, step[n - 1]);
        for (k = n - 2; k >= 0; k--) {
            if (++pos[k] < q->nix[k])
                break;
            pos[k] = 0;
        }
        if (k < 0 || b->err)
            break;
    }
bounds:
    wmpi_build_bounds(b, 0, wmpi_build_mul(b, step[0], q->g[dim_of(q, 0)]));
}

/* Allocate q's lists (room for g indices each), call fill(k, dim, list)
 * for each walk dimension, walk, free. fill returns the count or -1. */
typedef int64_t fill_fn(const wmpi_type_args *a, int dim, int64_t *list);

static int run_grid(wmpi_build *b, const wmpi_type_args *a, grid *q,
                    fill_fn *fill)
{
    int n = q->n, err = 0;
    int64_t total = 0, *mem, *p;

    for (int k = 0; k < n; k++)
        total += q->g[k];
    mem = calloc((size_t)(total + 4 * n), sizeof *mem);
    q->ix = calloc((size_t)n, sizeof *q->ix);
    if (!mem || !q->ix) {
        err = WEFT_ENOMEM;
        goto out;
    }
    q->nix = mem;
    p = mem + 4 * n;
    for (int k = 0; k < n && !err; k++) {
        q->ix[k] = p;
        q->nix[k] = fill(a, dim_of(q, k), p);
        if (q->nix[k] < 0)
            err = WEFT_EINVAL;
        p += q->g[dim_of(q, k)];
    }
    if (!err)
        walk(b, a->types[0], q, mem + n, mem + 2 * n);
out:
    free(q->ix);
    free(mem);
    return err;
}

/* ------------------------------------------------------------ subarray */

/* ints: ndims, sizes[n], subsizes[n], starts[n], order */
static int64_t subarray_fill(const wmpi_type_args *a, int d, int64_t *list)
{
    int n = a->ints[0], g = a->ints[1 + d], sub = a->ints[1 + n + d];
    int st = a->ints[1 + 2 * n + d];

    if (g < 1 || sub < 1 || st < 0 || st > g - sub)
        return -1;
    for (int i = 0; i < sub; i++)
        list[i] = st + i;
    return sub;
}

int wmpi_build_subarray(wmpi_build *b, const wmpi_type_args *a)
{
    int n = a->ints[0], order = a->ints[1 + 3 * n];
    grid q = { n, &a->ints[1], order == WMPI_ORDER_FORTRAN, NULL, NULL };

    if (n < 1 || (order != WMPI_ORDER_C && order != WMPI_ORDER_FORTRAN))
        return WEFT_EINVAL;
    for (int k = 0; k < n; k++)
        if (a->ints[1 + k] < 1)
            return WEFT_EINVAL;
    return run_grid(b, a, &q, subarray_fill);
}

/* -------------------------------------------------------------- darray */

/* ints: size, rank, ndims, gsizes[n], distribs[n], dargs[n], psizes[n],
 * order. This process's coordinate along d (row-major grid). */
static int darray_coord(const wmpi_type_args *a, int d)
{
    int n = a->ints[2], r = a->ints[1];
    const int *ps = &a->ints[3 + 3 * n];

    for (int k = n - 1; k > d; k--)
        r /= ps[k];
    return r % ps[d];
}

static int64_t darray_fill(const wmpi_type_args *a, int d, int64_t *list)
{
    int n = a->ints[2], g = a->ints[3 + d], dist = a->ints[3 + n + d];
    int darg = a->ints[3 + 2 * n + d], p = a->ints[3 + 3 * n + d];
    int c = darray_coord(a, d), dflt = darg == WMPI_DISTRIBUTE_DFLT_DARG;
    int64_t cnt = 0, k;

    if (!dflt && darg < 1)
        return -1;
    if (dist == WMPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < g; i++)
            list[cnt++] = i;
        return p == 1 ? cnt : -1;
    }
    if (dist == WMPI_DISTRIBUTE_BLOCK) {
        k = dflt ? (g + p - 1) / p : darg;
        if (k * p < g)
            return -1;
        for (int64_t i = c * k; i < (c + 1) * k && i < g; i++)
            list[cnt++] = i;
        return cnt;
    }
    if (dist != WMPI_DISTRIBUTE_CYCLIC)
        return -1;
    k = dflt ? 1 : darg;
    for (int64_t s = c * k; s < g; s += p * k)
        for (int64_t i = s; i < s + k && i < g; i++)
            list[cnt++] = i;
    return cnt;
}

int wmpi_build_darray(wmpi_build *b, const wmpi_type_args *a)
{
    int size = a->ints[0], rank = a->ints[1], n = a->ints[2];
    int order = a->ints[3 + 4 * n];
    grid q = { n, &a->ints[3], order == WMPI_ORDER_FORTRAN, NULL, NULL };
    int64_t procs = 1;

    if (n < 1 || size < 1 || rank < 0 || rank >= size ||
        (order != WMPI_ORDER_C && order != WMPI_ORDER_FORTRAN))
        return WEFT_EINVAL;
    for (int k = 0; k < n; k++) {
        if (a->ints[3 + k] < 1 || a->ints[3 + 3 * n + k] < 1)
            return WEFT_EINVAL;
        procs *= a->ints[3 + 3 * n + k];
        if (procs > size)
            return WEFT_EINVAL;
    }
    return procs == size ? run_grid(b, a, &q, darray_fill) : WEFT_EINVAL;
}
