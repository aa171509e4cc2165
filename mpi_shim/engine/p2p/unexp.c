/* Unexpected-message records: allocation, and spares of the large ones.
 *
 * Design. A message that arrives before its receive is posted is read into
 * a wmpi_unexp holding its payload (eager) or nothing (rendezvous request);
 * the receive that matches it later copies the payload out and frees the
 * record. In a collective whose fast ranks run ahead (MPI_Alltoall of
 * 32 KiB blocks on 8 ranks sharing 2 CPUs), half the messages arrive
 * unexpected. Two costs dominate there (perf profile:
 * docs/performance-notes.md):
 *  - calloc clears the whole payload about to be overwritten: records are
 *    cleared up to the payload only;
 *  - glibc returns the freed payloads to the kernel (the heap's top past
 *    its 128 KiB trim threshold) and faults them back in at the next
 *    collective: a record of more than SMALL payload bytes, up to the
 *    eager limit, gets a room of the power of two at or above its size,
 *    and up to SPARE_BYTES of such records are kept for reuse, a list per
 *    power of two. A record then wastes less than its own size: a
 *    thousand buffered messages of 5 KiB hold 8 MiB.
 * Small records stay with malloc, whose per-thread cache serves them well.
 * A rendezvous request or a self-send above the eager limit needs no spare
 * (no payload, or one larger than any spare: plain malloc).
 *
 * Rejected: one class at the eager limit (simpler, but a thousand
 * buffered 5 KiB messages then hold 64 MiB).
 *
 * Locking: the spares have a lock of their own (records are freed outside
 * the engine lock, e.g. by MPI_Mrecv). Off under AddressSanitizer, which
 * must see every record freed to catch a use after free.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/core/internal.h"
#include "engine/core/lock.h"

#define SMALL ((size_t)4096)
#define NCLASSES 8 /* rooms 2 SMALL .. 256 SMALL = SPARE_BYTES */
#if defined(__SANITIZE_ADDRESS__)
#define SPARE_BYTES ((size_t)0)
#else
#define SPARE_BYTES ((size_t)1024 * 1024)
#endif

static struct {
    wmpi_lock lock;
    wmpi_unexp *head[NCLASSES]; /* linked through next */
    size_t bytes;               /* room held in the lists */
} spare = { WMPI_LOCK_INITIALIZER, { NULL }, 0 };

/* The room a record of `data` payload bytes gets: the power of two at or
 * above it if it may become a spare, else just data. */
static size_t room_for(size_t data)
{
    size_t room = 2 * SMALL;

    if (data <= SMALL || data > wmpi_eng.eager_limit || data > SPARE_BYTES)
        return data;
    while (room < data)
        room *= 2;
    return room;
}

/* The spare list of records of this room, or -1 if none. */
static int class_of(size_t room)
{
    int c = 0;

    for (size_t r = 2 * SMALL; r <= SPARE_BYTES && c < NCLASSES; r *= 2, c++)
        if (r == room)
            return c;
    return -1;
}

static wmpi_unexp *spare_take(int c)
{
    wmpi_unexp *u;

    wmpi_lock_take(&spare.lock);
    u = spare.head[c];
    if (u) {
        spare.head[c] = u->next;
        spare.bytes -= u->room;
    }
    wmpi_lock_release(&spare.lock);
    return u;
}

wmpi_unexp *wmpi_unexp_new(size_t data)
{
    size_t room = room_for(data);
    int c = class_of(room);
    wmpi_unexp *u = c < 0 ? NULL : spare_take(c);

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
    int c = u ? class_of(u->room) : -1;

    if (c >= 0) {
        wmpi_lock_take(&spare.lock);
        if (spare.bytes + u->room <= SPARE_BYTES) {
            u->next = spare.head[c];
            spare.head[c] = u;
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

    for (int c = 0; c < NCLASSES; c++)
        while ((u = spare_take(c)) != NULL)
            free(u);
}
