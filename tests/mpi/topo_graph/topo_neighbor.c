/* Neighbourhood collectives (MPI-3.1 7.6): MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v/w) on
 *  - a periodic ring (a 1-D Cartesian grid over all ranks; with 1 or 2
 *    ranks both neighbours are one process, so blocks must still reach
 *    the right slot: slot 0 from the source, slot 1 from the destination);
 *  - a non-periodic 2-D grid (PROC_NULL neighbours: their slots stay
 *    untouched);
 *  - the standard's 4-node graph (needs 4 ranks);
 *  - a distributed graph r -> r+1, r+2 (needs 3 ranks), through the v
 *    forms with displacements that reverse the slots;
 * and MPI_ERR_TOPOLOGY on a communicator without a topology (Open MPI:
 * any error).
 * Values: a block a rank sends to its j-th neighbour is 100 * rank + j.
 */
#include "mpi_test_util.h"

static int rank, size;
/* MPI_UNWEIGHTED through a volatile: see topo_dist_graph.c */
static int *volatile unweighted;

/* MPI_Neighbor_alltoallw with byte displacements that reverse the n
 * receive slots: it must give what alltoall gave (in `want`). */
static void check_alltoallw(MPI_Comm cart, int n, const int *send,
                            const int *want)
{
    int ones[4], got[4] = { -1, -1, -1, -1 };
    MPI_Aint sd[4], rd[4];
    MPI_Datatype types[4];

    for (int i = 0; i < n; i++) {
        ones[i] = 1;
        types[i] = MPI_INT;
        sd[i] = (MPI_Aint)(i * sizeof(int));
        rd[i] = (MPI_Aint)((n - 1 - i) * sizeof(int));
    }
    MPI_OK(MPI_Neighbor_alltoallw(send, ones, sd, types, got, ones, rd, types,
                                  cart));
    for (int i = 0; i < n; i++)
        CHECK(got[n - 1 - i] == want[i], "alltoallw slot %d: %d want %d", i,
              got[n - 1 - i], want[i]);
}

static void cart_case(MPI_Comm cart)
{
    int nd, dims[2], periods[2], coords[2], send[4], recv[4], got[4];

    MPI_OK(MPI_Cartdim_get(cart, &nd));
    MPI_OK(MPI_Cart_get(cart, nd, dims, periods, coords));
    for (int j = 0; j < 4; j++) {
        send[j] = 100 * rank + j;
        recv[j] = got[j] = -1;
    }
    MPI_OK(MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, cart));
    MPI_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, cart));
    check_alltoallw(cart, 2 * nd, send, recv);
    for (int d = 0; d < nd; d++) {
        int src, dst;

        MPI_OK(MPI_Cart_shift(cart, d, 1, &src, &dst));
        /* the source sent me its block 2d+1 (towards +1), the
         * destination its block 2d (towards -1) */
        int want_s = src == MPI_PROC_NULL ? -1 : 100 * src + 2 * d + 1;
        int want_d = dst == MPI_PROC_NULL ? -1 : 100 * dst + 2 * d;

        CHECK(got[2 * d] == (src == MPI_PROC_NULL ? -1 : src),
              "allgather dim %d from source: %d", d, got[2 * d]);
        CHECK(got[2 * d + 1] == (dst == MPI_PROC_NULL ? -1 : dst),
              "allgather dim %d from dest: %d", d, got[2 * d + 1]);
        CHECK(recv[2 * d] == want_s, "alltoall dim %d from source: %d want %d",
              d, recv[2 * d], want_s);
        CHECK(recv[2 * d + 1] == want_d, "alltoall dim %d from dest: %d want %d",
              d, recv[2 * d + 1], want_d);
    }
}

static void carts(void)
{
    int dims[2] = { size, 0 }, periods[2] = { 1, 0 };
    MPI_Comm c;

    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    cart_case(c);
    MPI_OK(MPI_Comm_free(&c));
    if (size < 4)
        return;
    dims[0] = dims[1] = 2;
    periods[0] = 0;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    if (c != MPI_COMM_NULL) {
        cart_case(c);
        MPI_OK(MPI_Comm_free(&c));
    }
}

static void graph(void)
{
    static const int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    int n, nb[2], theirs[2], tn, send[2], recv[2] = { -1, -1 }, got[2];
    MPI_Comm g;

    MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, 4, index, edges, 0, &g));
    if (g == MPI_COMM_NULL)
        return;
    MPI_OK(MPI_Graph_neighbors_count(g, rank, &n));
    MPI_OK(MPI_Graph_neighbors(g, rank, 2, nb));
    send[0] = 100 * rank;
    send[1] = 100 * rank + 1;
    MPI_OK(MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, g));
    MPI_OK(MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, g));
    for (int i = 0; i < n; i++) {
        int j = 0;

        CHECK(got[i] == nb[i], "graph allgather slot %d: %d", i, got[i]);
        MPI_OK(MPI_Graph_neighbors(g, nb[i], 2, theirs));
        MPI_OK(MPI_Graph_neighbors_count(g, nb[i], &tn));
        while (j < tn && theirs[j] != rank)
            j++;
        CHECK(recv[i] == 100 * nb[i] + j, "graph alltoall slot %d: %d", i,
              recv[i]);
    }
    MPI_OK(MPI_Comm_free(&g));
}

static int mod(int a)
{
    return ((a % size) + size) % size;
}

static void dist_graph(void)
{
    int src[2] = { mod(rank - 1), mod(rank - 2) };
    int dst[2] = { mod(rank + 1), mod(rank + 2) };
    int one[2] = { 1, 1 }, rev[2] = { 1, 0 }, fwd[2] = { 0, 1 };
    int send[2] = { 100 * rank, 100 * rank + 1 }, recv[2], got[2];
    MPI_Comm d;

    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src,
                                          (int *)unweighted, 2, dst,
                                          (int *)unweighted, MPI_INFO_NULL, 0,
                                          &d));
    /* slot i lands at displacement rev[i] */
    MPI_OK(MPI_Neighbor_allgatherv(&rank, 1, MPI_INT, got, one, rev, MPI_INT,
                                   d));
    CHECK(got[1] == src[0] && got[0] == src[1], "allgatherv %d %d", got[0],
          got[1]);
    MPI_OK(MPI_Neighbor_alltoallv(send, one, fwd, MPI_INT, recv, one, rev,
                                  MPI_INT, d));
    /* rank-1 sent me its block 0 (its dest r+1), rank-2 its block 1 */
    CHECK(recv[1] == 100 * src[0] && recv[0] == 100 * src[1] + 1,
          "alltoallv %d %d", recv[0], recv[1]);
    MPI_OK(MPI_Comm_free(&d));
}

int main(int argc, char **argv)
{
    int x;

    MPI_OK(MPI_Init(&argc, &argv));
    unweighted = MPI_UNWEIGHTED;
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    carts();
    if (size >= 4)
        graph();
    if (size >= 3)
        dist_graph();
    x = MPI_Neighbor_allgather(&rank, 1, MPI_INT, &x, 1, MPI_INT,
                               MPI_COMM_WORLD);
#ifdef OPEN_MPI /* Open MPI 4.1 answers MPI_ERR_INTERN: any error will do */
    CHECK(x != MPI_SUCCESS, "neighbour collective without a topology");
#else
    CHECK(x == MPI_ERR_TOPOLOGY, "neighbour collective without a topology");
#endif
    MPI_OK(MPI_Finalize());
    return 0;
}
