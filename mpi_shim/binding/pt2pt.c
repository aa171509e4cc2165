/* Blocking point-to-point: MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend,
 * MPI_Recv, MPI_Sendrecv, MPI_Sendrecv_replace.
 *
 * Design: each is its nonblocking form followed by a wait, in the engine:
 * start the operation(s), then block the calling thread (only it: a ULT
 * leaves its worker to others) until done. MPI_Sendrecv starts both
 * halves before waiting for either, so two ranks that exchange with each
 * other never deadlock; MPI_Sendrecv_replace receives into a scratch
 * buffer and copies it over the send buffer once both halves are done.
 *
 * Errors: an operation that fails (truncation, lost peer...) reports
 * through the communicator's handler with the function's name.
 *
 * Rejected: a separate blocking path in the engine (the nonblocking path
 * plus one wait costs a request allocation, and keeps one protocol
 * implementation).
 * Invariants: a blocking call returns with its requests released.
 * Locking: none here (the engine locks).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "binding/binding.h"
#include "engine/objects/datatype.h"

static int send(const void *buf, int count, MPI_Datatype dt, int dest,
                int tag, MPI_Comm comm, int mode, const char *fn)
{
    MPI_Request r;
    int cls, err;

    WMPI_NEED_INIT(fn);
    cls = wbind_check_p2p(buf, count, dt, dest, tag, comm, 0);
    if (cls)
        return wbind_fail(comm, cls, fn);
    err = wmpi_isend(buf, count, dt, dest, tag, comm, mode, &r);
    if (!err)
        err = wbind_wait_one(&r, MPI_STATUS_IGNORE);
    return wbind_return(comm, err, fn);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, WMPI_MODE_STANDARD, "MPI_Send");
}
WMPI_ALIAS(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, WMPI_MODE_SYNC, "MPI_Ssend");
}
WMPI_ALIAS(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, WMPI_MODE_READY, "MPI_Rsend");
}
WMPI_ALIAS(Rsend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, WMPI_MODE_BUFFERED, "MPI_Bsend");
}
WMPI_ALIAS(Bsend)

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
              MPI_Comm comm, MPI_Status *status)
{
    MPI_Request r;
    int cls, err;

    WMPI_NEED_INIT("MPI_Recv");
    cls = wbind_check_p2p(buf, count, datatype, source, tag, comm, 1);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Recv");
    err = wmpi_irecv(buf, count, datatype, source, tag, comm, &r);
    if (!err)
        err = wbind_wait_one(&r, status);
    return wbind_return(comm, err, "MPI_Recv");
}
WMPI_ALIAS(Recv)

/* --------------------------------------------------------------- both */

typedef struct half {
    void *buf;
    int count;
    MPI_Datatype dt;
    int peer, tag;
} half;

static int exchange(const half *s, const half *r, MPI_Comm comm,
                    MPI_Status *status)
{
    MPI_Request rq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int err, err2;

    err = wmpi_irecv(r->buf, r->count, r->dt, r->peer, r->tag, comm, &rq[0]);
    if (err)
        return err;
    err = wmpi_isend(s->buf, s->count, s->dt, s->peer, s->tag, comm,
                     WMPI_MODE_STANDARD, &rq[1]);
    if (err) {
        wmpi_cancel(rq[0]);
        wbind_wait_one(&rq[0], MPI_STATUS_IGNORE);
        return err;
    }
    err = wmpi_wait_requests(rq, 2, 2);
    if (err)
        return err;
    err = wbind_complete(&rq[0], status, 0);
    err2 = wbind_complete(&rq[1], MPI_STATUS_IGNORE, 0);
    return err ? err : err2;
}

static int check_both(const half *s, const half *r, MPI_Comm comm)
{
    int cls = wbind_check_p2p(s->buf, s->count, s->dt, s->peer, s->tag, comm, 0);

    return cls ? cls : wbind_check_p2p(r->buf, r->count, r->dt, r->peer, r->tag, comm, 1);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status *status)
{
    half s = { (void *)sendbuf, sendcount, sendtype, dest, sendtag };
    half r = { recvbuf, recvcount, recvtype, source, recvtag };
    int cls;

    WMPI_NEED_INIT("MPI_Sendrecv");
    cls = check_both(&s, &r, comm);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Sendrecv");
    return wbind_return(comm, exchange(&s, &r, comm, status), "MPI_Sendrecv");
}
WMPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                          int sendtag, int source, int recvtag, MPI_Comm comm,
                          MPI_Status *status)
{
    half s = { buf, count, datatype, dest, sendtag };
    half r = { buf, count, datatype, source, recvtag };
    MPI_Status st = { 0 };
    int64_t bytes;
    int cls, err, keep;

    WMPI_NEED_INIT("MPI_Sendrecv_replace");
    cls = check_both(&s, &r, comm);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Sendrecv_replace");
    bytes = wmpi_datatype_bytes(datatype, count);
    if (bytes > INT_MAX)
        return wbind_fail(comm, MPI_ERR_COUNT, "MPI_Sendrecv_replace");
    r.buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!r.buf)
        return wbind_fail(comm, MPI_ERR_NO_MEM, "MPI_Sendrecv_replace");
    r.dt = MPI_BYTE; /* the scratch holds the packed message (datatype.h) */
    r.count = (int)bytes;
    err = exchange(&s, &r, comm, &st);
    if ((!err || err == -EMSGSIZE) && st.wmpi_bytes > 0)
        wmpi_datatype_unpack_part(datatype, count, r.buf, st.wmpi_bytes, buf);
    free(r.buf);
    if (status != MPI_STATUS_IGNORE) {
        keep = status->MPI_ERROR; /* single completion: not ours to set */
        *status = st;
        status->MPI_ERROR = keep;
    }
    return wbind_return(comm, err, "MPI_Sendrecv_replace");
}
WMPI_ALIAS(Sendrecv_replace)
