/* Buffered sends: MPI_Buffer_attach/detach and the copy behind MPI_Bsend.
 *
 * Design: the user's attached buffer is carved first-fit into blocks, each
 * a small header (kept in the buffer itself, within MPI_BSEND_OVERHEAD)
 * followed by a copy of one message. A buffered send copies the message
 * into a block and starts an ordinary standard-mode send of the copy as an
 * engine-owned request (freed by the engine when it completes, which also
 * releases the block); the user's request completes at once. Blocks in use
 * form a list sorted by address, so the gaps between them are the free
 * space; MPI_Buffer_detach waits until the list is empty (MPI: detach
 * blocks until buffered messages are delivered to the transport... and we
 * wait until they are written, which is stronger and as cheap).
 *
 * Rejected: a ring allocator (messages complete out of order when they go
 * to different peers, leaving holes a ring cannot reuse).
 *
 * Invariants: blocks lie inside [battach, battach + bsize), 16-aligned,
 * non-overlapping, sorted. Locking: engine lock, except the emptiness test
 * of the detach wait (an atomic load).
 */
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/core/internal.h"

#define ALIGN 16
#define OVERHEAD 96 /* mpi.h's MPI_BSEND_OVERHEAD */

typedef struct block {
    struct block *next; /* next block in use, by address */
    size_t len;         /* bytes of this block, header included */
} block;

_Static_assert(sizeof(block) + ALIGN <= OVERHEAD, "bsend header too large");

static uintptr_t align_up(uintptr_t v)
{
    return (v + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1);
}

static size_t header_len(void)
{
    return (size_t)align_up(sizeof(block));
}

int wmpi_buffer_attach(void *buf, size_t size)
{
    int err = 0;

    wmpi_lock_engine();
    if (wmpi_eng.battach)
        err = WEFT_EBUSY;
    else {
        wmpi_eng.battach = buf;
        wmpi_eng.bsize = size;
    }
    wmpi_unlock_engine();
    return err;
}

static int buffer_empty(void *arg)
{
    (void)arg;
    return __atomic_load_n(&wmpi_eng.bused, __ATOMIC_ACQUIRE) == NULL;
}

int wmpi_buffer_detach(void **buf, size_t *size)
{
    wmpi_waiter w = { .kind = WMPI_WAIT_COND, .cond = buffer_empty };
    int err = 0, done = 0;

    while (!done && !err) {
        wmpi_lock_engine();
        done = wmpi_eng.bused == NULL;
        if (done) {
            *buf = wmpi_eng.battach;
            *size = wmpi_eng.bsize;
            wmpi_eng.battach = NULL;
            wmpi_eng.bsize = 0;
        }
        wmpi_unlock_engine();
        if (!done)
            err = wmpi_block(&w);
    }
    return err;
}

/* First-fit: the address of a free range of `need` bytes, linked into the
 * list in address order; NULL if none. */
static block *carve(size_t need)
{
    uintptr_t at = align_up((uintptr_t)wmpi_eng.battach);
    uintptr_t end = (uintptr_t)wmpi_eng.battach + wmpi_eng.bsize;
    block **link = (block **)&wmpi_eng.bused;
    block *b;

    for (b = *link; b; link = &b->next, b = *link) {
        if ((uintptr_t)b >= at && (uintptr_t)b - at >= need)
            break;
        at = align_up((uintptr_t)b + b->len);
    }
    if (!b && (at > end || end - at < need))
        return NULL;
    ((block *)at)->next = b;
    ((block *)at)->len = need;
    __atomic_store_n(link, (block *)at, __ATOMIC_RELEASE);
    return (block *)at;
}

void wmpi_bsend_release_locked(void *blk)
{
    block **link = (block **)&wmpi_eng.bused;

    while (*link && *link != blk)
        link = &(*link)->next;
    if (*link)
        __atomic_store_n(link, ((block *)blk)->next, __ATOMIC_RELEASE);
}

int wmpi_bsend_start_locked(wmpi_request *user)
{
    size_t need = header_len() + (size_t)align_up((uintptr_t)user->bytes);
    block *b = wmpi_eng.battach ? carve(need) : NULL;
    wmpi_request *s;

    if (!b)
        return -ENOBUFS;
    s = wmpi_request_new(WMPI_REQ_SEND);
    if (!s) {
        wmpi_bsend_release_locked(b);
        return WEFT_ENOMEM;
    }
    *s = *user;
    if (s->comm_held) /* the copy holds its own communicator reference */
        wmpi_comm_retain(s->comm);
    s->next = s->prev = NULL;
    s->complete = 0;
    s->persistent = s->active = 0;
    s->queue = WMPI_Q_NONE;
    s->mode = WMPI_MODE_STANDARD;
    s->buf = (char *)b + header_len();
    if (user->bytes > 0)
        memcpy(s->buf, user->buf, (size_t)user->bytes);
    s->bsend = b;
    s->freed = 1;
    __atomic_add_fetch(&wmpi_eng.orphans, 1, __ATOMIC_SEQ_CST);
    wmpi_send_start_locked(s);
    return 0;
}
