/* Argument errors of collectives, under MPI_ERRORS_RETURN: each call
 * returns the error class Open MPI returns too, on every rank, without
 * starting anything, so a correct collective afterwards still matches
 * across ranks. Under Weft also a NULL receive buffer with a non-zero
 * count (MPI_ERR_BUFFER, where Open MPI 4.1 segfaults).
 */
#include <stdlib.h>

#include "coll_test.h"

static void expect(int rc, int cls, const char *what)
{
    int got = -1;

    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    MPI_OK(MPI_Error_class(rc, &got));
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

#ifdef WEFT_MPI
/* A NULL receive buffer with a non-zero count: MPI_ERR_BUFFER. Every rank
 * errs, so nothing starts: in MPI_Reduce only the root receives, and in
 * MPI_Exscan rank 0 receives nothing, so the ranks that receive nothing
 * pass a NULL send buffer instead (an error already caught). */
static void null_receive_buffers(int me, int np)
{
    int buf[4] = { 1, 2, 3, 4 }, *big = calloc((size_t)np * 4, sizeof *big);
    MPI_Request rq;

    CHECK(big != NULL, "out of memory");
    expect(MPI_Allreduce(buf, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "allreduce NULL recvbuf");
    expect(MPI_Iallreduce(buf, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq),
           MPI_ERR_BUFFER, "iallreduce NULL recvbuf");
    expect(MPI_Scan(buf, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "scan NULL recvbuf");
    expect(MPI_Reduce_scatter_block(big, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "reduce_scatter_block NULL recvbuf");
    expect(MPI_Reduce(me == np - 1 ? buf : NULL, NULL, 4, MPI_INT, MPI_SUM, np - 1,
                      MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "reduce NULL recvbuf at the root");
    expect(MPI_Exscan(me > 0 ? buf : NULL, NULL, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "exscan NULL recvbuf");
    free(big);
}
#endif

int main(int argc, char **argv)
{
    int me, np, buf[4] = { 0 }, out[4], sum;
    MPI_Request rq;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    expect(MPI_Bcast(buf, 1, MPI_INT, np, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root = size");
    expect(MPI_Bcast(buf, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT, "bcast root -1");
    expect(MPI_Bcast(buf, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "bcast count -1");
    expect(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "bcast null type");
    expect(MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "bcast null comm");
    expect(MPI_Reduce(buf, out, 1, MPI_INT, MPI_SUM, np, MPI_COMM_WORLD), MPI_ERR_ROOT,
           "reduce root = size");
    expect(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce null op");
    expect(MPI_Allreduce(buf, out, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce band on double");
    expect(MPI_Allgather(buf, -1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "allgather count -1");
    expect(MPI_Gather(buf, 1, MPI_INT, out, 1, MPI_INT, np + 3, MPI_COMM_WORLD), MPI_ERR_ROOT,
           "gather root");
    expect(MPI_Iallreduce(buf, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &rq), MPI_ERR_OP,
           "iallreduce null op");
    expect(MPI_Ibcast(buf, 1, MPI_INT, np, MPI_COMM_WORLD, &rq), MPI_ERR_ROOT, "ibcast root");

#ifdef WEFT_MPI
    null_receive_buffers(me, np);
#endif

    /* nothing was started: the next collective still lines up */
    MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np * (np - 1) / 2, "allreduce after errors: %d", sum);
    MPI_OK(MPI_Finalize());
    return 0;
}
