/* Reduction ops: MPI_Op_create, MPI_Op_free, MPI_Op_commutative and
 * MPI_Reduce_local.
 *
 * Design: parameter checks here, everything else in the engine (op.h):
 * user ops are reference counted there, so MPI_Op_free while a
 * non-blocking collective still uses the op is safe. MPI_Reduce_local
 * applies the op in the calling thread (no message, no lock). Checks run
 * in Open MPI's order (op, then the op against the datatype, then count,
 * datatype and buffers), so error classes agree where it matters; errors
 * not tied to a communicator go to MPI_COMM_WORLD's handler (MPI-3.1 8.3).
 *
 * Rejected: accepting MPI_REPLACE / MPI_NO_OP in MPI_Reduce_local (MPI
 * allows them in accumulate only; Open MPI rejects them too).
 * An op handle that is not live (null, freed, zeroed memory, a small
 * integer) is MPI_ERR_OP in every call here and in every reduction
 * (wmpi_op_is_live: one load and compare).
 * Invariants: a freed handle is set to MPI_OP_NULL.
 * Locking: none here.
 */
#include "binding/binding.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    WMPI_NEED_INIT("MPI_Op_create");
    if (!user_fn || !op)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Op_create");
    return wbind_return(NULL, wmpi_op_create(user_fn, commute, op),
                       "MPI_Op_create");
}
WMPI_ALIAS(Op_create)

int PMPI_Op_free(MPI_Op *op)
{
    WMPI_NEED_INIT("MPI_Op_free");
    if (!op || !wmpi_op_is_live(*op) || wmpi_op_is_predefined(*op))
        return wbind_fail(NULL, MPI_ERR_OP, "MPI_Op_free");
    wmpi_op_free(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    WMPI_NEED_INIT("MPI_Op_commutative");
    if (!wmpi_op_is_live(op))
        return wbind_fail(NULL, MPI_ERR_OP, "MPI_Op_commutative");
    if (!commute)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Op_commutative");
    *commute = wmpi_op_commutative(op);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Op_commutative)

static int check_reduce_local(const void *inbuf, const void *inoutbuf,
                              int count, MPI_Datatype dt, MPI_Op op)
{
    if (!wmpi_op_is_live(op)) /* null, freed, zeroed memory */
        return MPI_ERR_OP;
    if (!wmpi_datatype_is_valid(dt))
        return MPI_ERR_TYPE;
    if (!wmpi_op_valid(op, dt))
        return MPI_ERR_OP;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!wmpi_datatype_committed(dt))
        return MPI_ERR_TYPE;
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    if ((!inbuf || !inoutbuf) && count > 0 && dt->size > 0)
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                      MPI_Datatype datatype, MPI_Op op)
{
    int cls;

    WMPI_NEED_INIT("MPI_Reduce_local");
    cls = check_reduce_local(inbuf, inoutbuf, count, datatype, op);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Reduce_local");
    return wbind_return(NULL, wmpi_op_apply(op, inbuf, inoutbuf, count, datatype),
                       "MPI_Reduce_local");
}
WMPI_ALIAS(Reduce_local)
