/* Bad arguments to point-to-point and collective calls, table-driven,
 * under MPI_ERRORS_RETURN: every call of the table meets every bad value
 * of every argument it takes (a NULL buffer with a non-zero count, a
 * negative count, a null or uncommitted datatype, a peer rank or root out
 * of range, a tag out of range, a null op, a null communicator), on every
 * rank at once, and must return that argument's error class without
 * starting anything. Afterwards a correct collective and a message to self
 * still work, so nothing half-started is left behind to mismatch them.
 * Weft only: Open MPI 4.1 segfaults on a NULL buffer in MPI_Bcast and
 * raises a probe's MPI_COMM_NULL error on a handler that is always fatal.
 */
#include <limits.h>

#include "mpi_test_util.h"

enum arg { A_BUF, A_COUNT, A_TYPE, A_PEER, A_ROOT, A_TAG, A_OP, A_COMM };
#define U(a) (1u << (a))
#define U_P2P (U(A_BUF) | U(A_COUNT) | U(A_TYPE) | U(A_PEER) | U(A_TAG) | U(A_COMM))
#define U_ROOTED (U(A_BUF) | U(A_COUNT) | U(A_TYPE) | U(A_ROOT) | U(A_COMM))
#define U_ALL (U(A_BUF) | U(A_COUNT) | U(A_TYPE) | U(A_COMM))

/* One call's arguments: valid until a bad value replaces one of them. */
struct args {
    void *sbuf, *rbuf;
    int count, peer, root, tag;
    MPI_Datatype type;
    MPI_Op op;
    MPI_Comm comm;
    int *counts, *displs; /* for the v-variants: every rank's count */
};

static MPI_Request rq;
static MPI_Status st;

static int c_send(const struct args *a)
{
    return MPI_Send(a->sbuf, a->count, a->type, a->peer, a->tag, a->comm);
}
static int c_ssend(const struct args *a)
{
    return MPI_Ssend(a->sbuf, a->count, a->type, a->peer, a->tag, a->comm);
}
static int c_rsend(const struct args *a)
{
    return MPI_Rsend(a->sbuf, a->count, a->type, a->peer, a->tag, a->comm);
}
static int c_isend(const struct args *a)
{
    return MPI_Isend(a->sbuf, a->count, a->type, a->peer, a->tag, a->comm, &rq);
}
static int c_issend(const struct args *a)
{
    return MPI_Issend(a->sbuf, a->count, a->type, a->peer, a->tag, a->comm, &rq);
}
static int c_send_init(const struct args *a)
{
    return MPI_Send_init(a->sbuf, a->count, a->type, a->peer, a->tag, a->comm, &rq);
}
static int c_recv(const struct args *a)
{
    return MPI_Recv(a->rbuf, a->count, a->type, a->peer, a->tag, a->comm, &st);
}
static int c_irecv(const struct args *a)
{
    return MPI_Irecv(a->rbuf, a->count, a->type, a->peer, a->tag, a->comm, &rq);
}
static int c_recv_init(const struct args *a)
{
    return MPI_Recv_init(a->rbuf, a->count, a->type, a->peer, a->tag, a->comm, &rq);
}
static int c_sendrecv(const struct args *a)
{
    return MPI_Sendrecv(a->sbuf, a->count, a->type, a->peer, a->tag, a->rbuf, 1, MPI_INT,
                        0, 0, a->comm, &st);
}
static int c_probe(const struct args *a)
{
    return MPI_Probe(a->peer, a->tag, a->comm, &st);
}
static int c_iprobe(const struct args *a)
{
    int flag;
    return MPI_Iprobe(a->peer, a->tag, a->comm, &flag, &st);
}
static int c_barrier(const struct args *a)
{
    return MPI_Barrier(a->comm);
}
static int c_ibarrier(const struct args *a)
{
    return MPI_Ibarrier(a->comm, &rq);
}
static int c_bcast(const struct args *a)
{
    return MPI_Bcast(a->sbuf, a->count, a->type, a->root, a->comm);
}
static int c_ibcast(const struct args *a)
{
    return MPI_Ibcast(a->sbuf, a->count, a->type, a->root, a->comm, &rq);
}
static int c_reduce(const struct args *a)
{
    return MPI_Reduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, a->comm);
}
static int c_ireduce(const struct args *a)
{
    return MPI_Ireduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->root, a->comm, &rq);
}
static int c_allreduce(const struct args *a)
{
    return MPI_Allreduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
}
static int c_iallreduce(const struct args *a)
{
    return MPI_Iallreduce(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm, &rq);
}
static int c_scan(const struct args *a)
{
    return MPI_Scan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
}
static int c_exscan(const struct args *a)
{
    return MPI_Exscan(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
}
static int c_reduce_scatter_block(const struct args *a)
{
    return MPI_Reduce_scatter_block(a->sbuf, a->rbuf, a->count, a->type, a->op, a->comm);
}
static int c_gather(const struct args *a)
{
    return MPI_Gather(a->sbuf, a->count, a->type, a->rbuf, 1, MPI_INT, a->root, a->comm);
}
static int c_igather(const struct args *a)
{
    return MPI_Igather(a->sbuf, a->count, a->type, a->rbuf, 1, MPI_INT, a->root, a->comm,
                       &rq);
}
static int c_gatherv(const struct args *a)
{
    return MPI_Gatherv(a->sbuf, a->count, a->type, a->rbuf, a->counts, a->displs, MPI_INT,
                       a->root, a->comm);
}
/* The arguments under test are the receive side's, checked on every
 * rank; the root's send buffer is a->rbuf. */
static int c_scatter(const struct args *a)
{
    return MPI_Scatter(a->rbuf, 1, MPI_INT, a->sbuf, a->count, a->type, a->root, a->comm);
}
static int c_allgather(const struct args *a)
{
    return MPI_Allgather(a->sbuf, a->count, a->type, a->rbuf, 1, MPI_INT, a->comm);
}
static int c_iallgather(const struct args *a)
{
    return MPI_Iallgather(a->sbuf, a->count, a->type, a->rbuf, 1, MPI_INT, a->comm, &rq);
}
static int c_allgatherv(const struct args *a)
{
    return MPI_Allgatherv(a->sbuf, a->count, a->type, a->rbuf, a->counts, a->displs, MPI_INT,
                          a->comm);
}
static int c_alltoall(const struct args *a)
{
    return MPI_Alltoall(a->sbuf, a->count, a->type, a->rbuf, 1, MPI_INT, a->comm);
}
static int c_ialltoall(const struct args *a)
{
    return MPI_Ialltoall(a->sbuf, a->count, a->type, a->rbuf, 1, MPI_INT, a->comm, &rq);
}

#define R_OPS (U(A_BUF) | U(A_COUNT) | U(A_TYPE) | U(A_OP) | U(A_COMM))

static const struct call {
    const char *name;
    unsigned uses;
    int (*run)(const struct args *);
    int receives; /* a NULL buffer goes to a->rbuf, not a->sbuf */
} calls[] = {
    { "MPI_Send", U_P2P, c_send, 0 },
    { "MPI_Ssend", U_P2P, c_ssend, 0 },
    { "MPI_Rsend", U_P2P, c_rsend, 0 },
    { "MPI_Isend", U_P2P, c_isend, 0 },
    { "MPI_Issend", U_P2P, c_issend, 0 },
    { "MPI_Send_init", U_P2P, c_send_init, 0 },
    { "MPI_Recv", U_P2P, c_recv, 1 },
    { "MPI_Irecv", U_P2P, c_irecv, 1 },
    { "MPI_Recv_init", U_P2P, c_recv_init, 1 },
    { "MPI_Sendrecv", U_P2P, c_sendrecv, 0 },
    { "MPI_Probe", U(A_PEER) | U(A_TAG) | U(A_COMM), c_probe, 0 },
    { "MPI_Iprobe", U(A_PEER) | U(A_TAG) | U(A_COMM), c_iprobe, 0 },
    { "MPI_Barrier", U(A_COMM), c_barrier, 0 },
    { "MPI_Ibarrier", U(A_COMM), c_ibarrier, 0 },
    { "MPI_Bcast", U_ROOTED, c_bcast, 0 },
    { "MPI_Ibcast", U_ROOTED, c_ibcast, 0 },
    { "MPI_Reduce", R_OPS | U(A_ROOT), c_reduce, 0 },
    { "MPI_Ireduce", R_OPS | U(A_ROOT), c_ireduce, 0 },
    { "MPI_Allreduce", R_OPS, c_allreduce, 0 },
    { "MPI_Iallreduce", R_OPS, c_iallreduce, 0 },
    { "MPI_Scan", R_OPS, c_scan, 0 },
    { "MPI_Exscan", R_OPS, c_exscan, 0 },
    { "MPI_Reduce_scatter_block", R_OPS, c_reduce_scatter_block, 0 },
    { "MPI_Gather", U_ROOTED, c_gather, 0 },
    { "MPI_Igather", U_ROOTED, c_igather, 0 },
    { "MPI_Gatherv", U_ROOTED, c_gatherv, 0 },
    { "MPI_Scatter", U_ROOTED, c_scatter, 0 },
    { "MPI_Allgather", U_ALL, c_allgather, 0 },
    { "MPI_Iallgather", U_ALL, c_iallgather, 0 },
    { "MPI_Allgatherv", U_ALL, c_allgatherv, 0 },
    { "MPI_Alltoall", U_ALL, c_alltoall, 0 },
    { "MPI_Ialltoall", U_ALL, c_ialltoall, 0 },
};

/* The bad values: which argument, how to break it, the class expected. */
static MPI_Datatype uncommitted;
static int np, tag_ub;

static void no_buf(struct args *a, int receives)
{
    *(receives ? &a->rbuf : &a->sbuf) = NULL;
}
static void count_neg(struct args *a, int r) { (void)r; a->count = -1; }
static void type_null(struct args *a, int r) { (void)r; a->type = MPI_DATATYPE_NULL; }
static void type_uncommitted(struct args *a, int r) { (void)r; a->type = uncommitted; }
static void peer_size(struct args *a, int r) { (void)r; a->peer = np; }
static void peer_neg(struct args *a, int r) { (void)r; a->peer = -7; }
static void root_size(struct args *a, int r) { (void)r; a->root = np; }
static void root_neg(struct args *a, int r) { (void)r; a->root = -7; }
static void tag_neg(struct args *a, int r) { (void)r; a->tag = -3; }
static void tag_big(struct args *a, int r) { (void)r; a->tag = tag_ub + 1; }
static void op_null(struct args *a, int r) { (void)r; a->op = MPI_OP_NULL; }
static void comm_null(struct args *a, int r) { (void)r; a->comm = MPI_COMM_NULL; }

static const struct bad {
    enum arg arg;
    const char *what;
    int cls;
    void (*apply)(struct args *, int receives);
} bads[] = {
    { A_BUF, "NULL buffer, count 4", MPI_ERR_BUFFER, no_buf },
    { A_COUNT, "count -1", MPI_ERR_COUNT, count_neg },
    { A_TYPE, "MPI_DATATYPE_NULL", MPI_ERR_TYPE, type_null },
    { A_TYPE, "uncommitted datatype", MPI_ERR_TYPE, type_uncommitted },
    { A_PEER, "rank = size", MPI_ERR_RANK, peer_size },
    { A_PEER, "rank -7", MPI_ERR_RANK, peer_neg },
    { A_ROOT, "root = size", MPI_ERR_ROOT, root_size },
    { A_ROOT, "root -7", MPI_ERR_ROOT, root_neg },
    { A_TAG, "tag -3", MPI_ERR_TAG, tag_neg },
    { A_TAG, "tag = MPI_TAG_UB + 1", MPI_ERR_TAG, tag_big },
    { A_OP, "MPI_OP_NULL", MPI_ERR_OP, op_null },
    { A_COMM, "MPI_COMM_NULL", MPI_ERR_COMM, comm_null },
};

static int try_one(const struct call *c, const struct bad *b, struct args *a)
{
    int rc, cls = -1;

    b->apply(a, c->receives);
    rc = c->run(a);
    CHECK(rc != MPI_SUCCESS, "%s with %s succeeded", c->name, b->what);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == b->cls, "%s with %s: error class %d, expected %d", c->name, b->what, cls,
          b->cls);
    return 1;
}

int main(int argc, char **argv)
{
    int me, *sbuf, *rbuf, *counts, *displs, *ub, found = 0, tried = 0;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    /* Errors on MPI_COMM_NULL go to MPI_COMM_WORLD (MPI 3.1) or to
     * MPI_COMM_SELF (MPI 4): both return. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found));
    CHECK(found, "MPI_TAG_UB is not set");
    tag_ub = *ub;
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));

    sbuf = calloc((size_t)np * 8, sizeof *sbuf);
    rbuf = calloc((size_t)np * 8, sizeof *rbuf);
    counts = calloc((size_t)np, sizeof *counts);
    displs = calloc((size_t)np, sizeof *displs);
    CHECK(sbuf && rbuf && counts && displs, "out of memory");
    for (int r = 0; r < np; r++)
        counts[r] = 4, displs[r] = 4 * r;

    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        for (size_t j = 0; j < sizeof bads / sizeof bads[0]; j++) {
            if (!(calls[i].uses & U(bads[j].arg)))
                continue;
            if (bads[j].apply == tag_big && tag_ub == INT_MAX)
                continue;
            struct args a = { sbuf, rbuf, 4, me, 0, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                              counts, displs };
            tried += try_one(&calls[i], &bads[j], &a);
        }

    /* Nothing half-started: a collective and a message to self match. */
    int one = 1, sum = 0, got = -1;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np, "allreduce after the errors: %d, expected %d", sum, np);
    MPI_OK(MPI_Sendrecv(&me, 1, MPI_INT, me, 5, &got, 1, MPI_INT, me, 5, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(got == me, "message to self after the errors: %d", got);

    MPI_Type_free(&uncommitted);
    free(sbuf), free(rbuf), free(counts), free(displs);
    if (me == 0)
        printf("misc_badargs: %d bad calls, each returned its class on %d ranks\n", tried, np);
    MPI_OK(MPI_Finalize());
    return 0;
}
