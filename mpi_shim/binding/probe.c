/* MPI_Probe and MPI_Iprobe.
 *
 * Design: a probe looks for a matching message in the communicator's
 * unexpected queue (after one progress pass) without receiving it; its
 * status gives source, tag and size, so the program can allocate before
 * MPI_Recv. MPI_Probe blocks only the calling thread until such a message
 * arrives (engine/p2p/wait.c). A probe sees a large message as soon as its
 * rendezvous request arrived, before its data.
 *
 * Rejected: a probe that receives the message into a hidden buffer
 * (MPI_Mprobe's job, not MPI_Probe's; the message stays queued).
 * Invariants: a probe never removes a message.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"

static int check(int source, int tag, MPI_Comm comm)
{
    return wbind_check_p2p(NULL, 0, MPI_BYTE, source, tag, comm, 1);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    wmpi_status st;
    int cls, err;

    WMPI_NEED_INIT("MPI_Probe");
    cls = check(source, tag, comm);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Probe");
    err = wmpi_probe(source, tag, comm, &st);
    if (!err)
        wbind_status_out(status, &st, 0);
    return wbind_return(comm, err, "MPI_Probe");
}
WMPI_ALIAS(Probe)

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    wmpi_status st;
    int cls, err;

    WMPI_NEED_INIT("MPI_Iprobe");
    cls = check(source, tag, comm);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Iprobe");
    if (!flag)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Iprobe");
    err = wmpi_iprobe(source, tag, comm, flag, &st);
    if (!err && *flag)
        wbind_status_out(status, &st, 0);
    else if (!err)
        wmpi_progress_yield(); /* a polling loop must not starve the sender */
    return wbind_return(comm, err, "MPI_Iprobe");
}
WMPI_ALIAS(Iprobe)
