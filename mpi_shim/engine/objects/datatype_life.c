/* Derived datatypes after construction: reference counts, arguments,
 * commit, and names (of derived and predefined types).
 *
 * Design: a derived type is freed when its last reference goes: the
 * user's handle (MPI_Type_free), each pending operation using it
 * (requests retain their type in start.c), each type built on it. Its
 * release drops its own references to the types it was built from, so a
 * chain of types is freed from the top down. Predefined types are static
 * and never counted. The freed type's own allocation (handle and
 * description, a fixed size) waits in the quarantine (quarantine.c) with
 * its mark cleared, so a stale handle is refused without reading freed
 * memory.
 *
 * Rejected: freeing at MPI_Type_free and making pending operations copy
 * the type (a copy per operation for a case MPI allows but few use).
 * Invariants: refs > 0 while reachable; the name and committed flag are
 * the only fields that change after construction.
 * Locking: refs and committed are atomic; renamed predefined types' names
 * are guarded by the engine lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/objects/datatype_impl.h"
#include "engine/objects/quarantine.h"
#include "engine/core/internal.h"

/* ------------------------------------------------------------ life */

void wmpi_datatype_retain(wmpi_datatype *dt)
{
    if (dt && dt->derived)
        __atomic_add_fetch(&dt->derived->refs, 1, __ATOMIC_RELAXED);
}

void wmpi_datatype_release(wmpi_datatype *dt)
{
    struct wmpi_dtd *d = dt ? dt->derived : NULL;

    if (!d || __atomic_sub_fetch(&d->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    wmpi_type_attr_discard(dt); /* left by a failed MPI_Type_dup */
    for (int i = 0; i < d->args.nt; i++)
        wmpi_datatype_release(d->args.types[i]);
    free((void *)d->args.aints);
    free(d->segs);
    __atomic_store_n(&d->magic, WMPI_DTD_FREED, __ATOMIC_RELEASE);
    wmpi_quarantine_put((wmpi_derived_type *)dt); /* a stale handle reads FREED */
}

void wmpi_datatype_args(const wmpi_datatype *dt, wmpi_type_args *a)
{
    if (dt->derived) {
        *a = dt->derived->args;
        return;
    }
    memset(a, 0, sizeof *a);
    a->combiner = WMPI_COMBINER_NAMED;
}

void wmpi_datatype_commit(wmpi_datatype *dt)
{
    if (dt->derived)
        __atomic_store_n(&dt->derived->committed, 1, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ names */

/* Predefined types renamed by the program: their new names live here
 * (a predefined type's own name is a string constant). */
#define RENAMED_MAX 64
static struct {
    const wmpi_datatype *dt;
    char name[WMPI_MAX_TYPE_NAME];
} renamed[RENAMED_MAX];

static char *predefined_name_slot(const wmpi_datatype *dt)
{
    for (int i = 0; i < RENAMED_MAX; i++) {
        if (renamed[i].dt == dt || !renamed[i].dt) {
            renamed[i].dt = dt;
            return renamed[i].name;
        }
    }
    return NULL;
}

int wmpi_datatype_set_name(wmpi_datatype *dt, const char *name)
{
    char *slot;

    if (!dt || !name)
        return WEFT_EINVAL;
    if (dt->derived) {
        snprintf(dt->derived->name, WMPI_MAX_TYPE_NAME, "%s", name);
        return 0;
    }
    wmpi_lock_engine();
    slot = predefined_name_slot(dt);
    if (slot) {
        snprintf(slot, WMPI_MAX_TYPE_NAME, "%s", name);
        dt->name = slot;
    }
    wmpi_unlock_engine();
    return slot ? 0 : WEFT_ENOMEM;
}

void wmpi_datatype_get_name(const wmpi_datatype *dt, char *name, int *len)
{
    int n = snprintf(name, WMPI_MAX_TYPE_NAME, "%s", dt->name ? dt->name : "");

    *len = n < WMPI_MAX_TYPE_NAME ? n : WMPI_MAX_TYPE_NAME - 1;
}
