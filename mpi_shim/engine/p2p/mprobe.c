/* Matched probe and receive: MPI_Improbe / MPI_Mprobe take a message out
 * of the unexpected queue; MPI_Imrecv / MPI_Mrecv receive exactly it.
 *
 * Design: the probe searches the communicator's unexpected queue like
 * MPI_Iprobe (after a progress pass) but unlinks what it finds (match.c's
 * take flag) and wraps it in a wmpi_message. From then on no receive,
 * probe or other thread can match it: that is the point of the API under
 * MPI_THREAD_MULTIPLE, where "probe, then receive what you probed" races
 * with other threads' receives. The matched receive then builds an
 * ordinary receive request (through wmpi_recv_init, so it is described
 * exactly as MPI_Irecv's would be) and hands it the message with
 * wmpi_recv_matched_locked(), the path a receive takes when it finds a
 * message already queued; every kind of unexpected entry therefore works
 * unchanged:
 *   eager     the payload is in the entry: copied, complete at once;
 *   RTS       the CTS goes out now and the data follows (rendezvous): the
 *             sender waits for its CTS however long the message sits
 *             between probe and receive;
 *   loopback  the payload was copied (small) or the send request waits in
 *             the entry (large, synchronous): delivered from it, and the
 *             parked send completes.
 * An eager message whose payload is still being read is not in the queue
 * yet (recv.c adds it when complete), so a probe never sees half a message.
 * A blocking MPI_Mprobe waits like MPI_Probe (engine/p2p/wait.c): for the count
 * of unexpected arrivals to move past the value it saw before searching.
 *
 * Rejected: leaving the message queued and marking it reserved (every
 * search of the queue would have to skip reserved entries, and a message
 * that leaves the queue cannot be matched by mistake).
 *
 * Invariants: a message is in exactly one place: the unexpected queue, a
 * wmpi_message, or a receive request.
 * Locking: searches and delivery under the engine lock; a wmpi_message
 * belongs to the thread holding its handle.
 */
#include <stddef.h>
#include <stdlib.h>

#include "engine/core/internal.h"
#include "engine/objects/quarantine.h"
#include "engine/p2p/mprobe.h"

_Static_assert(offsetof(wmpi_message, magic) >= 16,
               "the live mark lies past the words free() reuses");

static void probe_status(wmpi_status *st, const wmpi_unexp *u)
{
    st->source = u->src;
    st->tag = u->tag;
    st->error = 0;
    st->cancelled = 0;
    st->bytes = u->bytes;
}

/* 1 and *msg set if a message was taken, 0 if none, or an error. */
static int take(int src, int tag, wmpi_comm *c, wmpi_message **msg,
                wmpi_status *st)
{
    wmpi_message *m = malloc(sizeof *m);
    wmpi_unexp *u = NULL;
    wmpi_mq *mq;
    int err;

    *msg = NULL;
    if (!m)
        return WEFT_ENOMEM;
    wmpi_lock_engine();
    wmpi_progress_locked(WMPI_BUDGET_THREAD);
    mq = wmpi_mq_get_locked(c->ctx);
    if (mq)
        u = wmpi_mq_find_unexp_locked(mq, src, tag, 1);
    err = !mq ? WEFT_ENOMEM : u ? 1 : wmpi_peer_err_locked(c, src);
    wmpi_unlock_engine();
    if (err != 1) {
        free(m);
        return err;
    }
    probe_status(st, u);
    *m = (wmpi_message){ .u = u, .comm = c, .magic = WMPI_MSG_LIVE };
    *msg = m;
    return 1;
}

int wmpi_improbe(int src, int tag, wmpi_comm *c, wmpi_message **msg,
                 wmpi_status *st)
{
    int found = take(src, tag, c, msg, st);

    return found < 0 ? found : 0;
}

int wmpi_mprobe(int src, int tag, wmpi_comm *c, wmpi_message **msg,
                wmpi_status *st)
{
    uint64_t seen;
    wmpi_waiter w = { .kind = WMPI_WAIT_COND, .cond = wmpi_arrivals_changed,
                      .arg = &seen };
    int found, err;

    for (;;) {
        seen = __atomic_load_n(&wmpi_eng.arrivals, __ATOMIC_ACQUIRE);
        found = take(src, tag, c, msg, st);
        if (found != 0)
            return found < 0 ? found : 0;
        err = wmpi_block(&w);
        if (err < 0)
            return err;
    }
}

int wmpi_imrecv(void *buf, int count, wmpi_datatype *dt, wmpi_message *msg,
                wmpi_request **out)
{
    wmpi_unexp *u = msg->u;
    wmpi_request *r;
    int err = wmpi_recv_init(buf, count, dt, u->src, u->tag, msg->comm, &r);

    *out = NULL;
    if (err < 0)
        return err;
    r->persistent = 0; /* described like a receive, started once */
    r->wpeer = -1;
    wmpi_lock_engine();
    wmpi_recv_matched_locked(r, u);
    wmpi_unlock_engine();
    wmpi_unexp_free(u);
    __atomic_store_n(&msg->magic, WMPI_MSG_FREED, __ATOMIC_RELEASE);
    wmpi_quarantine_put(msg); /* a stale copy of the handle reads FREED */
    *out = r;
    return 0;
}
