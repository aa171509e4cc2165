/* Matched probe and receive: MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv.
 *
 * Design: the engine (engine/p2p/mprobe.c) takes the probed message out of
 * the unexpected queue, so the receive that follows gets exactly it even
 * when other threads receive on the same communicator. A probe of
 * MPI_PROC_NULL returns MPI_MESSAGE_NO_PROC (a sentinel, never
 * dereferenced) and the status of a receive from MPI_PROC_NULL; receiving
 * MPI_MESSAGE_NO_PROC gives that status again, at once (Imrecv: a request
 * complete at start). A receive clears the handle to MPI_MESSAGE_NULL;
 * receiving MPI_MESSAGE_NULL is MPI_ERR_REQUEST, as Open MPI reports, and
 * so is a handle that is no live message (a copy of one received already,
 * zeroed memory, a small integer: wmpi_message_is_live, one load and
 * compare).
 *
 * Errors go to the handler of the communicator the message was probed on
 * (MPI_COMM_WORLD's for MPI_MESSAGE_NO_PROC and null or dead handles).
 *
 * Rejected: MPI_Mrecv as MPI_Recv with the probed envelope (another
 * thread's receive could take the message in between: the race the
 * matched API exists to remove).
 * Invariants: a message handle is consumed once.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"
#include "engine/p2p/mprobe.h"

static int probe_check(int source, int tag, MPI_Comm comm, MPI_Message *message)
{
    int cls = wbind_check_p2p(NULL, 0, MPI_BYTE, source, tag, comm, 1);

    return cls ? cls : !message ? MPI_ERR_ARG : 0;
}

static void no_proc_status(MPI_Status *status)
{
    wmpi_status st = { .source = MPI_PROC_NULL, .tag = MPI_ANY_TAG };

    wbind_status_out(status, &st, 0);
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                MPI_Status *status)
{
    wmpi_status st;
    int cls, err;

    WMPI_NEED_INIT("MPI_Mprobe");
    cls = probe_check(source, tag, comm, message);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Mprobe");
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        no_proc_status(status);
        return MPI_SUCCESS;
    }
    err = wmpi_mprobe(source, tag, comm, message, &st);
    if (!err)
        wbind_status_out(status, &st, 0);
    return wbind_return(comm, err, "MPI_Mprobe");
}
WMPI_ALIAS(Mprobe)

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Message *message, MPI_Status *status)
{
    wmpi_status st;
    int cls, err;

    WMPI_NEED_INIT("MPI_Improbe");
    cls = probe_check(source, tag, comm, message);
    if (!cls && !flag)
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Improbe");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        no_proc_status(status);
        return MPI_SUCCESS;
    }
    err = wmpi_improbe(source, tag, comm, message, &st);
    *flag = !err && *message != MPI_MESSAGE_NULL;
    if (*flag)
        wbind_status_out(status, &st, 0);
    else if (!err)
        wmpi_progress_yield(); /* a polling loop must not starve the sender */
    return wbind_return(comm, err, "MPI_Improbe");
}
WMPI_ALIAS(Improbe)

/* ------------------------------------------------------------ receiving */

static MPI_Comm message_comm(const MPI_Message *message)
{
    if (!message || *message == MPI_MESSAGE_NO_PROC || !wmpi_message_is_live(*message))
        return MPI_COMM_WORLD;
    return (*message)->comm;
}

/* 0 or the class of a bad argument list. */
static int recv_check(void *buf, int count, MPI_Datatype dt, const MPI_Message *message)
{
    if (!message || (*message != MPI_MESSAGE_NO_PROC && !wmpi_message_is_live(*message)))
        return MPI_ERR_REQUEST; /* null, received already, zeroed memory */
    return wbind_check_p2p(buf, count, dt, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          message_comm(message), 1);
}

/* Start the receive of *message; *req the request. */
static int start(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
                 MPI_Request *req)
{
    int err;

    if (*message == MPI_MESSAGE_NO_PROC)
        err = wmpi_irecv(buf, count, dt, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_SELF, req);
    else
        err = wmpi_imrecv(buf, count, dt, *message, req);
    if (!err)
        *message = MPI_MESSAGE_NULL;
    return err;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    MPI_Comm comm = message_comm(message);
    MPI_Request r;
    int cls, err;

    WMPI_NEED_INIT("MPI_Mrecv");
    cls = recv_check(buf, count, datatype, message);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Mrecv");
    err = start(buf, count, datatype, message, &r);
    if (!err)
        err = wbind_wait_one(&r, status);
    return wbind_return(comm, err, "MPI_Mrecv");
}
WMPI_ALIAS(Mrecv)

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    MPI_Comm comm = message_comm(message);
    int cls;

    WMPI_NEED_INIT("MPI_Imrecv");
    cls = recv_check(buf, count, datatype, message);
    if (!cls && !request)
        cls = MPI_ERR_REQUEST;
    if (cls)
        return wbind_fail(comm, cls, "MPI_Imrecv");
    return wbind_return(comm, start(buf, count, datatype, message, request), "MPI_Imrecv");
}
WMPI_ALIAS(Imrecv)
