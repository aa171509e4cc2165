/* The quarantine of freed handle objects: communicators, derived
 * datatypes, user ops, info objects, error handlers, windows and matched
 * messages go here instead of straight back to malloc.
 *
 * Why: the bindings recognise a handle used after its free by a live mark
 * in the object (one load and compare, no lock). That works only while
 * the object's memory is still ours: once free() returns it, the check
 * reads memory malloc owns (AddressSanitizer rightly reports a use after
 * free), and glibc hands the same chunk to the next allocation of that
 * size at once - often the very next object of the same kind, so a stale
 * handle would pass the check and name a stranger. Keeping the last
 * WMPI_QUARANTINE_SLOTS freed shells owned, with their mark cleared, makes
 * the common mistake (a handle used soon after MPI_Comm_free, MPI_Op_free,
 * MPI_Info_free...) a clean error class, under ASan too.
 *
 * Design: one ring of pointers, first in, first out; putting a shell into
 * a full ring frees the oldest one. MPI_Finalize flushes the ring. At 256
 * slots and objects of at most a few hundred bytes (a communicator shell
 * is about 200), the memory held is bounded by some 64 KiB, and a shell
 * is reused by malloc only after 256 later frees.
 *
 * Rejected: a slab per object kind whose memory is never unmapped (every
 * stale handle then reads owned memory forever, but each kind needs its
 * own allocator, the memory never shrinks, and a reused slot still makes
 * a stale handle look live: the check cannot be exact either way); never
 * freeing handle objects at all (unbounded for programs that create and
 * free communicators in a loop). Groups are left out: their rank list is
 * part of the object, so a shell can weigh megabytes and the bound above
 * would not hold.
 * Limits: a handle used after 256 more objects were freed, or a wild
 * pointer, may still pass or fault: only a full handle table could tell,
 * and it would put a lock on every call under MPI_THREAD_MULTIPLE.
 * Invariants: ring[head .. head + count) (mod slots) hold the shells,
 * oldest first. Locking: `lock` guards ring, head and count; it is a leaf
 * (only free() is ever called with it held).
 */
#include <stdlib.h>

#include "engine/core/lock.h"
#include "engine/objects/quarantine.h"

#define WMPI_QUARANTINE_SLOTS 256

static wmpi_lock lock = WMPI_LOCK_INITIALIZER;
static void *ring[WMPI_QUARANTINE_SLOTS];
static unsigned head, count;

void wmpi_quarantine_put(void *shell)
{
    void *oldest = NULL;

    if (!shell)
        return;
    wmpi_lock_take(&lock);
    if (count == WMPI_QUARANTINE_SLOTS) {
        oldest = ring[head];
        head = (head + 1) % WMPI_QUARANTINE_SLOTS;
        count--;
    }
    ring[(head + count) % WMPI_QUARANTINE_SLOTS] = shell;
    count++;
    wmpi_lock_release(&lock);
    free(oldest);
}

void wmpi_quarantine_flush(void)
{
    wmpi_lock_take(&lock);
    while (count > 0) {
        free(ring[head]);
        ring[head] = NULL;
        head = (head + 1) % WMPI_QUARANTINE_SLOTS;
        count--;
    }
    head = 0;
    wmpi_lock_release(&lock);
}
