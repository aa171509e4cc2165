/* Nonblocking point-to-point: MPI_Isend, MPI_Issend, MPI_Irsend,
 * MPI_Ibsend, MPI_Irecv.
 *
 * Design: check the arguments, start the operation in the engine, hand
 * back its request. The send modes differ only in the engine's protocol
 * choice (engine/p2p/send.c): synchronous sends always rendezvous, buffered
 * sends copy into the attached buffer and return a request that is
 * already complete, ready sends are standard sends.
 *
 * Rejected: separate engine entry points per mode (one entry with a mode
 * keeps the protocol choice in one place, engine/p2p/send.c).
 * Invariants: on success *request is a live request; on error it is
 * MPI_REQUEST_NULL.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"

static int isend(const void *buf, int count, MPI_Datatype dt, int dest,
                 int tag, MPI_Comm comm, MPI_Request *req, int mode,
                 const char *fn)
{
    int cls;

    WMPI_NEED_INIT(fn);
    cls = wbind_check_p2p_req(buf, count, dt, dest, tag, comm, 0, req);
    if (cls)
        return wbind_fail(comm, cls, fn);
    return wbind_return(comm, wmpi_isend(buf, count, dt, dest, tag, comm, mode, req), fn);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request,
                 WMPI_MODE_STANDARD, "MPI_Isend");
}
WMPI_ALIAS(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request,
                 WMPI_MODE_SYNC, "MPI_Issend");
}
WMPI_ALIAS(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request,
                 WMPI_MODE_READY, "MPI_Irsend");
}
WMPI_ALIAS(Irsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                int tag, MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, request,
                 WMPI_MODE_BUFFERED, "MPI_Ibsend");
}
WMPI_ALIAS(Ibsend)

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
               int tag, MPI_Comm comm, MPI_Request *request)
{
    int cls;

    WMPI_NEED_INIT("MPI_Irecv");
    cls = wbind_check_p2p_req(buf, count, datatype, source, tag, comm, 1, request);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Irecv");
    return wbind_return(comm, wmpi_irecv(buf, count, datatype, source, tag, comm,
                                        request), "MPI_Irecv");
}
WMPI_ALIAS(Irecv)
