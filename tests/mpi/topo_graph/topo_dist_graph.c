/* Distributed graphs (MPI-3.1 7.5.4, 7.5.5): MPI_Dist_graph_create_adjacent
 * and MPI_Dist_graph_create, MPI_Dist_graph_neighbors_count/neighbors,
 * MPI_Topo_test. On a ring of any size:
 *  - adjacent, weighted (weight = 100 * from + to) and unweighted;
 *  - create with every edge named by rank 0, and with each rank naming
 *    its own out-edges r -> r+1, r -> r+2 (a rank with none passes
 *    MPI_WEIGHTS_EMPTY); the order of neighbours is unspecified there, so
 *    lists are sorted before they are compared;
 *  - messages flow along the edges; MPI_Comm_dup keeps the topology;
 *  - MPI_UNWEIGHTED as output weights is accepted; wrong kind
 *    (MPI_ERR_TOPOLOGY), bad arguments (MPI_ERR_ARG).
 * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are passed through volatile
 * pointers: GCC's -Wstringop-overflow otherwise takes the sentinel
 * addresses (both MPIs' headers) for arrays of size 0.
 */
#include "mpi_test_util.h"

static int rank, size;
static int *volatile unweighted, *volatile weights_empty;
#define UNWEIGHTED ((int *)unweighted)
#define WEIGHTS_EMPTY ((int *)weights_empty)

static int mod(int a)
{
    return ((a % size) + size) % size;
}

static int weight(int from, int to)
{
    return 100 * from + to;
}

/* Sort ranks (and their weights alongside, if w). */
static void sort_pairs(int n, int *r, int *w)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
            int t = r[j];

            r[j] = r[j - 1];
            r[j - 1] = t;
            if (w) {
                t = w[j];
                w[j] = w[j - 1];
                w[j - 1] = t;
            }
        }
}

/* The expected lists for the ring with steps 1..nsteps: in-edges from
 * rank - s, out-edges to rank + s (sorted), with their weights. */
static void check_ring(MPI_Comm d, int nsteps, int weighted, int sorted)
{
    int in, out, w, src[4], sw[4], dst[4], dw[4], want[4], ww[4];

    MPI_OK(MPI_Topo_test(d, &w));
    CHECK(w == MPI_DIST_GRAPH, "Topo_test %d", w);
    MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
    CHECK(in == nsteps && out == nsteps, "degrees %d %d", in, out);
    CHECK(!w == !weighted, "weighted %d", w);
    MPI_OK(MPI_Dist_graph_neighbors(d, 4, src, sw, 4, dst, dw));
    if (sorted) {
        sort_pairs(in, src, weighted ? sw : NULL);
        sort_pairs(out, dst, weighted ? dw : NULL);
    }
    for (int pass = 0; pass < 2; pass++) {
        int *got = pass ? dst : src, *gw = pass ? dw : sw;

        for (int s = 1; s <= nsteps; s++) {
            int peer = mod(pass ? rank + s : rank - s);

            want[s - 1] = peer;
            ww[s - 1] = pass ? weight(rank, peer) : weight(peer, rank);
        }
        if (sorted)
            sort_pairs(nsteps, want, ww);
        for (int i = 0; i < nsteps; i++) {
            CHECK(got[i] == want[i], "%s %d: %d want %d",
                  pass ? "dest" : "source", i, got[i], want[i]);
            CHECK(!weighted || gw[i] == ww[i], "weight %d: %d want %d", i,
                  gw[i], ww[i]);
        }
    }
    /* UNWEIGHTED for the output weights: lists only */
    MPI_OK(MPI_Dist_graph_neighbors(d, 4, src, UNWEIGHTED, 4, dst,
                                    UNWEIGHTED));
}

/* Send this rank's number along every out-edge; hear every in-edge. */
static void exchange(MPI_Comm d)
{
    int in, out, w, src[4], dst[4], got[4];
    MPI_Request rq[8];

    MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &w));
    MPI_OK(MPI_Dist_graph_neighbors(d, 4, src, UNWEIGHTED, 4, dst,
                                    UNWEIGHTED));
    for (int i = 0; i < in; i++)
        MPI_OK(MPI_Irecv(&got[i], 1, MPI_INT, src[i], 9, d, &rq[i]));
    for (int i = 0; i < out; i++)
        MPI_OK(MPI_Isend(&rank, 1, MPI_INT, dst[i], 9, d, &rq[in + i]));
    MPI_OK(MPI_Waitall(in + out, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < in; i++)
        CHECK(got[i] == src[i], "from %d: %d", src[i], got[i]);
}

static void adjacent(int weighted)
{
    int src[1] = { mod(rank - 1) }, dst[1] = { mod(rank + 1) };
    int sw[1] = { weight(src[0], rank) }, dw[1] = { weight(rank, dst[0]) };
    MPI_Comm d, e;

    MPI_OK(MPI_Dist_graph_create_adjacent(
        MPI_COMM_WORLD, 1, src, weighted ? sw : UNWEIGHTED, 1, dst,
        weighted ? dw : UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    check_ring(d, 1, weighted, 0); /* adjacent: the order given */
    exchange(d);
    MPI_OK(MPI_Comm_dup(d, &e));
    check_ring(e, 1, weighted, 0);
    MPI_OK(MPI_Comm_free(&e));
    MPI_OK(MPI_Comm_free(&d));
}

/* Rank 0 names the whole ring (step 1), unweighted. */
static void create_by_root(void)
{
    int n = rank == 0 ? size : 0, *s = malloc(sizeof(int) * (size_t)size);
    int *deg = malloc(sizeof(int) * (size_t)size);
    int *dst = malloc(sizeof(int) * (size_t)size);
    MPI_Comm d;

    for (int i = 0; i < size; i++) {
        s[i] = i;
        deg[i] = 1;
        dst[i] = mod(i + 1);
    }
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, deg, dst,
                                 UNWEIGHTED, MPI_INFO_NULL, 0, &d));
    check_ring(d, 1, 0, 1);
    exchange(d);
    MPI_OK(MPI_Comm_free(&d));
    free(s);
    free(deg);
    free(dst);
}

/* Each rank names its own out-edges r -> r+1, r+2 (weighted); with 3 or
 * more ranks these are distinct. The last rank names its edges one
 * destination at a time, as two sources entries; a lone rank names none
 * (WEIGHTS_EMPTY) and has an empty graph. */
static void create_own(void)
{
    int s[2] = { rank, rank }, deg[2], dst[2], w[2], n;
    int in = -1, out = -1, wt = -1;
    MPI_Comm d;

    dst[0] = mod(rank + 1);
    dst[1] = mod(rank + 2);
    w[0] = weight(rank, dst[0]);
    w[1] = weight(rank, dst[1]);
    if (size < 3) {
        n = 0;
        MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, deg, dst,
                                     WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d));
        MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &wt));
        CHECK(in == 0 && out == 0, "empty graph %d %d", in, out);
        MPI_OK(MPI_Comm_free(&d));
        return;
    }
    if (rank == size - 1) {
        n = 2;
        deg[0] = deg[1] = 1;
    } else {
        n = 1;
        deg[0] = 2;
    }
    MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, s, deg, dst, w,
                                 MPI_INFO_NULL, 0, &d));
    check_ring(d, 2, 1, 1);
    exchange(d);
    MPI_OK(MPI_Comm_free(&d));
}

static void errors(void)
{
    int x, y, z, one[1] = { 0 }, bad[1] = { size }, neg[1] = { -1 };
    MPI_Comm d = MPI_COMM_NULL;

    CHECK(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &x, &y, &z) ==
              MPI_ERR_TOPOLOGY, "dist query on world");
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad,
                                         UNWEIGHTED, 0, one,
                                         UNWEIGHTED, MPI_INFO_NULL, 0,
                                         &d) == MPI_ERR_ARG,
          "source out of range");
    CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, one,
                                         UNWEIGHTED, 0, one,
                                         UNWEIGHTED, MPI_INFO_NULL, 0,
                                         &d) == MPI_ERR_ARG,
          "negative indegree");
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, one, neg, one,
                                UNWEIGHTED, MPI_INFO_NULL, 0, &d) ==
              MPI_ERR_ARG, "negative degree");
    CHECK(d == MPI_COMM_NULL, "no communicator from a failed create");

    /* a graph query on a dist graph, and a too-small output array */
    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, one,
                                          UNWEIGHTED, 1, one,
                                          UNWEIGHTED, MPI_INFO_NULL, 0,
                                          &d));
    MPI_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    CHECK(MPI_Graph_neighbors_count(d, 0, &x) == MPI_ERR_TOPOLOGY,
          "Graph_neighbors_count on a dist graph");
    CHECK(MPI_Graphdims_get(d, &x, &y) == MPI_ERR_TOPOLOGY,
          "Graphdims_get on a dist graph");
    CHECK(MPI_Cartdim_get(d, &x) == MPI_ERR_TOPOLOGY,
          "Cartdim_get on a dist graph");
    MPI_OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    unweighted = MPI_UNWEIGHTED;
    weights_empty = MPI_WEIGHTS_EMPTY;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    adjacent(1);
    adjacent(0);
    create_by_root();
    create_own();
    errors();
    MPI_OK(MPI_Finalize());
    return 0;
}
