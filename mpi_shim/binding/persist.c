/* Persistent requests: MPI_Send_init (and its Ssend, Rsend, Bsend
 * variants), MPI_Recv_init, MPI_Start, MPI_Startall.
 *
 * Design: *_init checks the arguments once and describes the operation in
 * an inactive request; each MPI_Start runs it again from that description
 * (engine/p2p/start.c), and a completion call makes it inactive again without
 * freeing it. MPI_Request_free releases it.
 *
 * Rejected: MPI_Start re-checking arguments (they were checked at init and
 * cannot change).
 * Invariants: MPI_Start succeeds only on an inactive persistent request.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"

static int send_init(const void *buf, int count, MPI_Datatype dt, int dest,
                     int tag, MPI_Comm comm, MPI_Request *req, int mode,
                     const char *fn)
{
    int cls;

    WMPI_NEED_INIT(fn);
    cls = wbind_check_p2p_req(buf, count, dt, dest, tag, comm, 0, req);
    if (cls)
        return wbind_fail(comm, cls, fn);
    return wbind_return(comm, wmpi_send_init(buf, count, dt, dest, tag, comm, mode, req),
                       fn);
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request,
                     WMPI_MODE_STANDARD, "MPI_Send_init");
}
WMPI_ALIAS(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request,
                     WMPI_MODE_SYNC, "MPI_Ssend_init");
}
WMPI_ALIAS(Ssend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request,
                     WMPI_MODE_READY, "MPI_Rsend_init");
}
WMPI_ALIAS(Rsend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request)
{
    return send_init(buf, count, datatype, dest, tag, comm, request,
                     WMPI_MODE_BUFFERED, "MPI_Bsend_init");
}
WMPI_ALIAS(Bsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Request *request)
{
    int cls;

    WMPI_NEED_INIT("MPI_Recv_init");
    cls = wbind_check_p2p_req(buf, count, datatype, source, tag, comm, 1, request);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Recv_init");
    return wbind_return(comm, wmpi_recv_init(buf, count, datatype, source, tag,
                                            comm, request), "MPI_Recv_init");
}
WMPI_ALIAS(Recv_init)

static int start(MPI_Request r, const char *fn)
{
    if (!r || wbind_bad_requests(1, &r))
        return wbind_fail(NULL, MPI_ERR_REQUEST, fn);
    if (!r->persistent || r->active)
        return wbind_fail(wbind_request_comm(r), MPI_ERR_REQUEST, fn);
    return wbind_return(r->comm, wmpi_start(r), fn);
}

int PMPI_Start(MPI_Request *request)
{
    WMPI_NEED_INIT("MPI_Start");
    if (!request)
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Start");
    return start(*request, "MPI_Start");
}
WMPI_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    int err = MPI_SUCCESS;

    WMPI_NEED_INIT("MPI_Startall");
    if (count < 0 || (count > 0 && !array_of_requests))
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Startall");
    for (int i = 0; i < count && err == MPI_SUCCESS; i++)
        err = start(array_of_requests[i], "MPI_Startall");
    return err;
}
WMPI_ALIAS(Startall)
