/* Neighbourhood collective bindings: MPI_Neighbor_allgather, _allgatherv,
 * _alltoall, _alltoallv, _alltoallw (blocking forms).
 *
 * Design: check the arguments, fill a wmpi_coll_args counted per
 * neighbour and run engine/coll/neighbor.c. Classes: a null communicator or an
 * intercommunicator MPI_ERR_COMM, one without a topology MPI_ERR_TOPOLOGY,
 * then the collectives' buffer classes (binding/coll_check.h:
 * MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_BUFFER, MPI_ERR_ARG for a missing
 * array); MPI_IN_PLACE is not allowed (MPI-3.1 7.6.1): MPI_ERR_BUFFER.
 * Arrays of counts are read only for the neighbours there are (a rank
 * without neighbours may pass NULL).
 *
 * MPI_Neighbor_alltoallw has its own engine entry: its displacements are
 * MPI_Aint, which wmpi_coll_args (ints) cannot hold.
 * Not yet (generated stubs): the nonblocking forms MPI_Ineighbor_* (they
 * need the collectives' thread-per-request runner, engine/coll/coll_run.c,
 * which takes only its own schedules).
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

/* Report cls, or run the collective and report its error. */
static int run(MPI_Comm comm, int cls, int kind, const wmpi_coll_args *a,
               const char *fn)
{
    int err;

    if (cls)
        return wbind_fail(comm, cls, fn);
    err = wmpi_neighbor_coll(kind, a, comm);
    return err ? wbind_return(comm, err, fn) : MPI_SUCCESS;
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a = { .sbuf = sendbuf, .scount = sendcount, .sdt = sendtype,
                         .rbuf = recvbuf, .rcount = recvcount, .rdt = recvtype };
    int nin = 0, nout = 0, cls;

    WMPI_NEED_INIT("MPI_Neighbor_allgather");
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_buf(sendbuf, sendcount, sendtype);
    if (!cls)
        cls = check_buf(recvbuf, recvcount, recvtype);
    return run(comm, cls, WMPI_COLL_ALLGATHER, &a, "MPI_Neighbor_allgather");
}
WMPI_ALIAS(Neighbor_allgather)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a = { .sbuf = sendbuf, .scount = sendcount, .sdt = sendtype,
                         .rbuf = recvbuf, .rcounts = recvcounts,
                         .rdispls = displs, .rdt = recvtype };
    int nin = 0, nout = 0, cls;

    WMPI_NEED_INIT("MPI_Neighbor_allgatherv");
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_buf(sendbuf, sendcount, sendtype);
    if (!cls)
        cls = check_bufv(recvbuf, recvcounts, displs, nin, recvtype);
    return run(comm, cls, WMPI_COLL_ALLGATHERV, &a, "MPI_Neighbor_allgatherv");
}
WMPI_ALIAS(Neighbor_allgatherv)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount,
                           MPI_Datatype sendtype, void *recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm)
{
    wmpi_coll_args a = { .sbuf = sendbuf, .scount = sendcount, .sdt = sendtype,
                         .rbuf = recvbuf, .rcount = recvcount, .rdt = recvtype };
    int nin = 0, nout = 0, cls;

    WMPI_NEED_INIT("MPI_Neighbor_alltoall");
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_buf(sendbuf, sendcount, sendtype);
    if (!cls)
        cls = check_buf(recvbuf, recvcount, recvtype);
    return run(comm, cls, WMPI_COLL_ALLTOALL, &a, "MPI_Neighbor_alltoall");
}
WMPI_ALIAS(Neighbor_alltoall)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[],
                            const int sdispls[], MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    wmpi_coll_args a = { .sbuf = sendbuf, .scounts = sendcounts,
                         .sdispls = sdispls, .sdt = sendtype, .rbuf = recvbuf,
                         .rcounts = recvcounts, .rdispls = rdispls,
                         .rdt = recvtype };
    int nin = 0, nout = 0, cls;

    WMPI_NEED_INIT("MPI_Neighbor_alltoallv");
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_bufv(sendbuf, sendcounts, sdispls, nout, sendtype);
    if (!cls)
        cls = check_bufv(recvbuf, recvcounts, rdispls, nin, recvtype);
    return run(comm, cls, WMPI_COLL_ALLTOALLV, &a, "MPI_Neighbor_alltoallv");
}
WMPI_ALIAS(Neighbor_alltoallv)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                            const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf,
                            const int recvcounts[], const MPI_Aint rdispls[],
                            const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    wmpi_neighbor_w w = { .sbuf = sendbuf, .scounts = sendcounts,
                          .sdispls = sdispls, .sdts = sendtypes,
                          .rbuf = recvbuf, .rcounts = recvcounts,
                          .rdispls = rdispls, .rdts = recvtypes };
    int nin = 0, nout = 0, cls, err;

    WMPI_NEED_INIT("MPI_Neighbor_alltoallw");
    cls = check_comm(comm, &nin, &nout);
    if (!cls)
        cls = check_bufw(sendbuf, sendcounts, sdispls, sendtypes, nout);
    if (!cls)
        cls = check_bufw(recvbuf, recvcounts, rdispls, recvtypes, nin);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Neighbor_alltoallw");
    err = wmpi_neighbor_alltoallw(&w, comm);
    return err ? wbind_return(comm, err, "MPI_Neighbor_alltoallw") : MPI_SUCCESS;
}
WMPI_ALIAS(Neighbor_alltoallw)
