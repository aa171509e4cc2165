/* Requests: life cycle, completion, MPI_Request_free and MPI_Cancel.
 *
 * Design: a request is malloc'd when an operation starts (or at *_init for
 * persistent ones) and belongs to the engine until `complete` is set; from
 * then on the engine never touches it again, so the user thread that sees
 * the flag (with acquire ordering, no lock) may read its status and free
 * it. Completion is the last engine access: status first, then the flag
 * with release ordering. A request the user frees while it is still active
 * is marked `freed`; the engine frees it itself when the operation ends.
 * Freed sends are counted in wmpi_eng.orphans, which MPI_Finalize waits to
 * drain (MPI: they complete once matched); a freed receive that nothing
 * ever matched is released by MPI_Finalize instead of waited for.
 *
 * The request id sent on the wire in rendezvous frames is the request's
 * address; an incoming id is only ever compared against the requests of
 * the peer's own pending lists (wmpi_request_take_id), never dereferenced
 * blindly, so a stale or corrupt id cannot crash the engine.
 *
 * Persistent requests keep `active` from MPI_Start until the completion
 * call that sees them done; an inactive one counts as done (MPI: such
 * waits return at once with an empty status).
 *
 * Rejected: reference counts shared by user and engine (two atomics per
 * request on the fast path, for nothing the single hand-over point above
 * does not already give).
 *
 * Invariants: complete goes 0 -> 1 once per run, after the status is
 * written; a freed request is never touched by the user again.
 * Locking: *_locked under the engine lock; wmpi_request_done and
 * wmpi_request_finish run lock-free on a done request.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"
#include "engine/p2p/grequest.h"
#include "engine/core/internal.h"

/* Spare requests. A message costs a request, and malloc + free of one
 * cost ~600 instructions of a ~3000-instruction ping-pong step here:
 * glibc's calloc (which GCC makes of malloc + memset) bypasses glibc's
 * per-thread cache. A short list of freed requests under a lock of its
 * own costs two atomics. Off under AddressSanitizer, which must see every
 * request freed to catch a use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define SPARE_MAX 0
#else
#define SPARE_MAX 64
#endif

static struct {
    wmpi_lock lock;
    wmpi_request *head; /* linked through next */
    int n;
} spare = { WMPI_LOCK_INITIALIZER, NULL, 0 };

static wmpi_request *spare_take(void)
{
    wmpi_request *r;

    wmpi_lock_take(&spare.lock);
    r = spare.head;
    if (r) {
        spare.head = r->next;
        spare.n--;
    }
    wmpi_lock_release(&spare.lock);
    return r;
}

static void spare_put(wmpi_request *r)
{
    wmpi_lock_take(&spare.lock);
    if (spare.n < SPARE_MAX) {
        r->next = spare.head;
        spare.head = r;
        spare.n++;
        r = NULL;
    }
    wmpi_lock_release(&spare.lock);
    free(r);
}

void wmpi_request_spares_drain(void)
{
    wmpi_request *r;

    while ((r = spare_take()) != NULL)
        free(r);
}

wmpi_request *wmpi_request_new(int kind)
{
    wmpi_request *r = spare_take();

    if (!r)
        r = malloc(sizeof *r);
    if (r) {
        memset(r, 0, sizeof *r);
        r->kind = (uint8_t)kind;
        r->magic = WMPI_REQ_LIVE;
    }
    return r;
}

/* Free r with what it holds: its datatype reference (taken in start.c;
 * NULL-safe) and a packed copy of its data. */
static void destroy(wmpi_request *r)
{
    wmpi_datatype_release(r->dt);
    if (r->comm_held) /* taken in start.c; may destroy a freed comm */
        wmpi_comm_release(r->comm);
    free(r->packed);
    __atomic_store_n(&r->magic, WMPI_REQ_FREED, __ATOMIC_RELEASE);
    spare_put(r);
}

static void unlink_any(wmpi_request *r)
{
    switch (r->queue) {
    case WMPI_Q_POSTED:
        wmpi_mq_unpost_locked(r);
        break;
    case WMPI_Q_RTS:
        wmpi_list_unlink(&wmpi_eng.peers[r->wpeer].rts, r);
        break;
    case WMPI_Q_RNDV:
        wmpi_list_unlink(&wmpi_eng.peers[r->wpeer].rndv, r);
        break;
    default:
        break;
    }
    r->queue = WMPI_Q_NONE;
}

void wmpi_request_complete_locked(wmpi_request *r, int err)
{
    /* Completed inside its own start: no thread holds its handle yet, so
     * none waits for it; a freed send's finalizer and a buffered send's
     * detacher wait for other things it changes. */
    int wakes = !r->starting || r->freed || r->bsend;

    if (err && !r->st.error)
        r->st.error = err;
    unlink_any(r);
    r->state = WMPI_ST_IDLE;
    if (r->bsend) {
        wmpi_bsend_release_locked(r->bsend);
        r->bsend = NULL;
    }
    free(r->packed); /* a derived type's packed data: no longer needed */
    r->packed = NULL;
    if (r->freed) {
        if (r->kind == WMPI_REQ_SEND)
            __atomic_sub_fetch(&wmpi_eng.orphans, 1, __ATOMIC_SEQ_CST);
        destroy(r);
    } else {
        __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    }
    if (wakes)
        wmpi_kick_locked();
}

wmpi_request *wmpi_request_take_id(wmpi_list *l, uint64_t id)
{
    for (wmpi_request *r = l->head; r; r = r->next) {
        if (wmpi_request_id(r) == id) {
            wmpi_list_unlink(l, r);
            r->queue = WMPI_Q_NONE;
            return r;
        }
    }
    return NULL;
}

/* ------------------------------------------------------- user side */

static void empty_status(wmpi_status *st)
{
    memset(st, 0, sizeof *st);
    st->source = WMPI_ANY_SOURCE;
    st->tag = WMPI_ANY_TAG;
}

void wmpi_request_peek(wmpi_request *r, wmpi_status *st)
{
    if (r->persistent && !r->active)
        empty_status(st);
    else
        *st = r->st;
}

int wmpi_request_finish(wmpi_request *r, wmpi_status *st)
{
    if (st)
        wmpi_request_peek(r, st);
    if (r->persistent) {
        r->active = 0;
        return 0;
    }
    destroy(r);
    return 1;
}

void wmpi_request_free(wmpi_request *r)
{
    int now;

    if (r->kind == WMPI_REQ_GREQ) { /* its free_fn decides (grequest.c) */
        wmpi_grequest_free(r);
        return;
    }
    wmpi_lock_engine();
    now = wmpi_request_done(r);
    if (!now) {
        r->freed = 1;
        if (r->kind == WMPI_REQ_SEND)
            __atomic_add_fetch(&wmpi_eng.orphans, 1, __ATOMIC_SEQ_CST);
    }
    wmpi_unlock_engine();
    if (now)
        destroy(r);
}

void wmpi_cancel(wmpi_request *r)
{
    if (r->kind == WMPI_REQ_GREQ) { /* the user's cancel_fn (grequest.c) */
        wmpi_grequest_cancel(r);
        return;
    }
    wmpi_lock_engine();
    if (r->kind == WMPI_REQ_RECV && wmpi_mq_unpost_locked(r)) {
        r->st.cancelled = 1;
        wmpi_request_complete_locked(r, 0);
    }
    wmpi_unlock_engine();
}
