/* Communicator queries: MPI_Comm_rank and MPI_Comm_size.
 *
 * Design: a communicator handle points at the engine's wmpi_comm, whose
 * rank and size are fixed at creation; the queries read them. Creation,
 * duplication and splitting arrive with the next issue.
 *
 * Rejected: caching rank/size in the binding (the engine's object is the
 * one truth; reading it costs one load).
 * Invariants: rank < size.
 * Locking: none (read-only fields).
 */
#include "binding/binding.h"

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    WMPI_NEED_INIT("MPI_Comm_rank");
    if (!comm)
        return wmpi_fail(NULL, MPI_ERR_COMM, "MPI_Comm_rank");
    if (!rank)
        return wmpi_fail(comm, MPI_ERR_ARG, "MPI_Comm_rank");
    *rank = comm->rank;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    WMPI_NEED_INIT("MPI_Comm_size");
    if (!comm)
        return wmpi_fail(NULL, MPI_ERR_COMM, "MPI_Comm_size");
    if (!size)
        return wmpi_fail(comm, MPI_ERR_ARG, "MPI_Comm_size");
    *size = comm->size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_size)
