/* Synchronisation of windows: fence (active target) and the passive
 * target calls lock, unlock, lock_all, unlock_all and flush.
 *
 * An epoch ends when every answer to its operations came back
 * (wmpi_rma_complete): an answer leaves the target after the target
 * applied the operation, so the operation is complete at the target - and
 * at the origin, as its data came with the answer.
 *
 * fence: complete, then a barrier on the window's communicator; after it
 * every rank's operations of the epoch are applied everywhere.
 * lock: a LOCK request the target grants in order (serve.c); lock blocks
 * until the grant, so operations in the epoch never reach a target before
 * their lock (they also follow it on the same ordered channel).
 * MPI_MODE_NOCHECK skips the messages: the program promises no conflict.
 * unlock: complete the operations on that target, then UNLOCK, answered
 * once released.
 *
 * Errors: MPI_ERR_RMA_SYNC cases are -EPROTO: a lock on a target already
 * locked (or inside lock_all), an unlock without lock, a flush outside a
 * passive epoch, a fence inside one.
 * Locking: the epoch state is under the window's lock; the messages are
 * sent without it.
 */
#include <stdlib.h>

#include "engine/core/internal.h"
#include "engine/rma/rma.h"

#define NOCHECK_BIT 0x80

/* Post the answer's receive into r[1], then send h (a LOCK or UNLOCK of
 * type) to rank, r[0]; h must live until r[0] completes. */
static int control_post(wmpi_win *w, wmpi_rma_hdr *h, int kind, int type,
                        int rank, wmpi_request **r)
{
    int err;

    *h = (wmpi_rma_hdr){ .kind = kind, .lock = type,
                         .tag = wmpi_rma_next_tag(w) };
    err = wmpi_irecv(NULL, 0, &wmpi_dt_byte, rank, h->tag, w->comm, &r[1]);
    if (err)
        return err;
    err = wmpi_isend(h, (int)sizeof *h, &wmpi_dt_byte, rank, WMPI_RMA_TAG_REQ,
                     w->comm, WMPI_MODE_STANDARD, &r[0]);
    if (err)
        wmpi_fatal("window: cannot send a lock request (error %d)", err);
    return 0;
}

/* Wait for the n sends and answers of r[] and release them. */
static int control_wait(wmpi_request **r, int n)
{
    wmpi_status st;
    int err = n ? wmpi_wait_requests(r, n, n) : 0;

    for (int i = 0; !err && i < n; i++) {
        wmpi_request_finish(r[i], &st);
        err = st.error;
    }
    return err;
}

/* A LOCK or UNLOCK of `type` to rank, answered. */
static int control(wmpi_win *w, int kind, int type, int rank)
{
    wmpi_rma_hdr h;
    wmpi_request *r[2];
    int err = control_post(w, &h, kind, type, rank, r);

    return err ? err : control_wait(r, 2);
}

/* The same to every rank at once (lock_all, unlock_all): one round trip,
 * not one per rank. */
static int control_all(wmpi_win *w, int kind)
{
    int n = w->comm->size, err = 0, e, i;
    wmpi_rma_hdr *h = malloc((size_t)n * sizeof *h);
    wmpi_request **r = malloc((size_t)n * 2 * sizeof *r);

    if (!h || !r)
        wmpi_fatal("window: out of memory locking %d ranks", n);
    for (i = 0; i < n && !err; i++)
        err = control_post(w, &h[i], kind, WMPI_LOCK_SHARED, i, &r[2 * i]);
    if (err) /* posting to rank i - 1 failed: wait for those before it */
        i--;
    e = control_wait(r, 2 * i);
    free(h);
    free(r);
    return err ? err : e;
}

int wmpi_win_passive(wmpi_win *w)
{
    int passive;

    wmpi_lock_take(&w->lock);
    passive = w->nlocked || w->lock_all;
    wmpi_lock_release(&w->lock);
    return passive;
}

int wmpi_win_fence(wmpi_win *w, int nosucceed)
{
    int err;

    if (wmpi_win_passive(w))
        return -EPROTO;
    err = wmpi_rma_complete(w, -1);
    if (!err)
        err = wmpi_barrier(w->comm);
    wmpi_lock_take(&w->lock);
    w->fence = !nosucceed;
    wmpi_lock_release(&w->lock);
    return err;
}

/* Mark rank locked (1) or unlocked (0); -EPROTO if it already was. */
static int mark(wmpi_win *w, int rank, int held)
{
    int err = 0;

    wmpi_lock_take(&w->lock);
    if (w->lock_all || !w->locked[rank] != !!held)
        err = -EPROTO;
    else
        w->nlocked += held ? 1 : -1;
    if (!err)
        w->locked[rank] = (uint8_t)held;
    wmpi_lock_release(&w->lock);
    return err;
}

int wmpi_win_lock(wmpi_win *w, int type, int rank, int nocheck)
{
    int err = mark(w, rank, type | (nocheck ? NOCHECK_BIT : 0));

    if (err || nocheck)
        return err;
    err = control(w, WMPI_RMA_LOCK, type, rank);
    if (err)
        mark(w, rank, 0);
    return err;
}

int wmpi_win_unlock(wmpi_win *w, int rank)
{
    int held, err, e;

    wmpi_lock_take(&w->lock);
    held = w->lock_all ? 0 : w->locked[rank];
    wmpi_lock_release(&w->lock);
    if (!held)
        return -EPROTO;
    err = wmpi_rma_complete(w, rank);
    if (!(held & NOCHECK_BIT)) {
        e = control(w, WMPI_RMA_UNLOCK, held, rank);
        err = err ? err : e;
    }
    mark(w, rank, 0);
    return err;
}

int wmpi_win_lock_all(wmpi_win *w, int nocheck)
{
    int err = 0;

    wmpi_lock_take(&w->lock);
    if (w->lock_all || w->nlocked)
        err = -EPROTO;
    else
        w->lock_all = nocheck ? NOCHECK_BIT | WMPI_LOCK_SHARED
                              : WMPI_LOCK_SHARED;
    wmpi_lock_release(&w->lock);
    if (!err && !nocheck)
        err = control_all(w, WMPI_RMA_LOCK);
    return err;
}

int wmpi_win_unlock_all(wmpi_win *w)
{
    int held, err, e;

    wmpi_lock_take(&w->lock);
    held = w->lock_all;
    wmpi_lock_release(&w->lock);
    if (!held)
        return -EPROTO;
    err = wmpi_rma_complete(w, -1);
    if (!(held & NOCHECK_BIT)) {
        e = control_all(w, WMPI_RMA_UNLOCK);
        err = err ? err : e;
    }
    wmpi_lock_take(&w->lock);
    w->lock_all = 0;
    wmpi_lock_release(&w->lock);
    return err;
}

int wmpi_win_flush(wmpi_win *w, int rank)
{
    int passive;

    wmpi_lock_take(&w->lock);
    passive = w->lock_all || (rank >= 0 ? w->locked[rank] != 0 : w->nlocked);
    wmpi_lock_release(&w->lock);
    if (!passive)
        return -EPROTO;
    return wmpi_rma_complete(w, rank);
}
