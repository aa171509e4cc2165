/* Reduction ops as objects: the predefined ops (MPI_SUM, MPI_MAX...) and
 * the life of user ops (MPI_Op_create / MPI_Op_free).
 *
 * Design: an MPI_Op handle is the address of a wmpi_op. Predefined ops are
 * static objects here, which mpi.h names (exported as wmpi_op_*); their
 * `id` selects the kernels (op_kernels.c) and they are never freed. A user
 * op is malloc'd and reference counted: one reference for the user's
 * handle, one for each operation in flight that uses it (a non-blocking
 * collective retains it when it starts and releases it when it is
 * finished), so MPI_Op_free while such an operation runs leaves the op
 * valid until the operation ends, as MPI-3.1 5.9.5 requires.
 *
 * Rejected: a table of user ops indexed by small integers (a global lock
 * under MPI_THREAD_MULTIPLE, and handles are pointers anyway); freeing at
 * MPI_Op_free and making collectives copy the function pointer (an op may
 * grow state, e.g. a Fortran flag, and the count costs one atomic).
 *
 * Handles die at MPI_Op_free: the op's live mark is cleared there, so
 * every binding refuses a copy of the handle with MPI_ERR_OP, while the
 * operations in flight go on with the op; the last reference puts the
 * memory in the quarantine (quarantine.c), where the cleared mark stays
 * readable for a while.
 *
 * Invariants: predefined ids are > 0 and distinct; user ops have id 0
 * and refs >= 1 while reachable; magic is WMPI_OP_LIVE exactly until
 * MPI_Op_free (predefined: always). Locking: none; refs is atomic, the other
 * fields are written only before the handle is published.
 */
#include <stddef.h>
#include <stdlib.h>

#include "engine/objects/op.h"
#include "engine/objects/quarantine.h"

/* free() writes its list pointers over an object's first 16 bytes: the
 * mark must lie past them to survive a later check */
_Static_assert(offsetof(wmpi_op, magic) >= 16, "wmpi_op.magic");

#define PREDEFINED(var, str, ident)                                        \
    wmpi_op var = { .name = str, .id = ident, .commute = 1,              \
                    .magic = WMPI_OP_LIVE }

PREDEFINED(wmpi_op_max, "MPI_MAX", WMPI_OP_MAX);
PREDEFINED(wmpi_op_min, "MPI_MIN", WMPI_OP_MIN);
PREDEFINED(wmpi_op_sum, "MPI_SUM", WMPI_OP_SUM);
PREDEFINED(wmpi_op_prod, "MPI_PROD", WMPI_OP_PROD);
PREDEFINED(wmpi_op_land, "MPI_LAND", WMPI_OP_LAND);
PREDEFINED(wmpi_op_band, "MPI_BAND", WMPI_OP_BAND);
PREDEFINED(wmpi_op_lor, "MPI_LOR", WMPI_OP_LOR);
PREDEFINED(wmpi_op_bor, "MPI_BOR", WMPI_OP_BOR);
PREDEFINED(wmpi_op_lxor, "MPI_LXOR", WMPI_OP_LXOR);
PREDEFINED(wmpi_op_bxor, "MPI_BXOR", WMPI_OP_BXOR);
PREDEFINED(wmpi_op_maxloc, "MPI_MAXLOC", WMPI_OP_MAXLOC);
PREDEFINED(wmpi_op_minloc, "MPI_MINLOC", WMPI_OP_MINLOC);
PREDEFINED(wmpi_op_replace, "MPI_REPLACE", WMPI_OP_REPLACE);
PREDEFINED(wmpi_op_no_op, "MPI_NO_OP", WMPI_OP_NO_OP);

int wmpi_op_is_predefined(const wmpi_op *op)
{
    return op && op->id > WMPI_OP_USER && op->id < WMPI_OP_COUNT;
}

int wmpi_op_commutative(const wmpi_op *op)
{
    return op && op->commute;
}

int wmpi_op_create(wmpi_user_fn *fn, int commute, wmpi_op **out)
{
    wmpi_op *op;

    *out = NULL;
    if (!fn)
        return WEFT_EINVAL;
    op = calloc(1, sizeof *op);
    if (!op)
        return WEFT_ENOMEM;
    op->name = "user op";
    op->id = WMPI_OP_USER;
    op->commute = commute != 0;
    op->fn = fn;
    op->refs = 1;
    op->magic = WMPI_OP_LIVE;
    *out = op;
    return 0;
}

void wmpi_op_retain(wmpi_op *op)
{
    if (op && !wmpi_op_is_predefined(op))
        __atomic_add_fetch(&op->refs, 1, __ATOMIC_RELAXED);
}

void wmpi_op_release(wmpi_op *op)
{
    if (!op || wmpi_op_is_predefined(op))
        return;
    if (__atomic_sub_fetch(&op->refs, 1, __ATOMIC_ACQ_REL) == 0)
        wmpi_quarantine_put(op); /* a stale handle still reads FREED */
}

int wmpi_op_free(wmpi_op *op)
{
    if (!wmpi_op_is_live(op) || wmpi_op_is_predefined(op))
        return WEFT_EINVAL;
    /* the handle dies now, though a pending non-blocking collective keeps
     * the op itself until it ends (MPI-3.1 5.9.5) */
    __atomic_store_n(&op->magic, WMPI_OP_FREED, __ATOMIC_RELEASE);
    wmpi_op_release(op);
    return 0;
}
