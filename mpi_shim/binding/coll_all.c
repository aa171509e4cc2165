/* Collectives where every rank receives, blocking and nonblocking:
 * MPI_Allreduce, MPI_Allgather(v), MPI_Alltoall(v/w),
 * MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan and their MPI_I* forms.
 *
 * Design: as binding/coll.c: one `prep_` per collective checks the
 * arguments and fills the engine's argument block; the blocking and
 * nonblocking bindings share it. MPI_IN_PLACE is accepted as the send
 * buffer of every one of these (the data is then taken from the receive
 * buffer) and nowhere else.
 *
 * Rejected: a binding per form calling the blocking one through a thread
 * (the engine already runs any collective either way, engine/coll/coll_run.c).
 * Invariants: insignificant arguments never reach the engine.
 * Locking: none here (the engine locks).
 */
#include "binding/coll_check.h"

/* ------------------------------------------------------------- reductions */

/* Exscan leaves rank 0's receive buffer alone (MPI-3.1 5.11.2: not
 * significant there), so only there may it be NULL. */
static int prep_red(wmpi_coll_args *a, int kind, const void *sbuf, void *rbuf, int count,
                    MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int cls;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt,
                           .op = op };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (rbuf == MPI_IN_PLACE)
        return MPI_ERR_ARG;
    cls = wbind_check_reduce(sbuf, rbuf, count, dt, op);
    if (!cls && !(kind == WMPI_COLL_EXSCAN && comm->rank == 0))
        cls = wbind_check_coll_buf(rbuf, count, dt);
    return cls;
}

/* Allreduce, Scan and Exscan take the same arguments and differ only in
 * `kind`; the blocking forms pass nonblocking 0 and req NULL. */
static int reduction(int kind, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                     MPI_Op op, MPI_Comm comm, int nonblocking, MPI_Request *req,
                     const char *fn)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT(fn);
    cls = prep_red(&a, kind, sbuf, rbuf, count, dt, op, comm);
    return wbind_coll_go(comm, cls, kind, &a, nonblocking, req, fn);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduction(WMPI_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                     0, NULL, "MPI_Allreduce");
}
WMPI_ALIAS(Allreduce)

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                    MPI_Request *request)
{
    return reduction(WMPI_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm,
                     1, request, "MPI_Iallreduce");
}
WMPI_ALIAS(Iallreduce)

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduction(WMPI_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, 0,
                     NULL, "MPI_Scan");
}
WMPI_ALIAS(Scan)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count,
               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    return reduction(WMPI_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, 1,
                     request, "MPI_Iscan");
}
WMPI_ALIAS(Iscan)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduction(WMPI_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, 0,
                     NULL, "MPI_Exscan");
}
WMPI_ALIAS(Exscan)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count,
                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                 MPI_Request *request)
{
    return reduction(WMPI_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, 1,
                     request, "MPI_Iexscan");
}
WMPI_ALIAS(Iexscan)

/* The reduce-scatters: the input is count * size elements (block) or
 * sum(recvcounts) (v), in sendbuf or, with MPI_IN_PLACE, in recvbuf. */
static int prep_rs(wmpi_coll_args *a, const void *sbuf, void *rbuf, int count,
                   const int *counts, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    int64_t total = 0;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt,
                           .op = op, .rcounts = counts };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (rbuf == MPI_IN_PLACE)
        return MPI_ERR_ARG;
    if (counts) {
        for (int r = 0; r < comm->size; r++) {
            if (counts[r] < 0)
                return MPI_ERR_COUNT;
            total += counts[r];
        }
    } else {
        total = (int64_t)count * comm->size;
    }
    if (total > INT32_MAX)
        return MPI_ERR_COUNT;
    int cls = wbind_check_reduce(sbuf, rbuf, (int)total, dt, op);
    return cls ? cls : wbind_check_coll_buf(rbuf, counts ? counts[comm->rank] : count, dt);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Reduce_scatter_block");
    cls = prep_rs(&a, sendbuf, recvbuf, recvcount, NULL, datatype, op, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_REDUCE_SCATTER_BLOCK, &a, 0, NULL,
                        "MPI_Reduce_scatter_block");
}
WMPI_ALIAS(Reduce_scatter_block)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ireduce_scatter_block");
    cls = prep_rs(&a, sendbuf, recvbuf, recvcount, NULL, datatype, op, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_REDUCE_SCATTER_BLOCK, &a, 1, request,
                        "MPI_Ireduce_scatter_block");
}
WMPI_ALIAS(Ireduce_scatter_block)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Reduce_scatter");
    cls = recvcounts ? prep_rs(&a, sendbuf, recvbuf, 0, recvcounts, datatype, op, comm)
                     : MPI_ERR_ARG;
    return wbind_coll_go(comm, cls, WMPI_COLL_REDUCE_SCATTER, &a, 0, NULL,
                        "MPI_Reduce_scatter");
}
WMPI_ALIAS(Reduce_scatter)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                         MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ireduce_scatter");
    cls = recvcounts ? prep_rs(&a, sendbuf, recvbuf, 0, recvcounts, datatype, op, comm)
                     : MPI_ERR_ARG;
    return wbind_coll_go(comm, cls, WMPI_COLL_REDUCE_SCATTER, &a, 1, request,
                        "MPI_Ireduce_scatter");
}
WMPI_ALIAS(Ireduce_scatter)

/* -------------------------------------------------------------- allgather */

/* This rank's send side, unless MPI_IN_PLACE (then ignored). */
static int prep_send(wmpi_coll_args *a, const void *sbuf, int scount, MPI_Datatype sdt)
{
    a->sbuf = sbuf;
    if (sbuf == MPI_IN_PLACE)
        return 0;
    a->scount = scount;
    a->sdt = sdt;
    return wbind_check_coll_buf(sbuf, scount, sdt);
}

static int prep_allgather(wmpi_coll_args *a, const void *sbuf, int scount,
                          MPI_Datatype sdt, void *rbuf, int rcount, const int *rcounts,
                          const int *displs, MPI_Datatype rdt, MPI_Comm comm, int v)
{
    int cls;

    *a = (wmpi_coll_args){ .rbuf = rbuf, .rcount = rcount, .rdt = rdt,
                           .rcounts = rcounts, .rdispls = displs };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    cls = prep_send(a, sbuf, scount, sdt);
    return cls ? cls
               : wbind_check_coll_whole(rbuf, rcount, rcounts, displs,
                                        wmpi_comm_peers(comm), rdt, v);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Allgather");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLGATHER, &a, 0, NULL, "MPI_Allgather");
}
WMPI_ALIAS(Allgather)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Iallgather");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLGATHER, &a, 1, request,
                        "MPI_Iallgather");
}
WMPI_ALIAS(Iallgather)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Allgatherv");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, comm, 1);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLGATHERV, &a, 0, NULL, "MPI_Allgatherv");
}
WMPI_ALIAS(Allgatherv)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const int recvcounts[], const int displs[],
                     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Iallgatherv");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, comm, 1);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLGATHERV, &a, 1, request,
                        "MPI_Iallgatherv");
}
WMPI_ALIAS(Iallgatherv)

/* --------------------------------------------------------------- alltoall */

/* Alltoall's arguments are checked as Allgather's (prep_allgather, v 0):
 * the same send block, and a receive buffer of count blocks per rank. */
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Alltoall");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLTOALL, &a, 0, NULL, "MPI_Alltoall");
}
WMPI_ALIAS(Alltoall)

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ialltoall");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLTOALL, &a, 1, request, "MPI_Ialltoall");
}
WMPI_ALIAS(Ialltoall)

static int prep_alltoallv(wmpi_coll_args *a, const void *sbuf, const int *scounts,
                          const int *sdispls, MPI_Datatype sdt, void *rbuf,
                          const int *rcounts, const int *rdispls, MPI_Datatype rdt,
                          MPI_Comm comm)
{
    int cls = 0;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .rbuf = rbuf, .rcounts = rcounts,
                           .rdispls = rdispls, .rdt = rdt };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (sbuf != MPI_IN_PLACE) {
        a->scounts = scounts;
        a->sdispls = sdispls;
        a->sdt = sdt;
        cls = wbind_check_coll_bufv(sbuf, scounts, sdispls, wmpi_comm_peers(comm), sdt);
    }
    return cls ? cls
               : wbind_check_coll_whole(rbuf, 0, rcounts, rdispls, wmpi_comm_peers(comm),
                                        rdt, 1);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Alltoallv");
    cls = prep_alltoallv(&a, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                         recvcounts, rdispls, recvtype, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLTOALLV, &a, 0, NULL, "MPI_Alltoallv");
}
WMPI_ALIAS(Alltoallv)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ialltoallv");
    cls = prep_alltoallv(&a, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                         recvcounts, rdispls, recvtype, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLTOALLV, &a, 1, request,
                        "MPI_Ialltoallv");
}
WMPI_ALIAS(Ialltoallv)

/* Alltoallw: per-rank types; displacements in bytes. */
static int check_w(const void *buf, const int *counts, const int *displs,
                   const MPI_Datatype *types, int n)
{
    int cls;

    if (!counts || !displs || !types)
        return MPI_ERR_ARG;
    for (int r = 0; r < n; r++) {
        cls = wbind_check_coll_buf(buf, counts[r], types[r]);
        if (cls)
            return cls;
    }
    return MPI_SUCCESS;
}

static int prep_alltoallw(wmpi_coll_args *a, const void *sbuf, const int *scounts,
                          const int *sdispls, const MPI_Datatype *sdts, void *rbuf,
                          const int *rcounts, const int *rdispls,
                          const MPI_Datatype *rdts, MPI_Comm comm)
{
    int cls = 0;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .rbuf = rbuf, .rcounts = rcounts,
                           .rdispls = rdispls, .rdts = rdts };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (sbuf != MPI_IN_PLACE) {
        a->scounts = scounts;
        a->sdispls = sdispls;
        a->sdts = sdts;
        cls = check_w(sbuf, scounts, sdispls, sdts, wmpi_comm_peers(comm));
    }
    if (!cls && rbuf == MPI_IN_PLACE)
        cls = MPI_ERR_ARG;
    return cls ? cls : check_w(rbuf, rcounts, rdispls, rdts, wmpi_comm_peers(comm));
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf,
                   const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Alltoallw");
    cls = prep_alltoallw(&a, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                         recvcounts, rdispls, recvtypes, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLTOALLW, &a, 0, NULL, "MPI_Alltoallw");
}
WMPI_ALIAS(Alltoallw)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf,
                    const int recvcounts[], const int rdispls[],
                    const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ialltoallw");
    cls = prep_alltoallw(&a, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                         recvcounts, rdispls, recvtypes, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_ALLTOALLW, &a, 1, request,
                        "MPI_Ialltoallw");
}
WMPI_ALIAS(Ialltoallw)
