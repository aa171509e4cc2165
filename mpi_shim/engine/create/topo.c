/* Cartesian topologies, the constructors: MPI_Cart_create and
 * MPI_Cart_sub (the topology object and its rank arithmetic:
 * engine/objects/topo.c).
 *
 * Design: MPI_Cart_create never reorders (reorder is a hint; Open MPI
 * ignores it too): rank r of the parent is rank r of the grid, and ranks
 * beyond the grid get no communicator. Both constructors are splits of
 * the parent: create by "inside the grid or not", sub by the coordinates
 * of the dimensions dropped (colour) ordered by those kept (key), which
 * gives each subgrid its row-major order.
 *
 * Rejected: a topology-aware reordering (Weft places ranks by host only;
 * nothing to gain on one host, and the mapping would need the network).
 * Locking: none (a topology is immutable once attached).
 * Graph and distributed-graph topologies: engine/create/topo_graph.c.
 */
#include <stdlib.h>

#include "engine/objects/comm.h"
#include "engine/core/internal.h"

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
    (*out)->topo = wmpi_topo_cart_new(ndims, dims, periods, (*out)->rank);
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
        (*out)->topo = wmpi_topo_cart_new(n, dims, periods, (*out)->rank);
    free(dims);
    if (!err && !(*out)->topo) {
        wmpi_comm_release(*out);
        *out = NULL;
        return WEFT_ENOMEM;
    }
    return err;
}
