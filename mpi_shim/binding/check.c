/* Parameter checks shared by the point-to-point bindings.
 *
 * Design: one function checks the (buffer, count, datatype, peer, tag,
 * communicator) list every point-to-point call takes and names the first
 * bad argument by its MPI error class, in the order Open MPI reports them
 * (communicator, count, datatype, buffer, tag, rank), so a program that
 * tests its own error paths sees the same class under both libraries.
 * The checks are a handful of compares: cheap enough to keep always on.
 *
 * Rejected: checks only in debug builds (Open MPI checks by default, and
 * the tests compare error classes between the two libraries).
 * Invariants: returns MPI_SUCCESS or exactly one error class.
 * Locking: none (reads read-only communicator fields).
 */
#include "binding/binding.h"
#include "engine/objects/datatype.h"

_Static_assert(MPI_ANY_SOURCE == WMPI_ANY_SOURCE, "MPI_ANY_SOURCE");
_Static_assert(MPI_PROC_NULL == WMPI_PROC_NULL, "MPI_PROC_NULL");
_Static_assert(MPI_ANY_TAG == WMPI_ANY_TAG, "MPI_ANY_TAG");

static int bad_tag(int tag, int recv)
{
    if (recv && tag == MPI_ANY_TAG)
        return 0;
    return tag < 0 || tag > WMPI_TAG_UB;
}

static int bad_rank(int peer, const wmpi_comm *c, int recv)
{
    if (peer == MPI_PROC_NULL || (recv && peer == MPI_ANY_SOURCE))
        return 0;
    return peer < 0 || peer >= wmpi_comm_peers(c); /* intercomm: remote size */
}

int wbind_check_p2p(const void *buf, int count, MPI_Datatype dt, int peer,
                   int tag, MPI_Comm comm, int recv)
{
    if (!wmpi_comm_is_live(comm)) /* NULL, (MPI_Comm)1, freed */
        return MPI_ERR_COMM;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!wmpi_datatype_committed(dt)) /* a valid handle; derived: committed? */
        return MPI_ERR_TYPE;
    if (!wmpi_datatype_fits(dt, count)) /* no buffer spans 2^63 bytes */
        return MPI_ERR_COUNT;
    /* derived types may address absolute memory from MPI_BOTTOM */
    if (!buf && count > 0 && dt->extent > 0 && wmpi_datatype_is_predefined(dt))
        return MPI_ERR_BUFFER;
    if (bad_tag(tag, recv))
        return MPI_ERR_TAG;
    if (bad_rank(peer, comm, recv))
        return MPI_ERR_RANK;
    return MPI_SUCCESS;
}

int wbind_check_p2p_req(const void *buf, int count, MPI_Datatype dt, int peer,
                       int tag, MPI_Comm comm, int recv, const MPI_Request *req)
{
    int cls = wbind_check_p2p(buf, count, dt, peer, tag, comm, recv);
    return cls ? cls : req ? MPI_SUCCESS : MPI_ERR_REQUEST;
}
