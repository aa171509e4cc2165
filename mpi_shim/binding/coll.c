/* Collectives: MPI_Barrier (the others come with the next issue).
 *
 * Design: the engine's dissemination barrier over point-to-point messages
 * on the communicator's collective context (engine/barrier.c): correct for
 * any size, ceil(log2 n) rounds, blocking only the calling thread.
 *
 * Rejected: MPI_Barrier through the launcher (wmpi_boot_barrier): it
 * serialises on one process and does not scale past a handful of ranks.
 * Invariants: collective traffic stays on ctx + 1.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"

int PMPI_Barrier(MPI_Comm comm)
{
    WMPI_NEED_INIT("MPI_Barrier");
    if (!comm)
        return wmpi_fail(NULL, MPI_ERR_COMM, "MPI_Barrier");
    return wmpi_return(comm, wmpi_barrier(comm), "MPI_Barrier");
}
WMPI_ALIAS(Barrier)
