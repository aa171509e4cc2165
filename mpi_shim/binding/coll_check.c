/* Argument checks and the call path of the collective bindings.
 *
 * Design: the checks name the first bad argument by its MPI error class,
 * in the order Open MPI reports them (communicator, then per-rank data:
 * count, datatype, buffer; then root, op), so a program testing its error
 * paths sees the same class under both. Only arguments significant on the
 * calling rank are checked (MPI lets the others be anything). Then one
 * path runs or starts the collective: blocking calls wait in the engine;
 * nonblocking ones get a request completed by the engine's collective
 * thread (engine/coll/coll_run.c).
 *
 * On an intercommunicator the root's group passes MPI_ROOT (the root) or
 * MPI_PROC_NULL (the others, whose arguments are all insignificant), the
 * other group the root's rank in the root's group (wbind_root_role).
 *
 * Rejected: per-collective copies of the count/type/buffer checks.
 * Invariants: a nonblocking call that fails leaves *req MPI_REQUEST_NULL.
 * Locking: none (reads read-only fields of handles).
 */
#include "binding/coll_check.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

_Static_assert(MPI_IN_PLACE == WMPI_IN_PLACE, "MPI_IN_PLACE");
_Static_assert(MPI_ROOT == WMPI_ROOT, "MPI_ROOT");

static int bad_type(MPI_Datatype dt)
{
    return !wmpi_datatype_committed(dt);
}

int wbind_check_coll_buf(const void *buf, int count, MPI_Datatype dt)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (bad_type(dt))
        return MPI_ERR_TYPE;
    if (!buf && count > 0 && dt->size > 0)
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

int wbind_check_coll_bufv(const void *buf, const int counts[], const int displs[],
                         int n, MPI_Datatype dt)
{
    int any = 0;

    if (!counts || !displs)
        return MPI_ERR_ARG;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0)
            return MPI_ERR_COUNT;
        any |= counts[i] > 0;
    }
    if (bad_type(dt))
        return MPI_ERR_TYPE;
    if (!buf && any && dt->size > 0)
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

int wbind_check_coll_whole(const void *buf, int count, const int counts[],
                          const int displs[], int n, MPI_Datatype dt, int v)
{
    if (buf == MPI_IN_PLACE)
        return MPI_ERR_ARG;
    return v ? wbind_check_coll_bufv(buf, counts, displs, n, dt)
             : wbind_check_coll_buf(buf, count, dt);
}

int wbind_check_root(int root, MPI_Comm comm)
{
    if (comm->remote && (root == MPI_ROOT || root == MPI_PROC_NULL))
        return MPI_SUCCESS;
    return root < 0 || root >= wmpi_comm_peers(comm) ? MPI_ERR_ROOT : MPI_SUCCESS;
}

int wbind_root_role(int root, MPI_Comm comm)
{
    if (!comm->remote)
        return comm->rank == root ? WBIND_ROOT : WBIND_LEAF;
    if (root == MPI_ROOT)
        return WBIND_ROOT;
    return root == MPI_PROC_NULL ? WBIND_IDLE : WBIND_LEAF;
}

int wbind_check_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                      MPI_Op op)
{
    int cls = wbind_check_coll_buf(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt);

    if (cls)
        return cls;
    if (!wmpi_op_valid(op, dt)) /* null, freed or zeroed too */
        return MPI_ERR_OP;
    return MPI_SUCCESS;
}

/* What an intercommunicator refuses beyond an intracommunicator's
 * checks: scans (MPI defines none there) and MPI_IN_PLACE (never allowed
 * there; the rooted forms check their own significant buffers). */
static int check_inter(int kind, const wmpi_coll_args *a)
{
    if (kind == WMPI_COLL_SCAN || kind == WMPI_COLL_EXSCAN)
        return MPI_ERR_COMM;
    if (a->sbuf == MPI_IN_PLACE || a->rbuf == MPI_IN_PLACE)
        return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

int wbind_coll_go(MPI_Comm comm, int cls, int kind, const wmpi_coll_args *a,
                 int nonblocking, MPI_Request *req, const char *fn)
{
    if (nonblocking && req)
        *req = MPI_REQUEST_NULL;
    if (!cls && comm->remote)
        cls = check_inter(kind, a);
    if (cls)
        return wbind_fail(comm, cls, fn);
    if (nonblocking && !req)
        return wbind_fail(comm, MPI_ERR_REQUEST, fn);
    if (!nonblocking)
        return wbind_return(comm, wmpi_coll(kind, a, comm), fn);
    return wbind_return(comm, wmpi_icoll(kind, a, comm, req), fn);
}
