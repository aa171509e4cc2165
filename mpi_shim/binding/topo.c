/* Cartesian topology bindings: MPI_Cart_create, _sub, _get, _coords,
 * _rank, _shift, _map, MPI_Cartdim_get and MPI_Topo_test.
 *
 * Design: the engine builds the communicators (engine/create/topo.c) and does
 * the rank arithmetic (engine/objects/topo.c); these check arguments. Classes
 * follow Open MPI: a communicator without a Cartesian topology (none, or a
 * graph) is MPI_ERR_TOPOLOGY, a bad dimension count or size MPI_ERR_DIMS (a
 * grid larger than the communicator: MPI_ERR_ARG), a rank out of range
 * MPI_ERR_RANK, a direction out of range MPI_ERR_DIMS, and a coordinate out of
 * range in a non-periodic dimension MPI_ERR_ARG.
 *
 * Graph and distributed-graph bindings: binding/topo_graph.c.
 *
 * Invariants: a Cartesian communicator's size is the product of its dims.
 * Locking: none (topologies are immutable).
 */
#include <stdint.h>

#include "binding/comm.h"

_Static_assert(WMPI_TOPO_CART == MPI_CART && WMPI_TOPO_GRAPH == MPI_GRAPH &&
                   WMPI_TOPO_DIST_GRAPH == MPI_DIST_GRAPH,
               "engine topology kinds are MPI_Topo_test's answers");

/* 0 or the class for a grid description. */
static int check_grid(MPI_Comm comm, int ndims, const int *dims,
                      const int *periods)
{
    int64_t cells = 1;

    if (ndims < 0)
        return MPI_ERR_DIMS;
    if (ndims > 0 && (!dims || !periods))
        return MPI_ERR_ARG;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return MPI_ERR_DIMS;
        cells *= dims[i];
        if (cells > comm->size)
            return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                     const int periods[], int reorder, MPI_Comm *comm_cart)
{
    wmpi_comm *nc = NULL;
    int cls, err;

    (void)reorder; /* a hint: ranks keep their order */
    WMPI_NEED_INIT("MPI_Cart_create");
    if (!wmpi_comm_is_live(comm_old))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Cart_create");
    if (comm_old->remote)
        return wbind_fail(comm_old, MPI_ERR_COMM, "MPI_Cart_create");
    if (!comm_cart)
        return wbind_fail(comm_old, MPI_ERR_ARG, "MPI_Cart_create");
    if ((cls = check_grid(comm_old, ndims, dims, periods)))
        return wbind_fail(comm_old, cls, "MPI_Cart_create");
    err = wmpi_cart_create(comm_old, ndims, dims, periods, &nc);
    if (err)
        return wbind_return(comm_old, err, "MPI_Cart_create");
    wbind_comm_out(comm_old, nc, comm_cart);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_create)

/* 0 or the class for a call that needs a Cartesian communicator. */
static int check_cart(MPI_Comm comm)
{
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (!comm->topo || comm->topo->kind != WMPI_TOPO_CART)
        return MPI_ERR_TOPOLOGY;
    return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls = check_cart(comm), err;

    WMPI_NEED_INIT("MPI_Cart_sub");
    if (!cls && ((!remain_dims && comm->topo->ndims > 0) || !newcomm))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Cart_sub");
    err = wmpi_cart_sub(comm, remain_dims, &nc);
    if (err)
        return wbind_return(comm, err, "MPI_Cart_sub");
    wbind_comm_out(comm, nc, newcomm);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_sub)

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    int cls = check_cart(comm);

    WMPI_NEED_INIT("MPI_Cartdim_get");
    if (!cls && !ndims)
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Cartdim_get");
    *ndims = comm->topo->ndims;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[],
                  int coords[])
{
    int cls = check_cart(comm);
    const wmpi_topo *t;

    WMPI_NEED_INIT("MPI_Cart_get");
    if (cls)
        return wbind_fail(comm, cls, "MPI_Cart_get");
    t = comm->topo;
    if (maxdims < 0 || (maxdims > 0 && (!dims || !periods || !coords)))
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Cart_get");
    for (int i = 0; i < t->ndims && i < maxdims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_get)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    int cls = check_cart(comm);

    WMPI_NEED_INIT("MPI_Cart_coords");
    if (!cls && (rank < 0 || rank >= comm->size))
        cls = MPI_ERR_RANK;
    if (!cls && (maxdims < comm->topo->ndims || (maxdims > 0 && !coords)))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Cart_coords");
    wmpi_cart_coords(comm->topo, rank, coords);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_coords)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    int cls = check_cart(comm);

    WMPI_NEED_INIT("MPI_Cart_rank");
    if (!cls && (!rank || (!coords && comm->topo->ndims > 0)))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Cart_rank");
    if (wmpi_cart_rank(comm->topo, coords, rank))
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Cart_rank");
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_rank)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source,
                    int *rank_dest)
{
    int cls = check_cart(comm);

    WMPI_NEED_INIT("MPI_Cart_shift");
    if (!cls && (!rank_source || !rank_dest))
        cls = MPI_ERR_ARG;
    if (!cls && (direction < 0 || direction >= comm->topo->ndims))
        cls = MPI_ERR_DIMS;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Cart_shift");
    wmpi_cart_shift(comm->topo, comm->rank, direction, disp, rank_source,
                    rank_dest);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_shift)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                  int *newrank)
{
    int64_t cells = 1;
    int cls;

    WMPI_NEED_INIT("MPI_Cart_map");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Cart_map");
    if (!newrank)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Cart_map");
    if ((cls = check_grid(comm, ndims, dims, periods)))
        return wbind_fail(comm, cls, "MPI_Cart_map");
    for (int i = 0; i < ndims; i++)
        cells *= dims[i];
    /* no reordering: the first `cells` ranks keep theirs */
    *newrank = comm->rank < cells ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cart_map)

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    WMPI_NEED_INIT("MPI_Topo_test");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Topo_test");
    if (!status)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Topo_test");
    /* engine/objects/comm.h's kinds are mpi.h's MPI_CART, MPI_GRAPH, ... */
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Topo_test)
