/* Neighbourhood collective bindings: MPI_Neighbor_allgather, _allgatherv,
 * _alltoall, _alltoallv, _alltoallw, and their nonblocking forms
 * MPI_Ineighbor_*.
 *
 * Design: check the arguments, fill a wmpi_coll_args counted per
 * neighbour and run engine/coll/neighbor.c (the nonblocking forms start
 * it and hand back its request; a NULL request pointer is
 * MPI_ERR_REQUEST). Classes: a null communicator or an
 * intercommunicator MPI_ERR_COMM, one without a topology MPI_ERR_TOPOLOGY,
 * then the collectives' buffer classes (binding/coll_check.h:
 * MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_BUFFER, MPI_ERR_ARG for a missing
 * array); MPI_IN_PLACE is not allowed (MPI-3.1 7.6.1): MPI_ERR_BUFFER.
 * Arrays of counts are read only for the neighbours there are (a rank
 * without neighbours may pass NULL).
 *
 * MPI_Neighbor_alltoallw has its own engine entry: its displacements are
 * MPI_Aint, which wmpi_coll_args (ints) cannot hold.
 * Invariants: none. Locking: none (the engine's).
 */
#include "binding/coll_check.h"
#include "engine/objects/comm.h"
#include "engine/coll/neighbor.h"

/* 0 or the class for comm; *nin, *nout its neighbour counts. */
static int check_comm(MPI_Comm comm, int *nin, int *nout)
{
    if (!wmpi_comm_is_live(comm) || comm->remote)
        return MPI_ERR_COMM;
    if (!comm->topo)
        return MPI_ERR_TOPOLOGY;
    return wmpi_neighbors_count(comm, nin, nout) ? MPI_ERR_NO_MEM : 0;
}

/* One buffer per neighbour, n of them. */
static int check_bufv(const void *buf, const int counts[], const int displs[],
                      int n, MPI_Datatype dt)
{
    if (buf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    return n ? wbind_check_coll_bufv(buf, counts, displs, n, dt) : 0;
}

static int check_buf(const void *buf, int count, MPI_Datatype dt)
{
    if (buf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    return wbind_check_coll_buf(buf, count, dt);
}

static int check_bufw(const void *buf, const int counts[],
                      const MPI_Aint displs[], const MPI_Datatype types[],
                      int n)
{
    int cls = 0;

    if (buf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    if (n && (!counts || !displs || !types))
        return MPI_ERR_ARG;
    for (int i = 0; !cls && i < n; i++)
        cls = wbind_check_coll_buf(buf, counts[i], types[i]);
    return cls;
}

/* Report cls, or run the collective (the w-form if w) and report its
 * error; nonblocking: start it and store its request in *req. */
static int go(MPI_Comm comm, int cls, int kind, const wmpi_coll_args *a,
              const wmpi_neighbor_w *w, int nonblocking, MPI_Request *req, const char *fn)
{
    int err;

    if (nonblocking && req)
        *req = MPI_REQUEST_NULL;
    if (cls)
        return wbind_fail(comm, cls, fn);
    if (nonblocking && !req)
        return wbind_fail(comm, MPI_ERR_REQUEST, fn);
    if (w)
        err = nonblocking ? wmpi_ineighbor_alltoallw(w, comm, req)
                          : wmpi_neighbor_alltoallw(w, comm);
    else
        err = nonblocking ? wmpi_ineighbor_coll(kind, a, comm, req)
                          : wmpi_neighbor_coll(kind, a, comm);
    return err ? wbind_return(comm, err, fn) : MPI_SUCCESS;
}

/* --------------------------------------------------------- allgather */

static int prep_allgather(wmpi_coll_args *a, const void *sbuf, int scount, MPI_Datatype sdt,
                          void *rbuf, int rcount, MPI_Datatype rdt, MPI_Comm comm)
{
    int nin = 0, nout = 0, cls;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .scount = scount, .sdt = sdt,
                           .rbuf = rbuf, .rcount = rcount, .rdt = rdt };
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_buf(sbuf, scount, sdt);
    return cls ? cls : check_buf(rbuf, rcount, rdt);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Neighbor_allgather");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLGATHER, &a, NULL, 0, NULL, "MPI_Neighbor_allgather");
}
WMPI_ALIAS(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf, int recvcount,
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ineighbor_allgather");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLGATHER, &a, NULL, 1, request, "MPI_Ineighbor_allgather");
}
WMPI_ALIAS(Ineighbor_allgather)

/* -------------------------------------------------------- allgatherv */

static int prep_allgatherv(wmpi_coll_args *a, const void *sbuf, int scount, MPI_Datatype sdt,
                           void *rbuf, const int rcounts[], const int displs[],
                           MPI_Datatype rdt, MPI_Comm comm)
{
    int nin = 0, nout = 0, cls;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .scount = scount, .sdt = sdt, .rbuf = rbuf,
                           .rcounts = rcounts, .rdispls = displs, .rdt = rdt };
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_buf(sbuf, scount, sdt);
    return cls ? cls : check_bufv(rbuf, rcounts, displs, nin, rdt);
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Neighbor_allgatherv");
    cls = prep_allgatherv(&a, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLGATHERV, &a, NULL, 0, NULL, "MPI_Neighbor_allgatherv");
}
WMPI_ALIAS(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ineighbor_allgatherv");
    cls = prep_allgatherv(&a, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                          recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLGATHERV, &a, NULL, 1, request,
              "MPI_Ineighbor_allgatherv");
}
WMPI_ALIAS(Ineighbor_allgatherv)

/* ---------------------------------------------------------- alltoall */

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Neighbor_alltoall");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLTOALL, &a, NULL, 0, NULL, "MPI_Neighbor_alltoall");
}
WMPI_ALIAS(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ineighbor_alltoall");
    cls = prep_allgather(&a, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLTOALL, &a, NULL, 1, request, "MPI_Ineighbor_alltoall");
}
WMPI_ALIAS(Ineighbor_alltoall)

/* --------------------------------------------------------- alltoallv */

static int prep_alltoallv(wmpi_coll_args *a, const void *sbuf, const int scounts[],
                          const int sdispls[], MPI_Datatype sdt, void *rbuf,
                          const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                          MPI_Comm comm)
{
    int nin = 0, nout = 0, cls;

    *a = (wmpi_coll_args){ .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls, .sdt = sdt,
                           .rbuf = rbuf, .rcounts = rcounts, .rdispls = rdispls, .rdt = rdt };
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_bufv(sbuf, scounts, sdispls, nout, sdt);
    return cls ? cls : check_bufv(rbuf, rcounts, rdispls, nin, rdt);
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Neighbor_alltoallv");
    cls = prep_alltoallv(&a, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                         rdispls, recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLTOALLV, &a, NULL, 0, NULL, "MPI_Neighbor_alltoallv");
}
WMPI_ALIAS(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                             const int sdispls[], MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    wmpi_coll_args a;
    int cls;

    WMPI_NEED_INIT("MPI_Ineighbor_alltoallv");
    cls = prep_alltoallv(&a, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                         rdispls, recvtype, comm);
    return go(comm, cls, WMPI_COLL_ALLTOALLV, &a, NULL, 1, request, "MPI_Ineighbor_alltoallv");
}
WMPI_ALIAS(Ineighbor_alltoallv)

/* --------------------------------------------------------- alltoallw */

static int prep_alltoallw(wmpi_neighbor_w *w, const void *sbuf, const int scounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sdts[], void *rbuf,
                          const int rcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype rdts[], MPI_Comm comm)
{
    int nin = 0, nout = 0, cls;

    *w = (wmpi_neighbor_w){ .sbuf = sbuf, .scounts = scounts, .sdispls = sdispls,
                            .sdts = sdts, .rbuf = rbuf, .rcounts = rcounts,
                            .rdispls = rdispls, .rdts = rdts };
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_bufw(sbuf, scounts, sdispls, sdts, nout);
    return cls ? cls : check_bufw(rbuf, rcounts, rdispls, rdts, nin);
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    wmpi_neighbor_w w;
    int cls;

    WMPI_NEED_INIT("MPI_Neighbor_alltoallw");
    cls = prep_alltoallw(&w, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                         rdispls, recvtypes, comm);
    return go(comm, cls, 0, NULL, &w, 0, NULL, "MPI_Neighbor_alltoallw");
}
WMPI_ALIAS(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf,
                             const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    wmpi_neighbor_w w;
    int cls;

    WMPI_NEED_INIT("MPI_Ineighbor_alltoallw");
    cls = prep_alltoallw(&w, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                         rdispls, recvtypes, comm);
    return go(comm, cls, 0, NULL, &w, 1, request, "MPI_Ineighbor_alltoallw");
}
WMPI_ALIAS(Ineighbor_alltoallw)
