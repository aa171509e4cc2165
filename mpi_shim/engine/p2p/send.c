/* The sending side of the point-to-point protocols: eager, rendezvous and
 * loopback.
 *
 * Protocols (by message size against wmpi_eng.eager_limit, settable with
 * WEFT_EAGER_LIMIT, default 64 KiB):
 *   eager       EAGER frame = envelope + payload. The send completes when
 *               the transport has written the frame (its buffer is free
 *               again); the receiver buffers it if no receive is posted.
 *   rendezvous  RTS (envelope, size, our request id) -> the receiver
 *               answers CTS (its request id, its capacity) once a receive
 *               matched -> DATA (payload, straight from the user buffer).
 *               Used above the eager limit and for every synchronous send
 *               (MPI_Ssend), whose completion must prove the receive
 *               started: the CTS is that proof.
 *   loopback    a send to oneself never touches a transport: it matches a
 *               posted receive and copies at once, or waits in the
 *               unexpected queue, copied (small standard sends: the send
 *               completes) or by reference (large or synchronous: the send
 *               completes when a receive takes it).
 * Payloads are written from the user's buffer without a copy; transports
 * queue what the socket does not take (send never waits for receive, so
 * two ranks sending each other 64 MiB cannot deadlock).
 *
 * Rejected: an eager copy into an engine buffer so that MPI_Send returns
 * before the kernel took the data (one more memcpy per message; the waiting
 * thread sleeps in the I/O server meanwhile, costing no CPU).
 *
 * Invariants: a send request is in at most one of: its peer's RTS list,
 * the transport's queue (frame.queued), the unexpected queue (loopback).
 * Locking: all functions run under the engine lock.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "engine/objects/datatype.h"
#include "engine/core/internal.h"

#define REQ_OF_FRAME(f) \
    ((wmpi_request *)((char *)(f) - offsetof(wmpi_request, frame)))

/* Written (or dropped): the send is complete. */
static void payload_done(wmpi_frame *f, int err)
{
    wmpi_request_complete_locked(REQ_OF_FRAME(f), err);
}

/* The RTS went out: nothing to do until the CTS, unless it failed. */
static void rts_done(wmpi_frame *f, int err)
{
    if (err)
        wmpi_request_complete_locked(REQ_OF_FRAME(f), err);
}

static void envelope(wmpi_request *r, wmpi_hdr *h, uint32_t type)
{
    memset(h, 0, sizeof *h);
    h->type = type;
    h->ctx = r->ctx;
    h->src = r->comm->rank;
    h->tag = r->tag;
    h->size = (uint64_t)r->bytes;
    h->sreq = wmpi_request_id(r);
}

static void send_eager(wmpi_request *r)
{
    envelope(r, &r->frame.hdr, WMPI_MSG_EAGER);
    r->frame.hdr.plen = (uint64_t)r->bytes;
    r->frame.payload = wmpi_send_data(r); /* packed if non-contiguous */
    r->frame.done = payload_done;
    r->state = WMPI_ST_SENDING;
    wmpi_frame_send_locked(r->wpeer, &r->frame);
}

static void send_rts(wmpi_request *r)
{
    envelope(r, &r->frame.hdr, WMPI_MSG_RTS);
    r->frame.done = rts_done;
    r->state = WMPI_ST_RTS;
    wmpi_list_push(&wmpi_eng.peers[r->wpeer].rts, r);
    r->queue = WMPI_Q_RTS;
    wmpi_frame_send_locked(r->wpeer, &r->frame);
}

/* ------------------------------------------------------------- loopback */

void wmpi_self_deliver_locked(wmpi_request *s, wmpi_request *r)
{
    int64_t n = s->bytes < r->bytes ? s->bytes : r->bytes;

    if (n > 0) /* packed bytes -> the receive's datatype */
        wmpi_datatype_unpack_part(r->dt, r->count, wmpi_send_data(s), n, r->buf);
    r->st.source = s->comm->rank;
    r->st.tag = s->tag;
    r->st.bytes = n;
    r->wpeer = wmpi_eng.rank;
    s->st.bytes = s->bytes;
    wmpi_request_complete_locked(r, s->bytes > r->bytes ? -EMSGSIZE : 0);
    wmpi_request_complete_locked(s, 0);
}

static int copy_now(const wmpi_request *s)
{
    return s->mode != WMPI_MODE_SYNC && (size_t)s->bytes <= wmpi_eng.eager_limit;
}

static void send_self(wmpi_request *s)
{
    wmpi_mq *mq = wmpi_mq_get_locked(s->ctx);
    wmpi_request *r;
    wmpi_unexp *u;

    if (!mq) {
        wmpi_request_complete_locked(s, WEFT_ENOMEM);
        return;
    }
    r = wmpi_mq_take_posted_locked(mq, s->comm->rank, s->tag);
    if (r) {
        wmpi_self_deliver_locked(s, r);
        return;
    }
    u = wmpi_unexp_new(copy_now(s) ? (size_t)s->bytes : 0);
    if (!u) {
        wmpi_request_complete_locked(s, WEFT_ENOMEM);
        return;
    }
    u->src = s->comm->rank;
    u->tag = s->tag;
    u->wsrc = wmpi_eng.rank;
    u->bytes = s->bytes;
    if (copy_now(s)) {
        memcpy(u->data, wmpi_send_data(s), (size_t)s->bytes);
        wmpi_mq_add_unexp_locked(mq, u);
        s->st.bytes = s->bytes;
        wmpi_request_complete_locked(s, 0);
        return;
    }
    u->self = s;
    s->state = WMPI_ST_SELF;
    wmpi_mq_add_unexp_locked(mq, u);
}

/* -------------------------------------------------------------- start */

void wmpi_send_start_locked(wmpi_request *r)
{
    wmpi_peer *p;

    r->wpeer = wmpi_comm_world_rank(r->comm, r->peer);
    r->st.bytes = r->bytes;
    if (r->wpeer == wmpi_eng.rank) {
        send_self(r);
        return;
    }
    p = &wmpi_eng.peers[r->wpeer];
    if (p->lost)
        wmpi_request_complete_locked(r, p->lost_err);
    else if (copy_now(r))
        send_eager(r);
    else
        send_rts(r);
}

/* CTS from `peer`: the receive matched; send the payload, as much as the
 * receiver can take (a truncating receive need not get the rest). */
void wmpi_send_cts_locked(int peer, const wmpi_hdr *h)
{
    wmpi_request *r = wmpi_request_take_id(&wmpi_eng.peers[peer].rts, h->sreq);
    uint64_t n;

    if (!r)
        wmpi_fatal("CTS from rank %d for an unknown send", peer);
    if (r->frame.queued)
        wmpi_fatal("CTS from rank %d before its RTS was written", peer);
    n = (uint64_t)r->bytes < h->size ? (uint64_t)r->bytes : h->size;
    envelope(r, &r->frame.hdr, WMPI_MSG_DATA);
    r->frame.hdr.rreq = h->rreq;
    r->frame.hdr.plen = n;
    r->frame.payload = wmpi_send_data(r); /* packed if non-contiguous */
    r->frame.done = payload_done;
    r->state = WMPI_ST_SENDING;
    wmpi_frame_send_locked(peer, &r->frame);
}
