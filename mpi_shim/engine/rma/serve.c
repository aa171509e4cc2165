/* The target side of a window: its service thread.
 *
 * The thread waits for a request on the window's private context like any
 * receive (wmpi_probe: one weft_io_wait), so the I/O server wakes it when
 * a request arrives, whatever the rank's other threads are doing; it
 * applies the request to the window's memory and answers on the tag the
 * origin chose. Requests are applied one at a time in arrival order,
 * which makes accumulates, fetch-and-op and compare-and-swap atomic per
 * element with respect to each other, and lets the lock queue live here
 * without a lock.
 *
 * The thread is a kernel thread by default: the I/O server wakes it, and
 * the kernel gives it a CPU beside the rank's compute threads. A ULT
 * (WEFT_MPI_RMA_THREAD=ult) is scheduled with the compute threads instead,
 * the I/O server preempting one of them to serve - but it never runs
 * while the program keeps every Weft worker blocked in the kernel (main
 * in pthread_join with one worker per rank: a hang), so it is not the
 * default.
 *
 * Locks: a request is granted in arrival order; one that cannot be granted
 * now waits in the queue, and so does every later one (no starvation of
 * an exclusive lock by a stream of shared ones). Granting is the answer;
 * the origin blocks in MPI_Win_lock until it comes.
 *
 * Invariants: every request but QUIT is answered exactly once (a LOCK
 * possibly later, from the UNLOCK that frees it).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/internal.h"
#include "engine/objects/op.h"
#include "engine/rma/rma.h"

struct wmpi_rma_waiting {
    struct wmpi_rma_waiting *next;
    int src, tag, type;
};

/* ------------------------------------------------------------ messages */

static int wait_one(wmpi_request *r)
{
    wmpi_status st;
    int err = wmpi_wait_requests(&r, 1, 1);

    if (err)
        return err;
    wmpi_request_finish(r, &st);
    return st.error;
}

static void answer(wmpi_win *w, int src, int tag, const void *buf,
                   int64_t bytes)
{
    wmpi_request *r;
    int err = wmpi_isend(buf, (int)bytes, &wmpi_dt_byte, src, tag, w->comm,
                         WMPI_MODE_STANDARD, &r);

    if (!err)
        err = wait_one(r);
    if (err && err != -ECONNRESET) /* a lost origin needs no answer */
        wmpi_fatal("window: cannot answer rank %d (error %d)", src, err);
}

/* The answer to an operation: on its tag, then, for a request-based one,
 * an empty one on its second tag (rma.h says why). */
static void answer_op(wmpi_win *w, int src, const wmpi_rma_hdr *h,
                      const void *buf, int64_t bytes)
{
    answer(w, src, h->tag, buf, bytes);
    if (h->tag2)
        answer(w, src, h->tag2, NULL, 0);
}

/* The next request, malloc'd; *src is its origin. NULL when MPI_Finalize
 * closes the engine under a window the program never freed: the thread
 * then ends quietly (the window's memory goes with the process). */
static wmpi_rma_hdr *next_request(wmpi_win *w, int *src)
{
    wmpi_status st;
    wmpi_request *r;
    void *msg;
    int err = wmpi_probe(WMPI_ANY_SOURCE, WMPI_RMA_TAG_REQ, w->comm, &st);

    if (err == WEFT_ESTATE)
        return NULL;
    if (err || !(msg = malloc((size_t)st.bytes)))
        wmpi_fatal("window: cannot receive a request (error %d)", err);
    err = wmpi_irecv(msg, (int)st.bytes, &wmpi_dt_byte, st.source,
                     WMPI_RMA_TAG_REQ, w->comm, &r);
    if (!err)
        err = wait_one(r);
    if (err)
        wmpi_fatal("window: cannot receive a request (error %d)", err);
    *src = st.source;
    return msg;
}

/* ------------------------------------------------------------- memory */

/* The window's address at the request's displacement (as an integer
 * sum: a dynamic window's base is NULL and its displacements addresses). */
static char *target_at(const wmpi_win *w, const wmpi_rma_hdr *h)
{
    return (char *)((uintptr_t)w->base + (uintptr_t)h->disp);
}

static const int64_t *runs_of(const wmpi_rma_hdr *h)
{
    return (const int64_t *)(h + 1);
}

static const char *data_of(const wmpi_rma_hdr *h)
{
    return (const char *)(runs_of(h) + 2 * h->nruns);
}

/* The basic type of an accumulate, for the op kernels. */
static void basic_of(const wmpi_rma_hdr *h, wmpi_datatype *b)
{
    *b = (wmpi_datatype){ .size = h->bsize, .extent = h->bextent,
                          .basic = h->pair ? 2 : 1, .name = "basic",
                          .tclass = h->bclass, .pair_class = h->pclass,
                          .pair_value_size = h->pvsize,
                          .pair_index_offset = h->pioff, .align = h->balign };
}

/* Data bytes of the request's runs (packed: pairs without their hole). */
static int64_t run_bytes(const wmpi_rma_hdr *h)
{
    const int64_t *run = runs_of(h);
    int64_t n = 0;

    if (h->pair)
        return h->nruns * h->bsize;
    for (int64_t i = 0; i < h->nruns; i++)
        n += run[2 * i + 1];
    return n;
}

/* Pairs: value and index move separately, around the hole. */
static void pair_pack(const wmpi_rma_hdr *h, const char *mem, char *out)
{
    memcpy(out, mem, h->pvsize);
    memcpy(out + h->pvsize, mem + h->pioff, sizeof(int));
}

static void pair_unpack(const wmpi_rma_hdr *h, const char *in, char *mem)
{
    memcpy(mem, in, h->pvsize);
    memcpy(mem + h->pioff, in + h->pvsize, sizeof(int));
}

/* Copy the target bytes into out (a get, the old values of a fetch). */
static void gather(wmpi_win *w, const wmpi_rma_hdr *h, char *out)
{
    const int64_t *run = runs_of(h);
    const char *at = target_at(w, h);

    for (int64_t i = 0; h->pair && i < h->nruns; i++)
        pair_pack(h, at + run[2 * i], out + i * h->bsize);
    if (h->pair)
        return;
    for (int64_t i = 0; i < h->nruns; i++) {
        memcpy(out, at + run[2 * i], (size_t)run[2 * i + 1]);
        out += run[2 * i + 1];
    }
}

/* inout = in op inout over `len` bytes of the request's basic type. */
static void apply(const wmpi_rma_hdr *h, const char *in, char *inout,
                  int64_t len)
{
    int64_t unit = h->pair ? h->bextent : (int64_t)h->bsize;
    wmpi_datatype b;
    wmpi_op_kernel *k;

    if (h->op == WMPI_OP_REPLACE || h->kind == WMPI_RMA_PUT) {
        memcpy(inout, in, (size_t)len);
        return;
    }
    if (h->op == WMPI_OP_NO_OP)
        return;
    basic_of(h, &b);
    k = wmpi_op_find_kernel(h->op, &b);
    if (!k) /* the origin checked the op against the type */
        wmpi_fatal("window: op %d undefined on a type of class %d",
                   h->op, h->bclass);
    k(in, inout, len / unit, &b);
}

/* A pair at a time, through its memory layout (the kernels' input). */
static void pair_scatter(wmpi_win *w, const wmpi_rma_hdr *h)
{
    const int64_t *run = runs_of(h);
    char *at = target_at(w, h);
    _Alignas(16) char tmp[64]; /* a pair's extent: at most 32 bytes */

    for (int64_t i = 0; i < h->nruns; i++) {
        pair_unpack(h, data_of(h) + i * h->bsize, tmp);
        if (h->op == WMPI_OP_REPLACE)
            pair_unpack(h, data_of(h) + i * h->bsize, at + run[2 * i]);
        else
            apply(h, tmp, at + run[2 * i], h->bextent);
    }
}

/* Apply the origin's data to the target bytes, run by run. */
static void scatter(wmpi_win *w, const wmpi_rma_hdr *h)
{
    const int64_t *run = runs_of(h);
    const char *in = data_of(h);
    char *at = target_at(w, h);

    if (h->pair) {
        pair_scatter(w, h);
        return;
    }
    for (int64_t i = 0; i < h->nruns; i++) {
        apply(h, in, at + run[2 * i], run[2 * i + 1]);
        in += run[2 * i + 1];
    }
}

/* ----------------------------------------------------------- requests */

/* GET, GACC, CAS: answer the old values; then update (GACC, CAS). */
static void serve_fetch(wmpi_win *w, int src, const wmpi_rma_hdr *h)
{
    int64_t n = run_bytes(h);
    char *old = malloc(n ? (size_t)n : 1);
    char *at = target_at(w, h);

    if (!old)
        wmpi_fatal("window: out of memory for %lld bytes", (long long)n);
    gather(w, h, old);
    if (h->kind == WMPI_RMA_GACC)
        scatter(w, h);
    else if (h->kind == WMPI_RMA_CAS && !memcmp(old, data_of(h) + n, (size_t)n))
        memcpy(at + runs_of(h)[0], data_of(h), (size_t)n);
    answer_op(w, src, h, old, n);
    free(old);
}

static int grantable(const wmpi_rma_lockq *q, int type)
{
    if (q->exclusive)
        return 0;
    return type == WMPI_LOCK_SHARED || q->shared == 0;
}

static void grant(wmpi_win *w, int src, int tag, int type)
{
    if (type == WMPI_LOCK_EXCLUSIVE)
        w->lq.exclusive = 1;
    else
        w->lq.shared++;
    answer(w, src, tag, NULL, 0);
}

static void serve_lock(wmpi_win *w, int src, const wmpi_rma_hdr *h)
{
    struct wmpi_rma_waiting *q;

    if (!w->lq.head && grantable(&w->lq, h->lock)) {
        grant(w, src, h->tag, h->lock);
        return;
    }
    if (!(q = malloc(sizeof *q)))
        wmpi_fatal("window: out of memory for the lock queue");
    *q = (struct wmpi_rma_waiting){ NULL, src, h->tag, h->lock };
    if (w->lq.tail)
        w->lq.tail->next = q;
    else
        w->lq.head = q;
    w->lq.tail = q;
}

static void serve_unlock(wmpi_win *w, int src, const wmpi_rma_hdr *h)
{
    struct wmpi_rma_waiting *q;

    if (h->lock == WMPI_LOCK_EXCLUSIVE)
        w->lq.exclusive = 0;
    else
        w->lq.shared--;
    answer(w, src, h->tag, NULL, 0);
    while ((q = w->lq.head) && grantable(&w->lq, q->type)) {
        if (!(w->lq.head = q->next))
            w->lq.tail = NULL;
        grant(w, q->src, q->tag, q->type);
        free(q);
    }
}

/* A dynamic window's target checks what an origin could not: that the
 * bytes are attached here. Erroneous otherwise (MPI-3.1 11.2.4): the job
 * stops, naming the addresses, rather than write wild memory. */
static void check_attached(wmpi_win *w, int src, const wmpi_rma_hdr *h)
{
    const int64_t *run = runs_of(h);
    uintptr_t addr;

    for (int64_t i = 0; i < h->nruns; i++) {
        addr = (uintptr_t)target_at(w, h) + (uintptr_t)run[2 * i];
        if (!wmpi_win_attached(w, addr, run[2 * i + 1]))
            wmpi_fatal("window: rank %d accessed %lld bytes at %#llx, not "
                       "attached to the dynamic window of rank %d "
                       "(MPI_ERR_RMA_RANGE)", src, (long long)run[2 * i + 1],
                       (unsigned long long)addr, w->comm->rank);
    }
}

static void serve_one(wmpi_win *w, int src, const wmpi_rma_hdr *h)
{
    if (w->flavor == WMPI_WIN_DYNAMIC && h->kind < WMPI_RMA_LOCK)
        check_attached(w, src, h);
    switch (h->kind) {
    case WMPI_RMA_PUT:
    case WMPI_RMA_ACC:
        scatter(w, h);
        answer_op(w, src, h, NULL, 0);
        break;
    case WMPI_RMA_GET:
    case WMPI_RMA_GACC:
    case WMPI_RMA_CAS:    serve_fetch(w, src, h); break;
    case WMPI_RMA_LOCK:   serve_lock(w, src, h); break;
    case WMPI_RMA_UNLOCK: serve_unlock(w, src, h); break;
    default:
        wmpi_fatal("window: request of unknown kind %d from rank %d",
                   h->kind, src);
    }
}

static void *serve_main(void *arg)
{
    wmpi_win *w = arg;
    wmpi_rma_hdr *h;
    int src;

    while ((h = next_request(w, &src)) && h->kind != WMPI_RMA_QUIT) {
        serve_one(w, src, h);
        free(h);
    }
    free(h);
    return NULL;
}

/* ---------------------------------------------------------- the thread */

static int start_kernel_thread(wmpi_win *w)
{
    pthread_t *t = malloc(sizeof *t);
    int err;

    if (!t)
        return WEFT_ENOMEM;
    err = pthread_create(t, NULL, serve_main, w);
    if (err) {
        free(t);
        return -err;
    }
    w->kthread = t;
    return 0;
}

static int want_ult(void)
{
    const char *v = getenv("WEFT_MPI_RMA_THREAD");

    return v && !strcmp(v, "ult") && weft_thread_self() != WEFT_THREAD_NULL;
}

int wmpi_rma_serve_start(wmpi_win *w)
{
    weft_thread_attr attr;

    if (!want_ult())
        return start_kernel_thread(w);
    weft_thread_attr_init(&attr);
    attr.name = "mpi-win";
    return weft_thread_create(&w->ult, &attr, serve_main, w);
}

int wmpi_rma_serve_stop(wmpi_win *w)
{
    wmpi_rma_hdr h = { .kind = WMPI_RMA_QUIT };
    wmpi_request *r;
    int err = wmpi_isend(&h, (int)sizeof h, &wmpi_dt_byte, w->comm->rank,
                         WMPI_RMA_TAG_REQ, w->comm, WMPI_MODE_STANDARD, &r);

    if (!err)
        err = wait_one(r);
    if (err)
        return err;
    if (w->kthread) {
        pthread_join(*(pthread_t *)w->kthread, NULL);
        free(w->kthread);
        w->kthread = NULL;
        return 0;
    }
    return weft_thread_join(w->ult, NULL);
}
