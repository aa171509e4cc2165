/* A small cache of the collectives' large scratch blocks.
 *
 * Why. A reduction of 1 MiB needs scratch buffers of that size at every
 * call; malloc serves such sizes with mmap and munmap, so without a cache
 * every call pays a page fault per 4 KiB page and the kernel's page
 * clearing (figures: docs/performance-notes.md). Blocks of SCRATCH_MIN
 * bytes or more are kept here when freed, up to SCRATCH_SLOTS of them,
 * each at most SCRATCH_MAX bytes, and handed out again to a request they
 * fit; smaller blocks come from malloc's own free lists, which are cheap.
 *
 * Invariants: a cached block is in exactly one slot; slots[i].cap is its
 * usable size. MPI_Finalize drains the cache (wmpi_scratch_drain).
 * Locking: one spin lock, held for a slot scan only (never across malloc
 * or free); collectives on different communicators run concurrently.
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/core/lock.h"

#define SCRATCH_SLOTS 4
#define SCRATCH_MIN ((size_t)128 * 1024)
#define SCRATCH_MAX ((size_t)64 * 1024 * 1024)

typedef struct scratch_slot {
    void *p;
    size_t cap;
} scratch_slot;

static scratch_slot slots[SCRATCH_SLOTS];
static wmpi_lock slots_lock = WMPI_LOCK_INITIALIZER;

/* Take the smallest cached block of at least `bytes`, or NULL. */
static void *take_cached(size_t bytes, size_t *cap)
{
    int best = -1;

    wmpi_lock_take(&slots_lock);
    for (int i = 0; i < SCRATCH_SLOTS; i++)
        if (slots[i].p && slots[i].cap >= bytes && (best < 0 || slots[i].cap < slots[best].cap))
            best = i;
    void *p = best >= 0 ? slots[best].p : NULL;
    if (p) {
        *cap = slots[best].cap;
        slots[best].p = NULL;
    }
    wmpi_lock_release(&slots_lock);
    return p;
}

void *wmpi_scratch_get(size_t bytes, size_t *cap)
{
    void *p = bytes >= SCRATCH_MIN ? take_cached(bytes, cap) : NULL;

    if (p)
        return p;
    *cap = bytes > 0 ? bytes : 1;
    return malloc(*cap);
}

void wmpi_scratch_put(void *p, size_t cap)
{
    int kept = 0;

    if (!p)
        return;
    if (cap >= SCRATCH_MIN && cap <= SCRATCH_MAX) {
        wmpi_lock_take(&slots_lock);
        for (int i = 0; i < SCRATCH_SLOTS && !kept; i++)
            if (!slots[i].p) {
                slots[i] = (scratch_slot){ p, cap };
                kept = 1;
            }
        wmpi_lock_release(&slots_lock);
    }
    if (!kept)
        free(p);
}

void wmpi_scratch_drain(void)
{
    for (int i = 0; i < SCRATCH_SLOTS; i++) {
        void *p;

        wmpi_lock_take(&slots_lock);
        p = slots[i].p;
        slots[i].p = NULL;
        wmpi_lock_release(&slots_lock);
        free(p);
    }
}
