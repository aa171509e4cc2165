/* Addresses: MPI_Get_address, MPI_Aint_add and MPI_Aint_diff.
 *
 * Design: an MPI_Aint holds a virtual address as an integer (intptr_t),
 * so MPI_BOTTOM is address 0 and a displacement from MPI_Get_address can
 * be used with MPI_BOTTOM as the buffer. Add and diff compute in unsigned
 * arithmetic, so addresses on either side of the sign bit wrap as the
 * machine does instead of overflowing a signed integer (undefined in C).
 *
 * Rejected: nothing: these are the identity and two additions.
 * Invariants: Get_address(p) - Get_address(q) == (char *)p - (char *)q.
 * Locking: none.
 */
#include <stdint.h>

#include "binding/binding.h"

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    WMPI_NEED_INIT("MPI_Get_address");
    if (!address)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Get_address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Get_address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
WMPI_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
WMPI_ALIAS(Aint_diff)
