/* MPI_Graph_create and its queries (MPI-3.1 7.5.3, 7.5.5), on the
 * standard's 4-node example (Example 7.x of 7.5.3):
 *   node 0: neighbours 1, 3   node 1: 0   node 2: 3   node 3: 0, 2
 *   nnodes = 4, index = 2, 3, 4, 6, edges = 1, 3, 0, 3, 0, 2.
 * Checks: ranks beyond nnodes get MPI_COMM_NULL; MPI_Topo_test answers
 * MPI_GRAPH (MPI_CART, MPI_UNDEFINED elsewhere); Graphdims_get, Graph_get
 * (whole and truncated), Graph_neighbors_count/neighbors of every node;
 * Graph_map; MPI_Comm_dup keeps the graph; messages flow along the edges;
 * nnodes == 0 gives MPI_COMM_NULL everywhere; error classes for the wrong
 * topology kind (MPI_ERR_TOPOLOGY), a rank out of range (MPI_ERR_RANK)
 * and bad graphs (MPI_ERR_ARG). Needs at least 4 ranks.
 */
#include "mpi_test_util.h"

static const int ex_index[4] = { 2, 3, 4, 6 };
static const int ex_edges[6] = { 1, 3, 0, 3, 0, 2 };

static void check_queries(MPI_Comm g)
{
    int nnodes = -1, nedges = -1, index[4], edges[6], kind = -1, n = -1;
    int nb[2];

    MPI_OK(MPI_Topo_test(g, &kind));
    CHECK(kind == MPI_GRAPH, "Topo_test %d", kind);
    MPI_OK(MPI_Graphdims_get(g, &nnodes, &nedges));
    CHECK(nnodes == 4 && nedges == 6, "dims %d %d", nnodes, nedges);
    MPI_OK(MPI_Graph_get(g, 4, 6, index, edges));
    CHECK(!memcmp(index, ex_index, sizeof index), "index");
    CHECK(!memcmp(edges, ex_edges, sizeof edges), "edges");
    edges[2] = -7;
    MPI_OK(MPI_Graph_get(g, 1, 2, index, edges)); /* truncated copies */
    CHECK(index[0] == 2 && edges[0] == 1 && edges[1] == 3 && edges[2] == -7,
          "truncated get");
    for (int r = 0; r < 4; r++) {
        int from = r ? ex_index[r - 1] : 0, want = ex_index[r] - from;

        MPI_OK(MPI_Graph_neighbors_count(g, r, &n));
        CHECK(n == want, "node %d: %d neighbours, want %d", r, n, want);
        MPI_OK(MPI_Graph_neighbors(g, r, 2, nb));
        for (int i = 0; i < n; i++)
            CHECK(nb[i] == ex_edges[from + i], "node %d neighbour %d", r, i);
    }
}

/* Every node sends its rank to each neighbour and hears from each (the
 * example's graph is symmetric). */
static void exchange(MPI_Comm g)
{
    int me, n, nb[2], got[2] = { -1, -1 };
    MPI_Request rq[4];

    MPI_OK(MPI_Comm_rank(g, &me));
    MPI_OK(MPI_Graph_neighbors_count(g, me, &n));
    MPI_OK(MPI_Graph_neighbors(g, me, 2, nb));
    for (int i = 0; i < n; i++) {
        MPI_OK(MPI_Irecv(&got[i], 1, MPI_INT, nb[i], 5, g, &rq[i]));
        MPI_OK(MPI_Isend(&me, 1, MPI_INT, nb[i], 5, g, &rq[n + i]));
    }
    MPI_OK(MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == nb[i], "from neighbour %d: %d", nb[i], got[i]);
}

static void check_wrong_kind(MPI_Comm g)
{
    int dims[1] = { 2 }, periods[1] = { 0 }, coords[1], x, y, z;
    MPI_Comm cart;

    MPI_OK(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    CHECK(MPI_Cart_get(g, 1, dims, periods, coords) == MPI_ERR_TOPOLOGY,
          "Cart_get on a graph");
    CHECK(MPI_Cartdim_get(g, &x) == MPI_ERR_TOPOLOGY, "Cartdim_get on a graph");
    CHECK(MPI_Dist_graph_neighbors_count(g, &x, &y, &z) == MPI_ERR_TOPOLOGY,
          "Dist_graph_neighbors_count on a graph");
#ifndef OPEN_MPI /* Open MPI 4.1 checks only rank < 0 (then reads past
                    the graph): Weft is held to MPI_ERR_RANK */
    CHECK(MPI_Graph_neighbors_count(g, 4, &x) == MPI_ERR_RANK,
          "rank 4 of a 4-node graph");
#endif
    CHECK(MPI_Graph_neighbors(g, -1, 1, coords) == MPI_ERR_RANK,
          "rank -1 of a graph");
    CHECK(MPI_Graphdims_get(MPI_COMM_WORLD, &x, &y) == MPI_ERR_TOPOLOGY,
          "Graphdims_get on world");
    CHECK(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &x) == MPI_ERR_TOPOLOGY,
          "Graph_neighbors_count on world");
    MPI_OK(MPI_Cart_create(g, 1, dims, periods, 0, &cart));
    if (cart != MPI_COMM_NULL) {
        MPI_OK(MPI_Topo_test(cart, &x));
        CHECK(x == MPI_CART, "Topo_test of a grid %d", x);
        MPI_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
        CHECK(MPI_Graph_get(cart, 1, 1, &x, &y) == MPI_ERR_TOPOLOGY,
              "Graph_get on a grid");
        MPI_OK(MPI_Comm_free(&cart));
    }
}

static void check_bad_graphs(int rank, int size)
{
    int index[2] = { 1, 2 }, bad_edges[2] = { 1, 2 }, far[1] = { 0 };
    int r;
    MPI_Comm g = MPI_COMM_NULL;

    /* edge 2 in a 2-node graph. Open MPI 4.1 doesn't check edges (and
     * would build the graph): only Weft is held to MPI_ERR_ARG. */
#ifndef OPEN_MPI
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, 2, index, bad_edges, 0, &g) ==
              MPI_ERR_ARG, "edge out of range");
#else
    (void)bad_edges;
#endif
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, far, 0, &g) ==
              MPI_ERR_ARG, "more nodes than ranks");
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, -1, index, far, 0, &g) ==
              MPI_ERR_ARG, "negative nnodes");
    CHECK(g == MPI_COMM_NULL, "no communicator from a failed create");
    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 0, index, far, 0, &g));
    CHECK(g == MPI_COMM_NULL, "0 nodes: MPI_COMM_NULL");
    MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, 4, ex_index, ex_edges, &r));
#ifndef OPEN_MPI
    /* Weft does not reorder: the first 4 ranks keep theirs, the others
     * are outside the graph. (Open MPI 4.1 gives rank 4 the value 4, not
     * MPI_UNDEFINED; the standard allows it any placement, so it is not
     * checked there.) */
    CHECK(r == (rank < 4 ? rank : MPI_UNDEFINED), "Graph_map %d", r);
#else
    (void)rank;
#endif
}

int main(int argc, char **argv)
{
    int rank, size, kind, grank, gsize;
    MPI_Comm g, d;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 4, "needs 4 ranks, has %d", size);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &kind));
    CHECK(kind == MPI_UNDEFINED, "Topo_test of world %d", kind);

    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 4, ex_index, ex_edges, 0, &g));
    CHECK((g == MPI_COMM_NULL) == (rank >= 4), "membership");
    if (g != MPI_COMM_NULL) {
        MPI_OK(MPI_Comm_rank(g, &grank));
        MPI_OK(MPI_Comm_size(g, &gsize));
        CHECK(gsize == 4, "graph size %d", gsize);
        /* reorder = 0: ranks keep their order */
        CHECK(grank == rank, "graph rank %d", grank);
        check_queries(g);
        exchange(g);
        MPI_OK(MPI_Comm_dup(g, &d));
        check_queries(d);
        exchange(d);
        check_wrong_kind(d);
        MPI_OK(MPI_Comm_free(&d));
        MPI_OK(MPI_Comm_free(&g));
    }
    check_bad_graphs(rank, size);
    MPI_OK(MPI_Finalize());
    return 0;
}
