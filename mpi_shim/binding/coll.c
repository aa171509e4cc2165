/* Rooted collectives and the barrier, blocking and nonblocking:
 * MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Gather(v), MPI_Scatter(v) and
 * their MPI_I* forms.
 *
 * Design: each collective has one `prep_` function that checks the
 * arguments significant on this rank (MPI_IN_PLACE where MPI allows it:
 * the root's send buffer of Reduce and Gather(v), the root's receive
 * buffer of Scatter(v)) and fills the engine's argument block; the
 * blocking and nonblocking bindings share it and differ only in the
 * request (binding/coll_check.c runs or starts the collective). The
 * engine picks the algorithm (engine/coll_*.c).
 *
 * On an intercommunicator the root passes MPI_ROOT and has only its whole
 * buffer, the rest of its group MPI_PROC_NULL and nothing, the other
 * group the root's rank and only its own block (MPI-3.1 5.2.2).
 *
 * Rejected: the barrier through the launcher (wmpi_boot_barrier): it
 * serialises on one process and does not scale past a handful of ranks.
 * Invariants: insignificant arguments never reach the engine.
 * Locking: none here (the engine locks).
 */
#include "binding/coll_check.h"

/* ---------------------------------------------------------------- barrier */

int PMPI_Barrier(MPI_Comm comm)
{
    wmpi_coll_args a = { 0 };
    int cls;

    WMPI_NEED_INIT("MPI_Barrier");
    cls = wmpi_comm_is_live(comm) ? 0 : MPI_ERR_COMM;
    return wbind_coll_go(comm, cls, WMPI_COLL_BARRIER, &a, 0, NULL, "MPI_Barrier");
}
WMPI_ALIAS(Barrier)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a = { 0 };
    int cls;

    WMPI_NEED_INIT("MPI_Ibarrier");
    cls = wmpi_comm_is_live(comm) ? 0 : MPI_ERR_COMM;
    return wbind_coll_go(comm, cls, WMPI_COLL_BARRIER, &a, 1, request, "MPI_Ibarrier");
}
WMPI_ALIAS(Ibarrier)

/* ------------------------------------------------------------------ bcast */

static int prep_bcast(wmpi_coll_args *a, void *buf, int count, MPI_Datatype dt,
                      int root, MPI_Comm comm)
{
    int cls;

    *a = (wmpi_coll_args){ .root = root };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if ((cls = wbind_check_root(root, comm)))
        return cls;
    if (wbind_root_role(root, comm) == WBIND_IDLE)
        return MPI_SUCCESS;
    cls = wbind_check_coll_buf(buf, count, dt);
    if (!cls && buf == MPI_IN_PLACE)
        cls = MPI_ERR_ARG;
    *a = (wmpi_coll_args){ .rbuf = buf, .rcount = count, .rdt = dt, .root = root };
    return cls;
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Bcast");
    cls = prep_bcast(&a, buffer, count, datatype, root, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_BCAST, &a, 0, NULL, "MPI_Bcast");
}
WMPI_ALIAS(Bcast)

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root,
                MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ibcast");
    cls = prep_bcast(&a, buffer, count, datatype, root, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_BCAST, &a, 1, request, "MPI_Ibcast");
}
WMPI_ALIAS(Ibcast)

/* ----------------------------------------------------------------- reduce */

/* An intercommunicator's root only receives: its send buffer is not
 * significant, nor MPI_IN_PLACE allowed. */
static int prep_reduce(wmpi_coll_args *a, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm)
{
    int cls, role, at_root, sends;

    *a = (wmpi_coll_args){ .root = root };
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if ((cls = wbind_check_root(root, comm)))
        return cls;
    role = wbind_root_role(root, comm);
    at_root = role == WBIND_ROOT;
    sends = role == WBIND_LEAF || !comm->remote;
    if (role == WBIND_IDLE)
        return MPI_SUCCESS;
    if (rbuf == MPI_IN_PLACE || (sbuf == MPI_IN_PLACE && (!at_root || comm->remote)))
        return MPI_ERR_ARG;
    if (!sends)
        sbuf = rbuf; /* checked as the receive buffer, never read */
    cls = wbind_check_reduce(sbuf, at_root ? rbuf : (void *)sbuf, count, dt, op);
    if (!cls && at_root)
        cls = wbind_check_coll_buf(rbuf, count, dt);
    *a = (wmpi_coll_args){ .sbuf = sends ? sbuf : NULL, .rbuf = at_root ? rbuf : NULL,
                           .count = count, .dt = dt, .op = op, .root = root };
    return cls;
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, int root, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Reduce");
    cls = prep_reduce(&a, sendbuf, recvbuf, count, datatype, op, root, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_REDUCE, &a, 0, NULL, "MPI_Reduce");
}
WMPI_ALIAS(Reduce)

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ireduce");
    cls = prep_reduce(&a, sendbuf, recvbuf, count, datatype, op, root, comm);
    return wbind_coll_go(comm, cls, WMPI_COLL_REDUCE, &a, 1, request, "MPI_Ireduce");
}
WMPI_ALIAS(Ireduce)

/* -------------------------------------------------------- gather, scatter */

/* The checks of a gather or a scatter: `mine` is this rank's block (the
 * send buffer of a gather, the receive buffer of a scatter; MPI_IN_PLACE
 * only at the root, whose block then stays where it is in `whole`), and
 * `whole` the root's buffer of comm->size blocks (counts/displs if v). */
static int check_rooted(const void *mine, int mcount, MPI_Datatype mdt,
                        const void *whole, int count, const int *counts,
                        const int *displs, MPI_Datatype dt, int root,
                        MPI_Comm comm, int v)
{
    int cls, role;

    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    cls = wbind_check_root(root, comm);
    if (cls)
        return cls;
    role = wbind_root_role(root, comm);
    if (role == WBIND_IDLE)
        return MPI_SUCCESS;
    if (role == WBIND_LEAF || !comm->remote) { /* this rank has a block */
        if (mine == MPI_IN_PLACE)
            cls = role == WBIND_ROOT ? 0 : MPI_ERR_ARG;
        else
            cls = wbind_check_coll_buf(mine, mcount, mdt);
    }
    if (cls || role != WBIND_ROOT)
        return cls;
    return wbind_check_coll_whole(whole, count, counts, displs, wmpi_comm_peers(comm), dt,
                                  v);
}

/* Which sides of a rooted collective this rank uses: its own block
 * (`mine`) and the root's whole buffer. */
static void rooted_sides(int root, MPI_Comm comm, int *mine, int *whole)
{
    int role = wmpi_comm_is_live(comm) && !wbind_check_root(root, comm)
                   ? wbind_root_role(root, comm)
                   : WBIND_IDLE;

    *whole = role == WBIND_ROOT;
    *mine = role == WBIND_LEAF || (role == WBIND_ROOT && !comm->remote);
}

static int prep_gather(wmpi_coll_args *a, const void *sbuf, int scount,
                       MPI_Datatype sdt, void *rbuf, int rcount, const int *rcounts,
                       const int *displs, MPI_Datatype rdt, int root, MPI_Comm comm,
                       int v)
{
    int mine, whole;

    rooted_sides(root, comm, &mine, &whole);
    *a = (wmpi_coll_args){ .root = root };
    if (mine) {
        a->sbuf = sbuf;
        if (sbuf != MPI_IN_PLACE) {
            a->scount = scount;
            a->sdt = sdt;
        }
    }
    if (whole) {
        a->rbuf = rbuf;
        a->rcount = rcount;
        a->rcounts = rcounts;
        a->rdispls = displs;
        a->rdt = rdt;
    }
    return check_rooted(sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, root,
                        comm, v);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Gather");
    cls = prep_gather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                      NULL, recvtype, root, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_GATHER, &a, 0, NULL, "MPI_Gather");
}
WMPI_ALIAS(Gather)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Igather");
    cls = prep_gather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                      NULL, recvtype, root, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_GATHER, &a, 1, request, "MPI_Igather");
}
WMPI_ALIAS(Igather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, const int recvcounts[], const int displs[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Gatherv");
    cls = prep_gather(&a, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                      displs, recvtype, root, comm, 1);
    return wbind_coll_go(comm, cls, WMPI_COLL_GATHERV, &a, 0, NULL, "MPI_Gatherv");
}
WMPI_ALIAS(Gatherv)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, const int recvcounts[], const int displs[],
                  MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Igatherv");
    cls = prep_gather(&a, sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                      displs, recvtype, root, comm, 1);
    return wbind_coll_go(comm, cls, WMPI_COLL_GATHERV, &a, 1, request, "MPI_Igatherv");
}
WMPI_ALIAS(Igatherv)

static int prep_scatter(wmpi_coll_args *a, const void *sbuf, int scount,
                        const int *scounts, const int *displs, MPI_Datatype sdt,
                        void *rbuf, int rcount, MPI_Datatype rdt, int root,
                        MPI_Comm comm, int v)
{
    int mine, whole;

    rooted_sides(root, comm, &mine, &whole);
    *a = (wmpi_coll_args){ .root = root };
    if (mine) {
        a->rbuf = rbuf;
        if (rbuf != MPI_IN_PLACE) {
            a->rcount = rcount;
            a->rdt = rdt;
        }
    }
    if (whole) {
        a->sbuf = sbuf;
        a->scount = scount;
        a->scounts = scounts;
        a->sdispls = displs;
        a->sdt = sdt;
    }
    return check_rooted(rbuf, rcount, rdt, sbuf, scount, scounts, displs, sdt, root,
                        comm, v);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Scatter");
    cls = prep_scatter(&a, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_SCATTER, &a, 0, NULL, "MPI_Scatter");
}
WMPI_ALIAS(Scatter)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Iscatter");
    cls = prep_scatter(&a, sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, 0);
    return wbind_coll_go(comm, cls, WMPI_COLL_SCATTER, &a, 1, request, "MPI_Iscatter");
}
WMPI_ALIAS(Iscatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Scatterv");
    cls = prep_scatter(&a, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, 1);
    return wbind_coll_go(comm, cls, WMPI_COLL_SCATTERV, &a, 0, NULL, "MPI_Scatterv");
}
WMPI_ALIAS(Scatterv)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Iscatterv");
    cls = prep_scatter(&a, sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                       recvcount, recvtype, root, comm, 1);
    return wbind_coll_go(comm, cls, WMPI_COLL_SCATTERV, &a, 1, request,
                        "MPI_Iscatterv");
}
WMPI_ALIAS(Iscatterv)
