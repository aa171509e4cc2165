/* Graph and distributed-graph topology bindings: MPI_Graph_create,
 * MPI_Graphdims_get, _get, _neighbors_count, _neighbors, _map, and
 * MPI_Dist_graph_create_adjacent, _create, _neighbors_count, _neighbors.
 * (MPI_Topo_test, shared with Cartesian ones, is in binding/topo.c.)
 *
 * Design: the engine builds the communicators (engine/create/topo_graph.c) and
 * keeps the neighbour lists (engine/objects/topo.c); these check arguments and
 * copy lists out. Classes follow Open MPI 4.1: a communicator of the wrong kind
 * (no topology, Cartesian, or the other graph kind) is MPI_ERR_TOPOLOGY; an
 * intercommunicator MPI_ERR_COMM; a negative count, a missing array, more nodes
 * than the communicator, a neighbour rank out of range or output arrays smaller
 * than the degrees MPI_ERR_ARG; a queried rank out of range MPI_ERR_RANK.
 * MPI_UNWEIGHTED reaches the engine as NULL weights, MPI_WEIGHTS_EMPTY (only
 * with no edges) as an empty array: the topology is then weighted, with no
 * weights to give.
 *
 * Rejected: honouring reorder (as for Cartesian ones: no placement to
 * gain on one host). The info argument carries hints; none is used.
 * Invariants: none beyond the engine's. Locking: none (topologies are
 * immutable).
 */
#include <stdint.h>

#include "binding/comm.h"

/* 0 or the class for a call on comm that needs a topology of `kind`. */
static int check_kind(MPI_Comm comm, int kind)
{
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (!comm->topo || comm->topo->kind != kind)
        return MPI_ERR_TOPOLOGY;
    return MPI_SUCCESS;
}

/* 0 or the class for the parent of a topology constructor. */
static int check_parent(MPI_Comm comm, const MPI_Comm *out)
{
    if (!wmpi_comm_is_live(comm) || comm->remote)
        return MPI_ERR_COMM;
    return out ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* 0 if every one of the n ranks is in [0, size). */
static int ranks_ok(int n, const int *ranks, int size)
{
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= size)
            return 0;
    return 1;
}

/* ------------------------------------------------------------- graph */

/* 0 or the class for a graph description on comm. */
static int check_graph(MPI_Comm comm, int nnodes, const int *index,
                       const int *edges)
{
    if (nnodes < 0 || nnodes > comm->size)
        return MPI_ERR_ARG;
    if (nnodes > 0 && (!index || (!edges && index[nnodes - 1] > 0)))
        return MPI_ERR_ARG;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return MPI_ERR_ARG;
    if (nnodes > 0 && !ranks_ok(index[nnodes - 1], edges, nnodes))
        return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                      const int edges[], int reorder, MPI_Comm *comm_graph)
{
    wmpi_comm *nc = NULL;
    int cls = check_parent(comm_old, comm_graph), err;

    (void)reorder; /* a hint: ranks keep their order */
    WMPI_NEED_INIT("MPI_Graph_create");
    if (!cls)
        cls = check_graph(comm_old, nnodes, index, edges);
    if (cls)
        return wbind_fail(comm_old, cls, "MPI_Graph_create");
    if (nnodes == 0) { /* every rank knows: no communication (MPI-3.1 7.5.3) */
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    err = wmpi_graph_create(comm_old, nnodes, index, edges, &nc);
    if (err)
        return wbind_return(comm_old, err, "MPI_Graph_create");
    wbind_comm_out(comm_old, nc, comm_graph);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    int cls = check_kind(comm, WMPI_TOPO_GRAPH);

    WMPI_NEED_INIT("MPI_Graphdims_get");
    if (!cls && (!nnodes || !nedges))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Graphdims_get");
    *nnodes = comm->topo->nnodes;
    *nedges = comm->topo->nedges;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[],
                   int edges[])
{
    int cls = check_kind(comm, WMPI_TOPO_GRAPH);
    const wmpi_topo *t;

    WMPI_NEED_INIT("MPI_Graph_get");
    if (!cls && (maxindex < 0 || maxedges < 0 || (maxindex > 0 && !index) ||
                 (maxedges > 0 && !edges)))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Graph_get");
    t = comm->topo;
    for (int i = 0; i < t->nnodes && i < maxindex; i++)
        index[i] = t->index[i];
    for (int i = 0; i < t->nedges && i < maxedges; i++)
        edges[i] = t->edges[i];
    return MPI_SUCCESS;
}
WMPI_ALIAS(Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    int cls = check_kind(comm, WMPI_TOPO_GRAPH);
    const int *list;

    WMPI_NEED_INIT("MPI_Graph_neighbors_count");
    if (!cls && (rank < 0 || rank >= comm->topo->nnodes))
        cls = MPI_ERR_RANK;
    if (!cls && !nneighbors)
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Graph_neighbors_count");
    wmpi_graph_neighbors(comm->topo, rank, &list, nneighbors);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors,
                         int neighbors[])
{
    int cls = check_kind(comm, WMPI_TOPO_GRAPH), n = 0;
    const int *list;

    WMPI_NEED_INIT("MPI_Graph_neighbors");
    if (!cls && (rank < 0 || rank >= comm->topo->nnodes))
        cls = MPI_ERR_RANK;
    if (!cls && (maxneighbors < 0 || (maxneighbors > 0 && !neighbors)))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Graph_neighbors");
    wmpi_graph_neighbors(comm->topo, rank, &list, &n);
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = list[i];
    return MPI_SUCCESS;
}
WMPI_ALIAS(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[],
                   const int edges[], int *newrank)
{
    int cls;

    WMPI_NEED_INIT("MPI_Graph_map");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Graph_map");
    cls = newrank ? check_graph(comm, nnodes, index, edges) : MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Graph_map");
    /* no reordering: the first nnodes ranks keep theirs */
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Graph_map)

/* -------------------------------------------------------- dist graph */

static const int no_weights[1];

/* *out: weights as the engine takes them (NULL: unweighted). 0 or
 * MPI_ERR_ARG for a missing array or MPI_WEIGHTS_EMPTY with edges. */
static int engine_weights(const int *w, int nedges, const int **out)
{
    if (w == MPI_UNWEIGHTED) {
        *out = NULL;
        return MPI_SUCCESS;
    }
    if (w == MPI_WEIGHTS_EMPTY || (!w && nedges == 0)) {
        *out = no_weights;
        return nedges ? MPI_ERR_ARG : MPI_SUCCESS;
    }
    *out = w;
    return w ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* 0 or the class for one side (in or out) of an adjacent description. */
static int check_side(MPI_Comm comm, int degree, const int *ranks,
                      const int *weights, const int **ew)
{
    if (degree < 0 || (degree > 0 && !ranks) ||
        !ranks_ok(degree, ranks, comm->size))
        return MPI_ERR_ARG;
    return engine_weights(weights, degree, ew);
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                    const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[],
                                    const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm *comm_dist_graph)
{
    const int *sw = NULL, *dw = NULL;
    wmpi_comm *nc = NULL;
    int cls = check_parent(comm_old, comm_dist_graph), err;

    (void)reorder;
    WMPI_NEED_INIT("MPI_Dist_graph_create_adjacent");
    if (!cls)
        cls = wbind_check_info(info); /* no hint is used */
    if (!cls)
        cls = check_side(comm_old, indegree, sources, sourceweights, &sw);
    if (!cls)
        cls = check_side(comm_old, outdegree, destinations, destweights, &dw);
    if (cls)
        return wbind_fail(comm_old, cls, "MPI_Dist_graph_create_adjacent");
    err = wmpi_dist_graph_create_adjacent(comm_old, indegree, sources, sw,
                                          outdegree, destinations, dw, &nc);
    if (err)
        return wbind_return(comm_old, err, "MPI_Dist_graph_create_adjacent");
    wbind_comm_out(comm_old, nc, comm_dist_graph);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Dist_graph_create_adjacent)

/* 0 or the class for MPI_Dist_graph_create's edge lists; *nedges: the
 * number of destinations. */
static int check_edges(MPI_Comm comm, int n, const int *sources,
                       const int *degrees, const int *dests, int *nedges)
{
    int64_t total = 0;

    if (n < 0 || (n > 0 && (!sources || !degrees)) ||
        !ranks_ok(n, sources, comm->size))
        return MPI_ERR_ARG;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return MPI_ERR_ARG;
        total += degrees[i];
        if (total > INT32_MAX / 3) /* the engine's records are ints */
            return MPI_ERR_ARG;
    }
    *nedges = (int)total;
    if (total > 0 && !dests)
        return MPI_ERR_ARG;
    return ranks_ok(*nedges, dests, comm->size) ? MPI_SUCCESS : MPI_ERR_ARG;
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                           const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    const int *w = NULL;
    wmpi_comm *nc = NULL;
    int cls = check_parent(comm_old, comm_dist_graph), nedges = 0, err;

    (void)reorder;
    WMPI_NEED_INIT("MPI_Dist_graph_create");
    if (!cls)
        cls = wbind_check_info(info); /* no hint is used */
    if (!cls)
        cls = check_edges(comm_old, n, sources, degrees, destinations, &nedges);
    if (!cls)
        cls = engine_weights(weights, nedges, &w);
    if (cls)
        return wbind_fail(comm_old, cls, "MPI_Dist_graph_create");
    err = wmpi_dist_graph_create(comm_old, n, sources, degrees, destinations,
                                 w, &nc);
    if (err)
        return wbind_return(comm_old, err, "MPI_Dist_graph_create");
    wbind_comm_out(comm_old, nc, comm_dist_graph);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree,
                                    int *outdegree, int *weighted)
{
    int cls = check_kind(comm, WMPI_TOPO_DIST_GRAPH);

    WMPI_NEED_INIT("MPI_Dist_graph_neighbors_count");
    if (!cls && (!indegree || !outdegree || !weighted))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Dist_graph_neighbors_count");
    *indegree = comm->topo->indegree;
    *outdegree = comm->topo->outdegree;
    *weighted = comm->topo->weighted;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Dist_graph_neighbors_count)

/* Copy n ranks, and their weights when both sides have some. */
static void copy_side(int n, const int *ranks, const int *w, int *to,
                      int *tow)
{
    int want_w = w && tow != MPI_UNWEIGHTED && tow != MPI_WEIGHTS_EMPTY && tow;

    for (int i = 0; i < n; i++) {
        to[i] = ranks[i];
        if (want_w)
            tow[i] = w[i];
    }
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree,
                              int destinations[], int destweights[])
{
    int cls = check_kind(comm, WMPI_TOPO_DIST_GRAPH);
    const wmpi_topo *t;

    WMPI_NEED_INIT("MPI_Dist_graph_neighbors");
    if (cls)
        return wbind_fail(comm, cls, "MPI_Dist_graph_neighbors");
    t = comm->topo;
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree ||
        (t->indegree > 0 && !sources) || (t->outdegree > 0 && !destinations))
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Dist_graph_neighbors");
    copy_side(t->indegree, t->sources, t->srcw, sources, sourceweights);
    copy_side(t->outdegree, t->dests, t->dstw, destinations, destweights);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Dist_graph_neighbors)
