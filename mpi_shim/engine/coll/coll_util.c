/* The collectives' toolbox: sequence numbers, messages on the collective
 * context, scratch buffers, local copies and local reductions.
 *
 * Design: a schedule (coll_*.c) is straight-line code over these helpers:
 * start the sends and receives of a round together, wait for all of them
 * (one wmpi_block for the round: only the calling thread blocks), combine,
 * go on. Messages are ordinary point-to-point requests on the context
 * ctx + 1 with the tag of coll_impl.h, so the protocol (eager, rendezvous,
 * loopback) and the datatype packing are point-to-point's. Scratch buffers
 * are laid out as user buffers of the same type (lower bound and gaps
 * included), so a schedule sends from them with the user's datatype.
 *
 * Rejected: packing everything to bytes before a collective (a full copy
 * of every buffer even for contiguous types, which is nearly all of them);
 * waiting request by request (a wake-up per message instead of per round).
 *
 * Invariants: a request set's requests are all released by
 * wmpi_coll_reqs_wait, whatever happened; the sequence counter only grows.
 * Locking: the sequence counter is atomic; the rest is the caller's own
 * memory or goes through the point-to-point entry points (which lock).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

void wmpi_coll_begin(wmpi_coll_call *k, wmpi_comm *c)
{
    k->c = c;
    k->ctx = c->ctx + 1;
    k->rank = c->rank;
    k->size = c->size;
    k->step_base = 0;
    k->seq = __atomic_fetch_add(&c->coll_seq, 1, __ATOMIC_RELAXED);
    k->lseq = c->local ? __atomic_fetch_add(&c->local->coll_seq, 1, __ATOMIC_RELAXED)
                       : 0;
}

/* -------------------------------------------------------------- tuning */

static int64_t read_limit(void)
{
    const char *s = getenv("WEFT_COLL_LONG");
    char *end;
    long long v;

    if (!s || !*s)
        return -1;
    v = strtoll(s, &end, 10);
    return *end || v < 0 ? -1 : v;
}

int64_t wmpi_coll_limit(int64_t dflt)
{
    static int64_t limit = -2; /* atomic: -2 not read yet, -1 unset */
    int64_t v = __atomic_load_n(&limit, __ATOMIC_RELAXED);

    if (v == -2) {
        v = read_limit();
        __atomic_store_n(&limit, v, __ATOMIC_RELAXED);
    }
    return v < 0 ? dflt : v;
}

/* ------------------------------------------------------------ messages */

int wmpi_coll_reqs_init(wmpi_coll_reqs *q, int cap)
{
    q->n = 0;
    q->err = 0;
    q->cap = cap;
    q->r = q->small;
    if (cap > (int)(sizeof q->small / sizeof q->small[0])) {
        q->r = malloc((size_t)cap * sizeof *q->r);
        if (!q->r) {
            q->r = q->small;
            q->cap = 0;
            return q->err = WEFT_ENOMEM;
        }
    }
    return 0;
}

static int room(wmpi_coll_reqs *q, int peer, int64_t count)
{
    if (q->err || peer == WMPI_PROC_NULL)
        return 0;
    if (count > INT32_MAX || q->n >= q->cap) {
        q->err = count > INT32_MAX ? WEFT_EINVAL : WEFT_ENOMEM;
        return 0;
    }
    return 1;
}

void wmpi_coll_isend(wmpi_coll_reqs *q, const wmpi_coll_call *k, int step,
                     const void *buf, int64_t count, wmpi_datatype *dt, int dst)
{
    if (room(q, dst, count))
        q->err = wmpi_isend_ctx(buf, (int)count, dt, dst, wmpi_coll_tag(k, step),
                                k->c, k->ctx, WMPI_MODE_STANDARD, &q->r[q->n++]);
}

void wmpi_coll_irecv(wmpi_coll_reqs *q, const wmpi_coll_call *k, int step,
                     void *buf, int64_t count, wmpi_datatype *dt, int src)
{
    if (room(q, src, count))
        q->err = wmpi_irecv_ctx(buf, (int)count, dt, src, wmpi_coll_tag(k, step),
                                k->c, k->ctx, &q->r[q->n++]);
}

/* After a failed wait: receives still posted must not write into buffers
 * the caller is about to free; sends are left to finish on their own. */
static void abandon(wmpi_request *r)
{
    if (r->kind == WMPI_REQ_RECV)
        wmpi_cancel(r);
    if (wmpi_request_done(r))
        wmpi_request_finish(r, NULL);
    else
        wmpi_request_free(r);
}

int wmpi_coll_reqs_wait(wmpi_coll_reqs *q)
{
    int err = q->err, werr = 0;
    wmpi_status st;

    if (q->n > 0)
        werr = wmpi_wait_requests(q->r, q->n, q->n);
    for (int i = 0; i < q->n; i++) {
        if (!q->r[i])
            continue;
        if (werr || !wmpi_request_done(q->r[i])) {
            abandon(q->r[i]);
            continue;
        }
        wmpi_request_finish(q->r[i], &st);
        if (!err && st.error)
            err = st.error;
    }
    if (q->r != q->small)
        free(q->r);
    q->r = q->small;
    q->n = q->cap = 0;
    return err ? err : werr;
}

int wmpi_coll_sendrecv(const wmpi_coll_call *k, int step,
                       const void *sbuf, int64_t scount, wmpi_datatype *sdt, int dst,
                       void *rbuf, int64_t rcount, wmpi_datatype *rdt, int src)
{
    wmpi_coll_reqs q;

    wmpi_coll_reqs_init(&q, 2);
    wmpi_coll_irecv(&q, k, step, rbuf, rcount, rdt, src);
    wmpi_coll_isend(&q, k, step, sbuf, scount, sdt, dst);
    return wmpi_coll_reqs_wait(&q);
}

int wmpi_coll_send(const wmpi_coll_call *k, int step, const void *buf,
                   int64_t count, wmpi_datatype *dt, int dst)
{
    return wmpi_coll_sendrecv(k, step, buf, count, dt, dst, NULL, 0, dt,
                              WMPI_PROC_NULL);
}

int wmpi_coll_recv(const wmpi_coll_call *k, int step, void *buf, int64_t count,
                   wmpi_datatype *dt, int src)
{
    return wmpi_coll_sendrecv(k, step, NULL, 0, dt, WMPI_PROC_NULL, buf, count,
                              dt, src);
}

/* ------------------------------------------------------------- buffers */

int wmpi_coll_tmp_alloc(wmpi_coll_tmp *t, int64_t count, const wmpi_datatype *dt)
{
    int64_t lo, hi;

    t->base = NULL;
    t->p = NULL;
    if (wmpi_datatype_span(dt, count, &lo, &hi))
        return WEFT_EINVAL;
    t->base = wmpi_scratch_get(hi > lo ? (size_t)(hi - lo) : 1, &t->cap);
    if (!t->base)
        return WEFT_ENOMEM;
    t->p = (char *)t->base - lo;
    return 0;
}

void wmpi_coll_tmp_free(wmpi_coll_tmp *t)
{
    wmpi_scratch_put(t->base, t->cap);
    t->base = NULL;
    t->p = NULL;
}

static int copy_packed(const void *s, int64_t scount, wmpi_datatype *sdt,
                       void *r, int64_t rcount, wmpi_datatype *rdt, int64_t bytes)
{
    void *tmp = malloc(bytes > 0 ? (size_t)bytes : 1);
    int64_t n;

    if (!tmp)
        return WEFT_ENOMEM;
    n = wmpi_datatype_pack(sdt, scount, s, tmp);
    if (n >= 0)
        n = wmpi_datatype_unpack_part(rdt, rcount, tmp, n, r);
    free(tmp);
    return n < 0 ? (int)n : 0;
}

int wmpi_coll_copy(const void *s, int64_t scount, wmpi_datatype *sdt,
                   void *r, int64_t rcount, wmpi_datatype *rdt)
{
    int64_t sbytes = wmpi_datatype_bytes(sdt, scount);
    int64_t rbytes = wmpi_datatype_bytes(rdt, rcount);

    if (sbytes < 0 || rbytes < 0)
        return WEFT_EINVAL;
    if (sbytes > rbytes)
        return -EMSGSIZE;
    if (sbytes == 0 || (s == r && sdt == rdt && scount == rcount))
        return 0;
    if (wmpi_datatype_is_contig(sdt) && wmpi_datatype_is_contig(rdt)) {
        memmove(r, s, (size_t)sbytes);
        return 0;
    }
    return copy_packed(s, scount, sdt, r, rcount, rdt, sbytes);
}

int wmpi_coll_reduce_local(const wmpi_op *op, const void *in, void *inout,
                           int64_t count, wmpi_datatype *dt)
{
    return count > 0 ? wmpi_op_apply(op, in, inout, count, dt) : 0;
}

int wmpi_coll_op_commutes(const wmpi_op *op)
{
    return wmpi_op_commutative(op);
}
