/* The origin side of one-sided operations: put, get, accumulate,
 * get-accumulate, fetch-and-op and compare-and-swap as requests to the
 * target's service thread (serve.c), or, for puts and gets on a window
 * every rank maps, as the origin's own copies (direct.c).
 *
 * An operation is checked here against the target's window (every rank's
 * size and disp unit are known since creation), so a bad displacement is
 * the caller's error, not the target's. Then it becomes one message: a
 * header, the target bytes as (offset, length) runs - so the target needs
 * neither the origin's nor its own datatype - and the origin's data
 * packed. Before sending it, the origin posts the receive of its answer:
 * the fetched data straight into the result buffer (unpacked by the
 * engine for any datatype), or an empty acknowledgement. The operation
 * then waits on the window's pending list until its epoch ends (sync.c).
 *
 * Trade-off: one message and one answer per operation, whatever its size;
 * a put costs a round trip at flush time, not an extra one per put.
 * Locking: the pending list, the tag counter and the epoch state are
 * under the window's lock, held for list operations only; completing
 * takes the window's flushing mutex (a user-thread mutex: it is held
 * while waiting).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/core/internal.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"
#include "engine/rma/rma.h"

struct wmpi_rma_op {
    wmpi_rma_op *next;
    int target;
    wmpi_request *req[2]; /* the request's send, the answer's receive */
    void *msg;
};

int wmpi_win_has_access(wmpi_win *w, int rank)
{
    int ok;

    wmpi_lock_take(&w->lock);
    ok = w->fence || w->lock_all || w->locked[rank] || w->started[rank];
    wmpi_lock_release(&w->lock);
    return ok;
}

int wmpi_win_has_passive(wmpi_win *w, int rank)
{
    int ok;

    wmpi_lock_take(&w->lock);
    ok = w->lock_all || w->locked[rank];
    wmpi_lock_release(&w->lock);
    return ok;
}

/* -------------------------------------------------------------- checks */

static int fetches(int kind)
{
    return kind == WMPI_RMA_GET || kind == WMPI_RMA_GACC ||
           kind == WMPI_RMA_CAS;
}

static int sends_data(const wmpi_rma_args *a)
{
    if (a->kind == WMPI_RMA_GACC)
        return a->op->id != WMPI_OP_NO_OP;
    return a->kind != WMPI_RMA_GET;
}

/* The target bytes, relative to the displacement, must lie in its window. */
static int check_range(wmpi_win *w, const wmpi_rma_args *a,
                       const int64_t *run, int64_t nruns)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t disp = a->tdisp * w->units[a->target];

    if (a->tdisp < 0)
        return -EDOM;
    for (int64_t i = 0; i < nruns; i++) {
        lo = run[2 * i] < lo ? run[2 * i] : lo;
        if (run[2 * i] + run[2 * i + 1] > hi)
            hi = run[2 * i] + run[2 * i + 1];
    }
    if (nruns && (disp + lo < 0 || disp + hi > w->sizes[a->target]))
        return -ERANGE;
    return 0;
}

/* Sizes agree; an accumulate's types are one basic type its op knows. */
static int check_types(const wmpi_rma_args *a, int64_t tbytes,
                       wmpi_datatype **basic)
{
    const wmpi_datatype *ob;

    if (sends_data(a) && wmpi_datatype_bytes(a->odt, a->ocount) != tbytes)
        return -EBADMSG;
    if (fetches(a->kind) && wmpi_datatype_bytes(a->rdt, a->rcount) != tbytes)
        return -EBADMSG;
    *basic = wmpi_datatype_basic(a->tdt);
    if (a->kind != WMPI_RMA_ACC && a->kind != WMPI_RMA_GACC &&
        a->kind != WMPI_RMA_CAS)
        return 0;
    if (!*basic && tbytes)
        return -EBADMSG;
    if (*basic && (*basic)->tclass == WMPI_TC_PAIR &&
        !wmpi_datatype_is_predefined(a->tdt))
        return -ENOTSUP; /* a derived type of pairs at the target */
    ob = sends_data(a) ? wmpi_datatype_basic(a->odt) : *basic;
    return ob == *basic ? 0 : -EBADMSG;
}

/* ------------------------------------------------------------- message */

/* An accumulate of pairs (MINLOC, MAXLOC, REPLACE on MPI_DOUBLE_INT...)
 * goes element by element: the target needs each pair whole, in its
 * memory layout, for the kernels. */
static int pair_mode(const wmpi_rma_args *a, const wmpi_datatype *b)
{
    return b && b->tclass == WMPI_TC_PAIR &&
           (a->kind == WMPI_RMA_ACC || a->kind == WMPI_RMA_GACC);
}

/* A dense target (count * size bytes at one offset) as its one run, in
 * `one`, found without walking the elements: datatype_runs steps through
 * every element, a million steps for a 1 MiB put of MPI_BYTE. */
static int dense_run(const wmpi_rma_args *a, int64_t off, int64_t one[2], int64_t **run,
                     int64_t *nruns)
{
    int64_t bytes = wmpi_datatype_bytes(a->tdt, a->tcount);

    *run = one;
    *nruns = bytes ? 1 : 0;
    one[0] = off;
    one[1] = bytes;
    return 0;
}

/* The target bytes as runs: one per element for pairs (offset, bytes
 * the pair spans), one for a dense target (in `one`, not allocated),
 * else the type map's (datatype_runs). */
static int target_runs(const wmpi_rma_args *a, const wmpi_datatype *b, int64_t one[2],
                       int64_t **run, int64_t *nruns)
{
    int64_t off;

    if (!pair_mode(a, b) && wmpi_datatype_dense(a->tdt, a->tcount, &off))
        return dense_run(a, off, one, run, nruns);
    if (!pair_mode(a, b))
        return wmpi_datatype_runs(a->tdt, a->tcount, run, nruns);
    *nruns = a->tcount;
    *run = malloc(((size_t)a->tcount + 1) * 2 * sizeof **run);
    if (!*run)
        return WEFT_ENOMEM;
    for (int64_t i = 0; i < a->tcount; i++) {
        (*run)[2 * i] = i * b->extent;
        (*run)[2 * i + 1] = b->pair_index_offset + (int64_t)sizeof(int);
    }
    return 0;
}

static void fill_header(wmpi_win *w, const wmpi_rma_args *a,
                        const wmpi_datatype *b, int64_t nruns, int64_t plen,
                        wmpi_rma_hdr *h)
{
    memset(h, 0, sizeof *h);
    h->kind = a->kind;
    h->op = a->op ? a->op->id : 0;
    h->disp = a->tdisp * w->units[a->target];
    h->nruns = nruns;
    h->plen = plen;
    if (b) {
        h->bsize = (uint32_t)b->size;
        h->bextent = (int32_t)b->extent;
        h->bclass = b->tclass;
        h->balign = b->align;
    }
    if (b && pair_mode(a, b)) {
        h->pair = 1;
        h->pclass = b->pair_class;
        h->pvsize = b->pair_value_size;
        h->pioff = b->pair_index_offset;
    }
}

/* Header, runs and packed data in one malloc'd message. */
static int build(wmpi_win *w, const wmpi_rma_args *a, const wmpi_datatype *b,
                 const int64_t *run, int64_t nruns, int64_t tbytes,
                 wmpi_rma_hdr **out, int64_t *len)
{
    int64_t plen = sends_data(a) ? tbytes : 0;
    size_t rl = (size_t)nruns * 2 * sizeof(int64_t);
    wmpi_rma_hdr *h;
    char *p;

    if (a->kind == WMPI_RMA_CAS)
        plen = 2 * tbytes; /* new value, then the compare value */
    *len = (int64_t)(sizeof *h + rl) + plen;
    if (*len > INT32_MAX || !(h = malloc((size_t)*len)))
        return WEFT_ENOMEM;
    fill_header(w, a, b, nruns, plen, h);
    p = (char *)(h + 1);
    if (rl)
        memcpy(p, run, rl);
    p += rl;
    if (plen)
        wmpi_datatype_pack(a->odt, a->ocount, a->obuf, p);
    if (a->kind == WMPI_RMA_CAS)
        wmpi_datatype_pack(a->odt, 1, a->cbuf, p + tbytes);
    *out = h;
    return 0;
}

/* ---------------------------------------------------------------- send */

/* At the head: completion waits for all of them at once, in no order. */
static void add_pending(wmpi_win *w, wmpi_rma_op *op)
{
    wmpi_lock_take(&w->lock);
    op->next = w->pending;
    w->pending = op;
    wmpi_lock_release(&w->lock);
}

int wmpi_rma_next_tag(wmpi_win *w)
{
    int tag;

    wmpi_lock_take(&w->lock);
    tag = (int)w->next_tag;
    w->next_tag = w->next_tag == WMPI_TAG_UB ? WMPI_RMA_TAG_FIRST
                                             : w->next_tag + 1;
    wmpi_lock_release(&w->lock);
    return tag;
}

/* The receive of the answer: into the result buffer for a fetch, else
 * an empty acknowledgement. */
static int post_answer(wmpi_win *w, const wmpi_rma_args *a, int tag,
                       wmpi_request **r)
{
    if (fetches(a->kind))
        return wmpi_irecv(a->rbuf, a->rcount, a->rdt, a->target, tag,
                          w->comm, r);
    return wmpi_irecv(NULL, 0, &wmpi_dt_byte, a->target, tag, w->comm, r);
}

static void unpost(wmpi_request *r)
{
    wmpi_cancel(r);
    wmpi_wait_requests(&r, 1, 1);
    wmpi_request_finish(r, NULL);
}

/* Post the answers' receives (the user's, then the window's), then send
 * the request. */
static int post(wmpi_win *w, const wmpi_rma_args *a, wmpi_rma_hdr *h,
                int64_t len, wmpi_rma_op *op)
{
    int err = 0;

    h->tag = wmpi_rma_next_tag(w);
    if (a->ureq) {
        err = post_answer(w, a, h->tag, a->ureq);
        h->tag2 = wmpi_rma_next_tag(w);
    }
    if (err)
        return err;
    err = a->ureq ? wmpi_irecv(NULL, 0, &wmpi_dt_byte, a->target, h->tag2,
                               w->comm, &op->req[1])
                  : post_answer(w, a, h->tag, &op->req[1]);
    if (!err)
        err = wmpi_isend(h, (int)len, &wmpi_dt_byte, a->target,
                         WMPI_RMA_TAG_REQ, w->comm, WMPI_MODE_STANDARD,
                         &op->req[0]);
    if (err && op->req[1])
        unpost(op->req[1]);
    if (err && a->ureq)
        unpost(*a->ureq);
    return err;
}

static int send_op(wmpi_win *w, const wmpi_rma_args *a, wmpi_rma_hdr *h,
                   int64_t len)
{
    wmpi_rma_op *op = calloc(1, sizeof *op);
    int err;

    if (!op)
        return WEFT_ENOMEM;
    err = post(w, a, h, len, op);
    if (err) {
        free(op);
        return err;
    }
    op->target = a->target;
    op->msg = h;
    __atomic_add_fetch(&w->inflight, 1, __ATOMIC_RELAXED);
    add_pending(w, op);
    return 0;
}

/* Runs that target_runs allocated (not the caller's `one`). */
static void free_runs(int64_t *run, const int64_t *one)
{
    if (run != one)
        free(run);
}

int wmpi_rma_start(wmpi_win *w, const wmpi_rma_args *a)
{
    int64_t *run, nruns, tbytes, len, one[2];
    wmpi_datatype *b;
    wmpi_rma_hdr *h;
    int err;

    if (!(a->ureq ? wmpi_win_has_passive(w, a->target)
                  : wmpi_win_has_access(w, a->target)))
        return -EPROTO;
    tbytes = wmpi_datatype_bytes(a->tdt, a->tcount);
    err = tbytes < 0 ? WEFT_EINVAL : check_types(a, tbytes, &b);
    if (err)
        return err;
    err = target_runs(a, b, one, &run, &nruns);
    if (!err)
        err = check_range(w, a, run, nruns);
    if (!err && (err = wmpi_rma_direct(w, a, run, nruns, tbytes)) != 0) {
        free_runs(run, one);
        return err < 0 ? err : 0; /* done by the origin's own copy */
    }
    if (!err)
        err = build(w, a, b, run, nruns, tbytes, &h, &len);
    free_runs(run, one);
    if (!err && (err = send_op(w, a, h, len)))
        free(h);
    return err;
}

/* ---------------------------------------------------------- completion */

/* Take the pending operations to `rank` (all if < 0) off the list. */
static wmpi_rma_op *take_pending(wmpi_win *w, int rank, int *n)
{
    wmpi_rma_op *mine = NULL, **pp, *op;

    *n = 0;
    wmpi_lock_take(&w->lock);
    for (pp = &w->pending; (op = *pp);) {
        if (rank >= 0 && op->target != rank) {
            pp = &op->next;
            continue;
        }
        *pp = op->next;
        op->next = mine;
        mine = op;
        (*n)++;
    }
    wmpi_lock_release(&w->lock);
    return mine;
}

static int finish_op(wmpi_win *w, wmpi_rma_op *op)
{
    wmpi_status st[2];

    wmpi_request_finish(op->req[0], &st[0]);
    wmpi_request_finish(op->req[1], &st[1]);
    free(op->msg);
    free(op);
    __atomic_sub_fetch(&w->inflight, 1, __ATOMIC_RELEASE);
    return st[0].error ? st[0].error : st[1].error;
}

static int complete_locked(wmpi_win *w, int rank)
{
    int n, err = 0, e, i = 0;
    wmpi_rma_op *op = take_pending(w, rank, &n), *next;
    wmpi_request **reqs = n ? malloc((size_t)n * 2 * sizeof *reqs) : NULL;

    if (n && !reqs)
        wmpi_fatal("window: out of memory completing %d operations", n);
    for (wmpi_rma_op *o = op; o; o = o->next) {
        reqs[i++] = o->req[0];
        reqs[i++] = o->req[1];
    }
    if (n)
        err = wmpi_wait_requests(reqs, 2 * n, 2 * n);
    free(reqs);
    if (err) /* not done: the engine still holds them */
        return err;
    for (; op; op = next) {
        next = op->next;
        e = finish_op(w, op);
        err = err ? err : e;
    }
    return err;
}

int wmpi_rma_complete(wmpi_win *w, int rank)
{
    int err;

    /* the origin's direct copies (direct.c) before anything that ends
     * the epoch tells the target */
    wmpi_win_memory_fence(w);
    /* nothing sent is unfinished, whichever thread sent it: nothing to
     * wait for (the common case of puts and gets done as copies) */
    if (__atomic_load_n(&w->inflight, __ATOMIC_ACQUIRE) == 0)
        return 0;
    weft_mutex_lock(&w->flushing);
    err = complete_locked(w, rank);
    weft_mutex_unlock(&w->flushing);
    return err;
}
