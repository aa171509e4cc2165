/* Cartesian topologies: MPI_Cart_create and MPI_Cart_sub, and the rank
 * arithmetic of MPI_Cart_coords, _rank and _shift.
 *
 * Design: a topology is the grid's dimensions and periodicity plus the
 * caller's coordinates, hung on a communicator. Ranks map to coordinates
 * in row-major order (the last dimension varies fastest), as MPI-3.1 7.5.1
 * prescribes. MPI_Cart_create never reorders (reorder is a hint; Open MPI
 * ignores it too): rank r of the parent is rank r of the grid, and ranks
 * beyond the grid get no communicator. Both constructors are splits of
 * the parent: create by "inside the grid or not", sub by the coordinates
 * of the dimensions dropped (colour) ordered by those kept (key), which
 * gives each subgrid its row-major order.
 *
 * Rejected: a topology-aware reordering (Weft places ranks by host only;
 * nothing to gain on one host, and the mapping would need the network).
 * Invariants: dims[i] > 0; the product of dims is the communicator's size;
 * coords are the caller's.
 * Locking: none (a topology is immutable once attached).
 * Graph and distributed-graph topologies: engine/create/topo_graph.c.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/core/internal.h"

static wmpi_topo *topo_new(int ndims, const int *dims, const int *periods,
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

wmpi_topo *wmpi_topo_dup(const wmpi_topo *t)
{
    wmpi_topo *d;

    if (t->kind != WMPI_TOPO_CART)
        return wmpi_graph_topo_dup(t);
    d = topo_new(t->ndims, t->dims, t->periods, 0);
    if (d)
        memcpy(d->coords, t->coords, (size_t)t->ndims * sizeof(int));
    return d;
}

void wmpi_topo_free(wmpi_topo *t)
{
    free(t);
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

/* ---------------------------------------------------------- constructors */

int wmpi_cart_create(wmpi_comm *c, int ndims, const int *dims,
                     const int *periods, wmpi_comm **out)
{
    int64_t cells = 1;
    int err;

    *out = NULL;
    if (c->remote || ndims < 0)
        return WEFT_EINVAL;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return WEFT_EINVAL;
        cells *= dims[i];
        if (cells > c->size)
            return WEFT_EINVAL;
    }
    err = wmpi_comm_split(c, c->rank < cells ? 0 : WMPI_UNDEFINED, c->rank, out);
    if (err || !*out)
        return err;
    (*out)->topo = topo_new(ndims, dims, periods, (*out)->rank);
    if (!(*out)->topo) {
        wmpi_comm_release(*out);
        *out = NULL;
        return WEFT_ENOMEM;
    }
    return err;
}

int wmpi_cart_sub(wmpi_comm *c, const int *remain, wmpi_comm **out)
{
    const wmpi_topo *t = c->topo;
    int color = 0, key = 0, n = 0, err;
    int *dims = malloc(2 * (size_t)(t->ndims + 1) * sizeof *dims);
    int *periods;

    *out = NULL;
    if (!dims)
        return WEFT_ENOMEM;
    periods = dims + t->ndims + 1;
    for (int i = 0; i < t->ndims; i++) {
        if (remain[i]) {
            key = key * t->dims[i] + t->coords[i];
            dims[n] = t->dims[i];
            periods[n++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    err = wmpi_comm_split(c, color, key, out);
    if (!err)
        (*out)->topo = topo_new(n, dims, periods, (*out)->rank);
    free(dims);
    if (!err && !(*out)->topo) {
        wmpi_comm_release(*out);
        *out = NULL;
        return WEFT_ENOMEM;
    }
    return err;
}
