/* Message matching: posted-receive and unexpected-message queues per
 * communicator context id.
 *
 * Design: each context id has two FIFO lists. A receive being posted first
 * searches the unexpected list in arrival order and takes the first
 * message its (source, tag) pattern accepts; failing that, it joins the
 * posted list. A message arriving searches the posted list in posting
 * order and goes to the first receive that accepts it; failing that, it
 * joins the unexpected list. Because both searches run under the engine
 * lock and every transport delivers a peer's frames in the order that peer
 * sent them, MPI's non-overtaking rule holds: two messages from one sender
 * on one communicator that both match a receive are matched in send order,
 * and two receives that both match a message are satisfied in post order.
 * Wildcards need nothing special: they are patterns.
 *
 * The queues of a context are created on first use, by a receive or by an
 * arrival: a peer may send on a communicator this rank has not finished
 * creating; the message waits in the unexpected list meanwhile.
 *
 * Rejected: hashing by (source, tag). Wildcard receives must still see the
 * global order of arrivals, which forces a second ordered structure and a
 * sequence-number merge; linear lists cost ~1 ns per entry and the 1,000
 * out-of-order receives test costs 10^6 steps in total. Revisit when a
 * benchmark says so.
 *
 * Invariants: a request is in a posted list iff queue == WMPI_Q_POSTED;
 * both lists are in arrival (posting) order.
 * Locking: everything here runs under the engine lock.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/core/internal.h"

/* Intrusive links: requests and unexpected entries both begin with
 * { next, prev }. */
typedef struct link {
    struct link *next, *prev;
} link;

void wmpi_list_push(wmpi_list *l, void *item)
{
    link *it = item, *tail = l->tail;

    it->next = NULL;
    it->prev = tail;
    if (tail)
        tail->next = it;
    else
        l->head = it;
    l->tail = it;
}

void wmpi_list_unlink(wmpi_list *l, void *item)
{
    link *it = item;

    if (it->prev)
        it->prev->next = it->next;
    else
        l->head = it->next;
    if (it->next)
        it->next->prev = it->prev;
    else
        l->tail = it->prev;
    it->next = it->prev = NULL;
}

/* ----------------------------------------------------------- the table */

static int grow_table(uint32_t ctx)
{
    uint32_t n = wmpi_eng.nmq ? wmpi_eng.nmq : 16;
    wmpi_mq **t;

    while (n <= ctx)
        n *= 2;
    t = realloc(wmpi_eng.mq, n * sizeof *t);
    if (!t)
        return WEFT_ENOMEM;
    memset(t + wmpi_eng.nmq, 0, (n - wmpi_eng.nmq) * sizeof *t);
    wmpi_eng.mq = t;
    wmpi_eng.nmq = n;
    return 0;
}

wmpi_mq *wmpi_mq_get_locked(uint32_t ctx)
{
    if (ctx >= wmpi_eng.nmq && grow_table(ctx) < 0)
        return NULL;
    if (!wmpi_eng.mq[ctx])
        wmpi_eng.mq[ctx] = calloc(1, sizeof(wmpi_mq));
    return wmpi_eng.mq[ctx];
}

/* ------------------------------------------------------------ searching */

wmpi_request *wmpi_mq_take_posted_locked(wmpi_mq *mq, int src, int tag)
{
    for (wmpi_request *r = mq->posted.head; r; r = r->next) {
        if (wmpi_match(r->peer, r->tag, src, tag)) {
            wmpi_list_unlink(&mq->posted, r);
            r->queue = WMPI_Q_NONE;
            return r;
        }
    }
    return NULL;
}

wmpi_unexp *wmpi_mq_find_unexp_locked(wmpi_mq *mq, int src, int tag, int take)
{
    for (wmpi_unexp *u = mq->unexp.head; u; u = u->next) {
        if (wmpi_match(src, tag, u->src, u->tag)) {
            if (take)
                wmpi_list_unlink(&mq->unexp, u);
            return u;
        }
    }
    return NULL;
}

void wmpi_mq_post_locked(wmpi_mq *mq, wmpi_request *r)
{
    wmpi_list_push(&mq->posted, r);
    r->queue = WMPI_Q_POSTED;
    r->state = WMPI_ST_POSTED;
}

void wmpi_mq_add_unexp_locked(wmpi_mq *mq, wmpi_unexp *u)
{
    wmpi_list_push(&mq->unexp, u);
    __atomic_add_fetch(&wmpi_eng.arrivals, 1, __ATOMIC_SEQ_CST);
    wmpi_kick_locked(); /* a thread may sleep in MPI_Probe */
}

int wmpi_mq_unpost_locked(wmpi_request *r)
{
    wmpi_mq *mq;

    if (r->queue != WMPI_Q_POSTED)
        return 0;
    mq = wmpi_eng.mq[r->ctx];
    wmpi_list_unlink(&mq->posted, r);
    r->queue = WMPI_Q_NONE;
    return 1;
}

/* A posted receive is doomed by the loss of world rank `wpeer` if it names
 * that peer, or takes any source of a communicator holding it (the lost
 * peer may have been the only one meant to send: an error beats a hang). */
static int doomed(const wmpi_request *r, int wpeer)
{
    const wmpi_comm *c = r->comm;

    if (r->peer != WMPI_ANY_SOURCE)
        return wmpi_comm_world_rank(c, r->peer) == wpeer;
    for (int i = 0; i < wmpi_comm_peers(c); i++) /* intercomm: remote group */
        if (wmpi_comm_world_rank(c, i) == wpeer)
            return 1;
    return 0;
}

void wmpi_mq_fail_peer_locked(int wpeer, int err)
{
    for (uint32_t c = 0; c < wmpi_eng.nmq; c++) {
        wmpi_mq *mq = wmpi_eng.mq[c];
        wmpi_request *r, *next;

        if (!mq)
            continue;
        for (r = mq->posted.head; r; r = next) {
            next = r->next;
            if (doomed(r, wpeer)) {
                wmpi_list_unlink(&mq->posted, r);
                r->queue = WMPI_Q_NONE;
                wmpi_request_complete_locked(r, err);
            }
        }
    }
}
