/* Topologies, the objects: the grid or graph a communicator carries,
 * built, copied and freed, and the rank arithmetic MPI_Cart_coords, _rank
 * and _shift and the neighbour lists read from it. The constructors that
 * make a communicator for one (collective: they split the parent) are
 * engine/create/topo.c and topo_graph.c.
 *
 * Design: a topology is one malloc'd block (struct wmpi_topo, then its
 * int arrays), so wmpi_topo_free is a plain free and a dup rebuilds it
 * from the arrays. A Cartesian one is the grid's dimensions and
 * periodicity plus the caller's coordinates; ranks map to coordinates in
 * row-major order (the last dimension varies fastest), as MPI-3.1 7.5.1
 * prescribes. A graph keeps the whole graph as the user gave it (every
 * rank can ask for any rank's neighbours); a distributed graph keeps only
 * the caller's own in- and out-edges, as MPI-3.1 7.5.4 means it to.
 *
 * Invariants: dims[i] > 0; the product of dims is the communicator's size;
 * coords are the caller's. index is non-decreasing, edges and neighbour
 * ranks are in range (the bindings check); srcw/dstw are NULL exactly when
 * unweighted.
 * Locking: none (a topology is immutable once attached).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/core/internal.h"

/* ------------------------------------------------------------ Cartesian */

wmpi_topo *wmpi_topo_cart_new(int ndims, const int *dims, const int *periods,
                              int rank)
{
    size_t n = ndims > 0 ? (size_t)ndims : 1;
    wmpi_topo *t = calloc(1, sizeof *t + 3 * n * sizeof(int));

    if (!t)
        return NULL;
    t->kind = WMPI_TOPO_CART;
    t->ndims = ndims;
    t->dims = (int *)(t + 1);
    t->periods = t->dims + n;
    t->coords = t->periods + n;
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    wmpi_cart_coords(t, rank, t->coords);
    return t;
}

/* ------------------------------------------------------------ arithmetic */

void wmpi_cart_coords(const wmpi_topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int wmpi_cart_rank(const wmpi_topo *t, const int *coords, int *rank)
{
    int r = 0;

    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];

        if (t->periods[i])
            c = ((c % d) + d) % d;
        else if (c < 0 || c >= d)
            return WEFT_EINVAL;
        r = r * d + c;
    }
    *rank = r;
    return 0;
}

/* The rank `by` steps from `rank` along dim, or PROC_NULL off the edge
 * of a non-periodic dimension (no coordinate array: the step in rank of
 * one step along dim is the product of the later dimensions). */
static int moved(const wmpi_topo *t, int rank, int dim, int by)
{
    int64_t stride = 1, c, v, d = t->dims[dim];

    for (int i = dim + 1; i < t->ndims; i++)
        stride *= t->dims[i];
    c = (rank / stride) % d;
    v = c + by;
    if (!t->periods[dim] && (v < 0 || v >= d))
        return WMPI_PROC_NULL;
    v = ((v % d) + d) % d;
    return (int)(rank + (v - c) * stride);
}

void wmpi_cart_shift(const wmpi_topo *t, int rank, int dim, int disp,
                     int *src, int *dst)
{
    *dst = moved(t, rank, dim, disp);
    *src = moved(t, rank, dim, -disp);
}

/* ---------------------------------------------------------------- graphs */

/* A zeroed topology of `kind` followed by room for `nints` ints. */
static wmpi_topo *topo_alloc(int kind, size_t nints)
{
    wmpi_topo *t = calloc(1, sizeof *t + (nints ? nints : 1) * sizeof(int));

    if (t)
        t->kind = kind;
    return t;
}

static int *copy_ints(int *to, const int *from, int n)
{
    if (n > 0)
        memcpy(to, from, (size_t)n * sizeof *to);
    return to + n;
}

wmpi_topo *wmpi_topo_graph_new(int nnodes, const int *index, const int *edges)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    wmpi_topo *t = topo_alloc(WMPI_TOPO_GRAPH, (size_t)nnodes + (size_t)nedges);

    if (!t)
        return NULL;
    t->nnodes = nnodes;
    t->nedges = nedges;
    t->index = (int *)(t + 1);
    t->edges = copy_ints(t->index, index, nnodes);
    copy_ints(t->edges, edges, nedges);
    return t;
}

wmpi_topo *wmpi_topo_dist_new(int indeg, const int *src, const int *srcw,
                              int outdeg, const int *dst, const int *dstw)
{
    int weighted = srcw || dstw;
    size_t n = (size_t)indeg + (size_t)outdeg;
    wmpi_topo *t = topo_alloc(WMPI_TOPO_DIST_GRAPH, weighted ? 2 * n : n);
    int *p;

    if (!t)
        return NULL;
    t->indegree = indeg;
    t->outdegree = outdeg;
    t->weighted = weighted;
    t->sources = (int *)(t + 1);
    t->dests = copy_ints(t->sources, src, indeg);
    p = copy_ints(t->dests, dst, outdeg);
    if (weighted) {
        t->srcw = p;
        t->dstw = srcw ? copy_ints(t->srcw, srcw, indeg) : t->srcw + indeg;
        if (dstw)
            copy_ints(t->dstw, dstw, outdeg);
    }
    return t;
}

static wmpi_topo *graph_dup(const wmpi_topo *t)
{
    if (t->kind == WMPI_TOPO_GRAPH)
        return wmpi_topo_graph_new(t->nnodes, t->index, t->edges);
    return wmpi_topo_dist_new(t->indegree, t->sources, t->srcw, t->outdegree,
                              t->dests, t->dstw);
}

void wmpi_graph_neighbors(const wmpi_topo *t, int rank, const int **list,
                          int *n)
{
    int from = rank > 0 ? t->index[rank - 1] : 0;

    *list = t->edges + from;
    *n = t->index[rank] - from;
}

/* --------------------------------------------------------- copy, free */

wmpi_topo *wmpi_topo_dup(const wmpi_topo *t)
{
    wmpi_topo *d;

    if (t->kind != WMPI_TOPO_CART)
        return graph_dup(t);
    d = wmpi_topo_cart_new(t->ndims, t->dims, t->periods, 0);
    if (d)
        memcpy(d->coords, t->coords, (size_t)t->ndims * sizeof(int));
    return d;
}

void wmpi_topo_free(wmpi_topo *t)
{
    free(t);
}
