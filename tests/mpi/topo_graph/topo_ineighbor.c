/* Nonblocking neighbourhood collectives (MPI_Ineighbor_allgather(v),
 * MPI_Ineighbor_alltoall(v/w)) on a periodic 2-D Cartesian grid over all
 * ranks (see carts() for Open MPI) and on a distributed graph r -> r+1,
 * r+2 (mod size):
 *   - all five started at once, in the same order on every rank, then
 *     finished with one MPI_Waitall (the last by MPI_Test in a loop), each
 *     gives exactly what its blocking form gives on the same inputs;
 *   - every slot holds the block the standard says: a Cartesian
 *     neighbour's block s in slot s^1 of its dimension, a graph's k-th
 *     edge from a process in the slot of the k-th edge to it.
 * Weft only: a NULL request pointer is MPI_ERR_REQUEST and leaves the
 * communicator usable.
 * Values: the k-th int a rank sends to its j-th neighbour is
 * 10000 * rank + 100 * j + k.
 */
#include "mpi_test_util.h"

#define PER 3   /* ints per neighbour */
#define MAXN 8  /* neighbours at most (2-D grid: 4; graph: 2 each way) */

static int rank, size;
/* MPI_UNWEIGHTED through a volatile: see topo_dist_graph.c */
static int *volatile unweighted;

typedef struct bufs {
    int send[MAXN * PER], gather[MAXN * PER], gatherv[MAXN * PER];
    int a2a[MAXN * PER], a2av[MAXN * PER], a2aw[MAXN * PER];
} bufs;

/* The count, displacement and type arrays: a nonblocking collective
 * reads them until it completes, so they outlive the call. */
typedef struct shape {
    int counts[MAXN], sdispl[MAXN], rdispl[MAXN];
    MPI_Aint sdw[MAXN], rdw[MAXN];
    MPI_Datatype types[MAXN];
} shape;

/* v- and w-forms' displacements reverse the nin receive slots. */
static void shape_init(shape *sh, int nin)
{
    for (int i = 0; i < MAXN; i++) {
        sh->counts[i] = PER;
        sh->sdispl[i] = i * PER;
        sh->rdispl[i] = (nin - 1 - i) * PER;
        sh->sdw[i] = (MPI_Aint)(i * PER * sizeof(int));
        sh->rdw[i] = (MPI_Aint)((nin - 1 - i) * PER * sizeof(int));
        sh->types[i] = MPI_INT;
    }
}

static void fill(bufs *b, int nout)
{
    memset(b, 0xff, sizeof *b);
    for (int j = 0; j < nout; j++)
        for (int k = 0; k < PER; k++)
            b->send[j * PER + k] = 10000 * rank + 100 * j + k;
}

/* Start (nonblocking: requests in r) or run the five collectives on c. */
static void five(MPI_Comm c, const shape *sh, bufs *b, MPI_Request *r)
{
    const int *n = sh->counts;

    if (r) {
        MPI_OK(MPI_Ineighbor_allgather(b->send, PER, MPI_INT, b->gather, PER, MPI_INT, c, &r[0]));
        MPI_OK(MPI_Ineighbor_allgatherv(b->send, PER, MPI_INT, b->gatherv, n, sh->rdispl,
                                        MPI_INT, c, &r[1]));
        MPI_OK(MPI_Ineighbor_alltoall(b->send, PER, MPI_INT, b->a2a, PER, MPI_INT, c, &r[2]));
        MPI_OK(MPI_Ineighbor_alltoallv(b->send, n, sh->sdispl, MPI_INT, b->a2av, n, sh->rdispl,
                                       MPI_INT, c, &r[3]));
        MPI_OK(MPI_Ineighbor_alltoallw(b->send, n, sh->sdw, sh->types, b->a2aw, n, sh->rdw,
                                       sh->types, c, &r[4]));
        return;
    }
    MPI_OK(MPI_Neighbor_allgather(b->send, PER, MPI_INT, b->gather, PER, MPI_INT, c));
    MPI_OK(MPI_Neighbor_allgatherv(b->send, PER, MPI_INT, b->gatherv, n, sh->rdispl, MPI_INT,
                                   c));
    MPI_OK(MPI_Neighbor_alltoall(b->send, PER, MPI_INT, b->a2a, PER, MPI_INT, c));
    MPI_OK(MPI_Neighbor_alltoallv(b->send, n, sh->sdispl, MPI_INT, b->a2av, n, sh->rdispl,
                                  MPI_INT, c));
    MPI_OK(MPI_Neighbor_alltoallw(b->send, n, sh->sdw, sh->types, b->a2aw, n, sh->rdw,
                                  sh->types, c));
}

static void finish(MPI_Request *r)
{
    int done = 0;

    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    while (!done)
        MPI_OK(MPI_Test(&r[4], &done, MPI_STATUS_IGNORE));
    for (int i = 0; i < 5; i++)
        CHECK(r[i] == MPI_REQUEST_NULL, "request %d not freed", i);
}

/* What slot i holds: in-neighbour in[i]'s block `block`, at slot i of
 * buf, or at slot nin-1-i for the reversed v- and w-forms. */
static void check_slots(const int *buf, const int *in, int nin, int reversed, int cart,
                        int gather, const char *what)
{
    for (int i = 0; i < nin; i++) {
        int at = reversed ? nin - 1 - i : i;
        int block = gather ? 0 : cart ? i ^ 1 : i; /* Cartesian: s lands in s^1 */
        for (int k = 0; k < PER; k++) {
            int want = 10000 * in[i] + 100 * block + k;
            CHECK(buf[at * PER + k] == want, "%s slot %d word %d: %d, want %d", what, i, k,
                  buf[at * PER + k], want);
        }
    }
}

/* Every form's slots hold what the standard says, so the blocking forms
 * are not merely agreeing with a wrong answer. */
static void check_all(const bufs *b, const int *in, int nin, int cart)
{
    check_slots(b->gather, in, nin, 0, cart, 1, "allgather");
    check_slots(b->gatherv, in, nin, 1, cart, 1, "allgatherv");
    check_slots(b->a2a, in, nin, 0, cart, 0, "alltoall");
    check_slots(b->a2av, in, nin, 1, cart, 0, "alltoallv");
    check_slots(b->a2aw, in, nin, 1, cart, 0, "alltoallw");
}

static void run_case(MPI_Comm c, const int *in, int nin, int nout, int cart, const char *what)
{
    bufs nb, bl;
    shape sh;
    MPI_Request r[5];

    CHECK(nin <= MAXN && nout <= MAXN, "%s: too many neighbours", what);
    shape_init(&sh, nin);
    fill(&nb, nout);
    five(c, &sh, &nb, r);
    finish(r);
    fill(&bl, nout);
    five(c, &sh, &bl, NULL);
    CHECK(!memcmp(&nb, &bl, sizeof nb), "%s: nonblocking and blocking forms differ", what);
    check_all(&nb, in, nin, cart);
}

/* A periodic Cartesian grid of ndims dimensions over all ranks. */
static void cart(int ndims)
{
    int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, in[4];
    MPI_Comm c;

    MPI_OK(MPI_Dims_create(size, ndims, dims));
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &c));
    for (int d = 0; d < ndims; d++) {
        int dest;
        MPI_OK(MPI_Cart_shift(c, d, 1, &in[2 * d], &dest));
        in[2 * d + 1] = dest;
    }
    run_case(c, in, 2 * ndims, 2 * ndims, 1, ndims == 2 ? "2-D periodic grid" : "periodic ring");
    MPI_OK(MPI_Comm_free(&c));
}

/* With 1 to 4 ranks a 2-D grid's periodic dimensions have 1 or 2 ranks,
 * where both neighbours of a dimension are one process and only the
 * standard's slot rule (block s lands in slot s^1) tells the blocks
 * apart. Open MPI's nonblocking forms (libnbc, before its fix for
 * duplicate Cartesian edges) break that rule, so its twin of this test
 * uses a ring of 3 ranks or more instead, whose neighbours differ. */
static void carts(void)
{
#ifdef WEFT_MPI
    cart(2);
#else
    if (size >= 3)
        cart(1);
#endif
}

static int mod(int a)
{
    return ((a % size) + size) % size;
}

static void graph(void)
{
    int src[2] = { mod(rank - 1), mod(rank - 2) }, dst[2] = { mod(rank + 1), mod(rank + 2) };
    MPI_Comm g;

    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, (int *)unweighted, 2,
                                          dst, (int *)unweighted, MPI_INFO_NULL, 0, &g));
    run_case(g, src, 2, 2, 0, "distributed graph");
    MPI_OK(MPI_Comm_free(&g));
}

static void null_request(void)
{
#ifdef WEFT_MPI
    int one = rank, got[4], c;
    MPI_Comm g;
    int src[2] = { mod(rank - 1), mod(rank - 2) }, dst[2] = { mod(rank + 1), mod(rank + 2) };

    MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, (int *)unweighted, 2,
                                          dst, (int *)unweighted, MPI_INFO_NULL, 0, &g));
    MPI_OK(MPI_Comm_set_errhandler(g, MPI_ERRORS_RETURN));
    MPI_Error_class(MPI_Ineighbor_allgather(&one, 1, MPI_INT, got, 1, MPI_INT, g, NULL), &c);
    CHECK(c == MPI_ERR_REQUEST, "NULL request: class %d", c);
    MPI_OK(MPI_Neighbor_allgather(&one, 1, MPI_INT, got, 1, MPI_INT, g));
    CHECK(got[0] == src[0] && got[1] == src[1], "allgather after the error");
    MPI_OK(MPI_Comm_free(&g));
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unweighted = MPI_UNWEIGHTED;
    carts();
    graph();
    null_request();
    if (rank == 0)
        printf("topo_ineighbor: %d ranks, nonblocking forms agree with blocking ones\n", size);
    MPI_Finalize();
    return 0;
}
