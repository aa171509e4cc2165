/* The mark word every kind of handle object carries (a magic number set
 * at creation and changed when the user's handle stops being valid), and
 * the one check of it that each kind's is-live test makes.
 */
#ifndef WMPI_CORE_MARK_H
#define WMPI_CORE_MARK_H

#include <stddef.h>
#include <stdint.h>

/* 1 if `obj` could be one of the engine's objects - not NULL, not a small
 * integer such as (MPI_Comm)1, aligned as its type - and its mark word,
 * `mark_offset` bytes in (read only once the address passes), says
 * `live`. Every handle kind's validity check: one load and compare. */
static inline int wmpi_marked_live(const void *obj, size_t align, size_t mark_offset,
                                   uint32_t live)
{
    uintptr_t p = (uintptr_t)obj;

    return p >= 4096 && p % align == 0 &&
           __atomic_load_n((const uint32_t *)((const char *)obj + mark_offset),
                           __ATOMIC_ACQUIRE) == live;
}

/* wmpi_marked_live of a `type` whose mark word is its field `magic`. */
#define WMPI_MARKED_LIVE(obj, type, live) \
    wmpi_marked_live((obj), _Alignof(type), offsetof(type, magic), (live))

#endif
