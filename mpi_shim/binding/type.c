/* Datatype queries: MPI_Type_size and MPI_Type_get_extent.
 *
 * Design: predefined datatypes are engine objects carrying their size and
 * extent (engine/datatype.c); lower bounds are 0 for all of them. Derived
 * datatypes, with their constructors, arrive with the next issue.
 *
 * Rejected: none to speak of; these are direct reads.
 * Invariants: size <= extent for predefined types.
 * Locking: none (read-only objects).
 */
#include <limits.h>

#include "binding/binding.h"

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    WMPI_NEED_INIT("MPI_Type_size");
    if (!datatype)
        return wmpi_fail(NULL, MPI_ERR_TYPE, "MPI_Type_size");
    if (!size)
        return wmpi_fail(NULL, MPI_ERR_ARG, "MPI_Type_size");
    *size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_size)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    WMPI_NEED_INIT("MPI_Type_get_extent");
    if (!datatype)
        return wmpi_fail(NULL, MPI_ERR_TYPE, "MPI_Type_get_extent");
    if (!lb || !extent)
        return wmpi_fail(NULL, MPI_ERR_ARG, "MPI_Type_get_extent");
    *lb = 0;
    *extent = (MPI_Aint)datatype->extent;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_get_extent)
