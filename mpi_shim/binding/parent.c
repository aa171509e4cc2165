/* MPI_Comm_get_parent: the intercommunicator to the processes that
 * spawned this one (MPI-3.1 §10.3.2).
 *
 * Design: Weft starts every rank through mpirun (or another launcher),
 * never through MPI_Comm_spawn (not supported yet), so no process has a
 * parent and the answer is always MPI_COMM_NULL, which is what the
 * standard prescribes for a process started by its launcher. Programs
 * that can be spawned call this at start-up to find out, so it must work
 * even while spawning does not.
 *
 * Rejected: leaving it to the "not supported" stubs (it would stop
 * programs that are never spawned). Invariants, locking: none.
 */
#include "binding/binding.h"

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    WMPI_NEED_INIT("MPI_Comm_get_parent");
    if (!parent)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Comm_get_parent");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_get_parent)
