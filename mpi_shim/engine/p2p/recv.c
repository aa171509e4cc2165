/* The receiving side: posting receives and handling incoming frames (the
 * transports' upcalls).
 *
 * Design: a receive being posted takes the first matching unexpected
 * message or joins the posted queue (match.c). An incoming header is
 * handled at once, under the engine lock, by the transport's progress:
 *   EAGER  a posted receive matching it gets the payload read straight into
 *          its buffer (no copy); otherwise the payload is read into a fresh
 *          unexpected entry, matched again when complete (a receive may
 *          have been posted meanwhile) and queued if still unmatched;
 *   RTS    matched now or queued as an unexpected entry without data; a
 *          match answers CTS with our request id and capacity;
 *   CTS    our send's DATA goes out (send.c);
 *   DATA   the payload goes into the receive named by its id.
 * Incoming data is always read, whether or not a receive waits for it: the
 * transport never stops reading a peer because we cannot take its data
 * (that would let two ranks that both send deadlock).
 *
 * Truncation: a receive smaller than the message gets the first bytes and
 * -EMSGSIZE (MPI_ERR_TRUNCATE); its status counts the bytes stored.
 *
 * Invariants: a receive is in the posted queue (POSTED), its peer's RNDV
 * list (RNDV_RECV), or the transport's hands (IN_RX), or complete.
 * Rejected: buffering every eager message before matching (a copy per
 * message even when the receive was posted in time).
 * Locking: under the engine lock.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/datatype.h"
#include "engine/core/internal.h"

enum { RX_NONE = 0, RX_REQ = 1, RX_UNEXP = 2 };

static int lost_peer_err(int wpeer)
{
    wmpi_peer *p = &wmpi_eng.peers[wpeer];

    return p->lost ? p->lost_err : 0;
}

static void cts_done(wmpi_frame *f, int err)
{
    if (err)
        wmpi_request_complete_locked(
            (wmpi_request *)((char *)f - offsetof(wmpi_request, frame)), err);
}

static void answer_rts(wmpi_request *r, const wmpi_unexp *u)
{
    wmpi_hdr *h = &r->frame.hdr;

    memset(h, 0, sizeof *h);
    h->type = WMPI_MSG_CTS;
    h->sreq = u->sreq;
    h->rreq = wmpi_request_id(r);
    h->size = (uint64_t)r->bytes;
    r->frame.done = cts_done;
    r->state = WMPI_ST_RNDV_RECV;
    wmpi_list_push(&wmpi_eng.peers[u->wsrc].rndv, r);
    r->queue = WMPI_Q_RNDV;
    wmpi_frame_send_locked(u->wsrc, &r->frame);
}

/* `r` takes message `u` (the caller frees u). */
void wmpi_recv_matched_locked(wmpi_request *r, wmpi_unexp *u)
{
    int64_t n = u->bytes < r->bytes ? u->bytes : r->bytes;
    int err;

    r->st.source = u->src;
    r->st.tag = u->tag;
    r->wpeer = u->wsrc;
    r->msgsize = u->bytes;
    if (u->self) {
        wmpi_self_deliver_locked(u->self, r);
    } else if (u->kind == WMPI_MSG_RTS) {
        err = lost_peer_err(u->wsrc);
        r->st.bytes = n;
        if (err)
            wmpi_request_complete_locked(r, err);
        else
            answer_rts(r, u);
    } else {
        if (n > 0) /* packed bytes -> the receive's datatype */
            wmpi_datatype_unpack_part(r->dt, r->count, u->data, n, r->buf);
        r->st.bytes = n;
        wmpi_request_complete_locked(r, u->bytes > r->bytes ? -EMSGSIZE : 0);
    }
}

void wmpi_recv_start_locked(wmpi_request *r)
{
    wmpi_mq *mq = wmpi_mq_get_locked(r->ctx);
    wmpi_unexp *u;
    int err;

    if (!mq) {
        wmpi_request_complete_locked(r, WEFT_ENOMEM);
        return;
    }
    u = wmpi_mq_find_unexp_locked(mq, r->peer, r->tag, 1);
    if (u) {
        wmpi_recv_matched_locked(r, u);
        wmpi_unexp_free(u);
        return;
    }
    err = wmpi_peer_err_locked(r->comm, r->peer);
    if (err)
        wmpi_request_complete_locked(r, err);
    else
        wmpi_mq_post_locked(mq, r);
}

/* ------------------------------------------------------- incoming frames */

static void into_request(wmpi_request *r, const wmpi_hdr *h, wmpi_rx *rx)
{
    int64_t off;

    rx->keep = h->plen < (uint64_t)r->bytes ? h->plen : (uint64_t)r->bytes;
    if (wmpi_datatype_dense(r->dt, r->count, &off)) {
        rx->buf = wmpi_dt_at(r->buf, off); /* straight into the buffer */
    } else if (rx->keep > 0) {
        /* a non-contiguous type: stage, unpack in up_payload */
        r->packed = malloc(rx->keep);
        if (!r->packed)
            wmpi_fatal("out of memory staging a message of %zu bytes",
                       rx->keep);
        rx->buf = r->packed;
    }
    rx->cookie = r;
    rx->kind = RX_REQ;
    r->state = WMPI_ST_IN_RX;
}

static wmpi_unexp *new_unexp(int peer, const wmpi_hdr *h, size_t data)
{
    wmpi_unexp *u = wmpi_unexp_new(data);

    if (!u)
        wmpi_fatal("out of memory for a message of %zu bytes from rank %d",
                   data, peer);
    u->src = h->src;
    u->tag = h->tag;
    u->wsrc = peer;
    u->kind = (int)h->type;
    u->bytes = (int64_t)h->size;
    u->sreq = h->sreq;
    return u;
}

static void on_eager(int peer, const wmpi_hdr *h, wmpi_rx *rx, wmpi_mq *mq)
{
    wmpi_request *r = wmpi_mq_take_posted_locked(mq, h->src, h->tag);
    wmpi_unexp *u;

    if (r) {
        r->st.source = h->src;
        r->st.tag = h->tag;
        r->wpeer = peer;
        r->msgsize = (int64_t)h->size;
        into_request(r, h, rx);
        return;
    }
    u = new_unexp(peer, h, h->plen);
    rx->buf = u->data;
    rx->keep = h->plen;
    rx->cookie = u;
    rx->kind = RX_UNEXP;
}

static void on_rts(int peer, const wmpi_hdr *h, wmpi_mq *mq)
{
    wmpi_request *r = wmpi_mq_take_posted_locked(mq, h->src, h->tag);
    wmpi_unexp *u = new_unexp(peer, h, 0);

    if (!r) {
        wmpi_mq_add_unexp_locked(mq, u);
        return;
    }
    wmpi_recv_matched_locked(r, u);
    wmpi_unexp_free(u);
}

static void on_data(int peer, const wmpi_hdr *h, wmpi_rx *rx)
{
    wmpi_request *r = wmpi_request_take_id(&wmpi_eng.peers[peer].rndv, h->rreq);

    if (!r)
        wmpi_fatal("data from rank %d for an unknown receive", peer);
    into_request(r, h, rx);
}

static void up_header(int peer, const wmpi_hdr *h, wmpi_rx *rx)
{
    wmpi_mq *mq = NULL;

    memset(rx, 0, sizeof *rx);
    if (h->ctx == WMPI_CTX_FINAL) /* its last message: an EOF may follow */
        wmpi_eng.peers[peer].bye = 1;
    if (h->type == WMPI_MSG_EAGER || h->type == WMPI_MSG_RTS) {
        mq = wmpi_mq_get_locked(h->ctx);
        if (!mq)
            wmpi_fatal("out of memory for the queues of context %u", h->ctx);
    }
    switch (h->type) {
    case WMPI_MSG_EAGER: on_eager(peer, h, rx, mq); break;
    case WMPI_MSG_RTS:   on_rts(peer, h, mq); break;
    case WMPI_MSG_CTS:   wmpi_send_cts_locked(peer, h); break;
    case WMPI_MSG_DATA:  on_data(peer, h, rx); break;
    default:
        wmpi_fatal("message of unknown type %u from rank %d", h->type, peer);
    }
}

/* A buffered eager message is complete: it arrives now. */
static void arrive(wmpi_unexp *u, uint32_t ctx)
{
    wmpi_mq *mq = wmpi_mq_get_locked(ctx);
    wmpi_request *r = wmpi_mq_take_posted_locked(mq, u->src, u->tag);

    if (!r) {
        wmpi_mq_add_unexp_locked(mq, u);
        return;
    }
    wmpi_recv_matched_locked(r, u);
    wmpi_unexp_free(u);
}

static void up_payload(int peer, const wmpi_hdr *h, wmpi_rx *rx, int err)
{
    wmpi_request *r;

    (void)peer;
    if (rx->kind == RX_UNEXP) {
        if (err)
            wmpi_unexp_free(rx->cookie);
        else
            arrive(rx->cookie, h->ctx);
    } else if (rx->kind == RX_REQ) {
        r = rx->cookie;
        r->st.bytes = (int64_t)rx->keep;
        if (r->packed && !err) /* staged: unpack (freed at completion) */
            wmpi_datatype_unpack_part(r->dt, r->count, r->packed,
                                      (int64_t)rx->keep, r->buf);
        if (!err && r->msgsize > r->bytes)
            err = -EMSGSIZE;
        wmpi_request_complete_locked(r, err);
    }
}

static void up_lost(int peer, int err)
{
    wmpi_peer_lost_locked(peer, err);
}

const wmpi_upcalls wmpi_upcalls_engine = { up_header, up_payload, up_lost };
