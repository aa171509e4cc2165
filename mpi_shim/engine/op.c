/* Predefined reduction operations (MPI_SUM, MPI_MAX...).
 *
 * Only the objects for now: their addresses are the MPI_Op handles that
 * mpi.h publishes, so programs using them compile and link. The reduction
 * kernels arrive with the collectives (next issue) and will dispatch on
 * `id` and the datatype.
 *
 * Invariants: ids are distinct and never change. No state, no locking.
 * Rejected: integer op codes in mpi.h (handles are pointers, see mpi.h).
 */
#include "engine/engine.h"

enum {
    OP_MAX = 1, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_BAND, OP_LOR, OP_BOR,
    OP_LXOR, OP_BXOR, OP_MAXLOC, OP_MINLOC, OP_REPLACE, OP_NO_OP,
};

wmpi_op wmpi_op_max = { "MPI_MAX", OP_MAX };
wmpi_op wmpi_op_min = { "MPI_MIN", OP_MIN };
wmpi_op wmpi_op_sum = { "MPI_SUM", OP_SUM };
wmpi_op wmpi_op_prod = { "MPI_PROD", OP_PROD };
wmpi_op wmpi_op_land = { "MPI_LAND", OP_LAND };
wmpi_op wmpi_op_band = { "MPI_BAND", OP_BAND };
wmpi_op wmpi_op_lor = { "MPI_LOR", OP_LOR };
wmpi_op wmpi_op_bor = { "MPI_BOR", OP_BOR };
wmpi_op wmpi_op_lxor = { "MPI_LXOR", OP_LXOR };
wmpi_op wmpi_op_bxor = { "MPI_BXOR", OP_BXOR };
wmpi_op wmpi_op_maxloc = { "MPI_MAXLOC", OP_MAXLOC };
wmpi_op wmpi_op_minloc = { "MPI_MINLOC", OP_MINLOC };
wmpi_op wmpi_op_replace = { "MPI_REPLACE", OP_REPLACE };
wmpi_op wmpi_op_no_op = { "MPI_NO_OP", OP_NO_OP };
