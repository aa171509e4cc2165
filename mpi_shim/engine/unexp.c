/* Unexpected-message records: allocation, and spares of the large ones.
 *
 * Design. A message that arrives before its receive is posted is read into
 * a wmpi_unexp holding its payload (eager) or nothing (rendezvous request);
 * the receive that matches it later copies the payload out and frees the
 * record. In a collective whose fast ranks run ahead (MPI_Alltoall of
 * 32 KiB blocks on 8 ranks sharing 2 CPUs), half the messages arrive
 * unexpected. Two costs dominated there, measured with perf:
 *  - calloc cleared the whole payload about to be overwritten (memset
 *    2.5% of all CPU time): records are cleared up to the payload only;
 *  - glibc returned the freed payloads to the kernel (the heap's top past
 *    its 128 KiB trim threshold) and faulted them back in at the next
 *    collective (page faults another 2%): records with more than SMALL
 *    bytes of room are rounded up to the eager limit and up to SPARE_BYTES
 *    of them are kept for reuse.
 * Small records stay with malloc, whose per-thread cache serves them well.
 * A rendezvous request or a self-send above the eager limit needs no spare
 * (no payload, or one larger than any spare: plain malloc).
 *
 * Rejected: size classes (eager payloads cluster at a collective's block
 * size; one class at the eager limit wastes at most the limit per record,
 * bounded by SPARE_BYTES in total).
 *
 * Locking: the spares have a lock of their own (records are freed outside
 * the engine lock, e.g. by MPI_Mrecv). Off under AddressSanitizer, which
 * must see every record freed to catch a use after free.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "engine/lock.h"

#define SMALL ((size_t)4096)
#if defined(__SANITIZE_ADDRESS__)
#define SPARE_BYTES ((size_t)0)
#else
#define SPARE_BYTES ((size_t)1024 * 1024)
#endif

static struct {
    wmpi_lock lock;
    wmpi_unexp *head; /* linked through next */
    size_t bytes;     /* room held in the list */
} spare = { WMPI_LOCK_INITIALIZER, NULL, 0 };

/* A spare record with room for the eager limit, or NULL. */
static wmpi_unexp *spare_take(void)
{
    wmpi_unexp *u;

    wmpi_lock_take(&spare.lock);
    u = spare.head;
    if (u) {
        spare.head = u->next;
        spare.bytes -= u->room;
    }
    wmpi_lock_release(&spare.lock);
    return u;
}

wmpi_unexp *wmpi_unexp_new(size_t data)
{
    size_t room = data;
    wmpi_unexp *u = NULL;

    if (data > SMALL && data <= wmpi_eng.eager_limit) {
        room = wmpi_eng.eager_limit;
        u = spare_take();
    }
    if (!u)
        u = malloc(sizeof *u + room);
    if (u) {
        memset(u, 0, sizeof *u);
        u->room = room;
    }
    return u;
}

void wmpi_unexp_free(wmpi_unexp *u)
{
    if (!u)
        return;
    if (u->room > SMALL && u->room == wmpi_eng.eager_limit) {
        wmpi_lock_take(&spare.lock);
        if (spare.bytes + u->room <= SPARE_BYTES) {
            u->next = spare.head;
            spare.head = u;
            spare.bytes += u->room;
            u = NULL;
        }
        wmpi_lock_release(&spare.lock);
    }
    free(u);
}

void wmpi_unexp_spares_drain(void)
{
    wmpi_unexp *u;

    while ((u = spare_take()) != NULL)
        free(u);
}
