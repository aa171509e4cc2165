/* Starting operations: MPI_Isend/MPI_Irecv and the persistent
 * MPI_*_init + MPI_Start, which share one path.
 *
 * Design: an operation is first described in a request (buffer, byte
 * count, peer, tag, context, mode) without the lock, then started under
 * the engine lock: a send picks its protocol (send.c), a receive searches
 * the unexpected queue or joins the posted one (recv.c). A nonblocking
 * call is describe + start; a persistent request is described once and
 * started by each MPI_Start, which first resets the request's per-run
 * state. MPI_PROC_NULL operations complete at start with the status MPI
 * prescribes (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0).
 *
 * Errors found at start (a lost peer, no memory) complete the request with
 * that error instead of failing the call: the error then surfaces where
 * MPI expects it, at the Wait/Test, with the request's status.
 *
 * Invariants: a request is started only when it is not active; all fields
 * a run changes are reset in reset_run().
 * Rejected: separate code paths for persistent requests (a nonblocking
 * operation is a persistent one started once).
 * Locking: describe() without the lock; start_locked() under it.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"
#include "engine/core/internal.h"

static int describe(int kind, const void *buf, int count, wmpi_datatype *dt,
                    int peer, int tag, wmpi_comm *c, int mode,
                    wmpi_request **out)
{
    int64_t bytes = wmpi_datatype_bytes(dt, count);
    wmpi_request *r;

    *out = NULL;
    if (bytes < 0)
        return (int)bytes;
    r = wmpi_request_new(kind);
    if (!r)
        return WEFT_ENOMEM;
    r->mode = (uint8_t)mode;
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    wmpi_datatype_retain(dt); /* released with the request (request.c) */
    r->comm = c;
    wmpi_comm_retain(c); /* a freed comm lives while r does (request.c) */
    r->comm_held = 1;
    r->ctx = c->ctx;
    r->peer = peer;
    r->tag = tag;
    r->bytes = bytes;
    *out = r;
    return 0;
}

static void reset_run(wmpi_request *r)
{
    memset(&r->st, 0, sizeof r->st);
    memset(&r->frame, 0, sizeof r->frame);
    r->complete = 0;
    r->state = WMPI_ST_IDLE;
    r->queue = WMPI_Q_NONE;
    r->wpeer = -1;
    r->msgsize = 0;
}

/* Derived datatypes: a send from a non-contiguous buffer is packed at
 * start, before the lock (datatype.h); the request holds the packed copy
 * until it completes. Errors: WEFT_ENOMEM. */
static int pack_send(wmpi_request *r)
{
    int64_t off;

    if (r->kind != WMPI_REQ_SEND || r->bytes == 0 ||
        r->peer == WMPI_PROC_NULL || wmpi_datatype_dense(r->dt, r->count, &off))
        return 0;
    r->packed = malloc((size_t)r->bytes);
    if (!r->packed)
        return WEFT_ENOMEM;
    wmpi_datatype_pack(r->dt, r->count, r->buf, r->packed);
    return 0;
}

/* A buffered send copies r->bytes from r->buf: show bsend.c the packed
 * bytes, typed as bytes (its engine-owned copy of r takes no datatype
 * reference), then restore r. */
static int bsend_bytes_locked(wmpi_request *r)
{
    void *buf = r->buf, *packed = r->packed;
    wmpi_datatype *dt = r->dt;
    int err;

    r->buf = (void *)wmpi_send_data(r);
    r->dt = &wmpi_dt_byte;
    r->packed = NULL;
    err = wmpi_bsend_start_locked(r);
    r->buf = buf;
    r->dt = dt;
    r->packed = packed;
    return err;
}

static void start_locked(wmpi_request *r)
{
    int err = 0;

    reset_run(r);
    if (r->peer == WMPI_PROC_NULL) {
        r->st.source = WMPI_PROC_NULL;
        r->st.tag = WMPI_ANY_TAG;
        wmpi_request_complete_locked(r, 0);
        return;
    }
    if (r->kind == WMPI_REQ_RECV) {
        wmpi_recv_start_locked(r);
        return;
    }
    if (r->mode == WMPI_MODE_BUFFERED) {
        err = bsend_bytes_locked(r);
        wmpi_request_complete_locked(r, err);
        return;
    }
    wmpi_send_start_locked(r);
}

static int start_new(wmpi_request *r)
{
    int err = pack_send(r);

    wmpi_lock_engine();
    r->starting = 1;
    if (err) {
        reset_run(r);
        wmpi_request_complete_locked(r, err);
    } else {
        start_locked(r);
    }
    r->starting = 0;
    wmpi_unlock_engine();
    return 0;
}

int wmpi_isend_ctx(const void *buf, int count, wmpi_datatype *dt, int dest,
                   int tag, wmpi_comm *c, uint32_t ctx, int mode,
                   wmpi_request **out)
{
    int err = describe(WMPI_REQ_SEND, buf, count, dt, dest, tag, c, mode, out);

    if (err < 0)
        return err;
    (*out)->ctx = ctx;
    return start_new(*out);
}

int wmpi_irecv_ctx(void *buf, int count, wmpi_datatype *dt, int src, int tag,
                   wmpi_comm *c, uint32_t ctx, wmpi_request **out)
{
    int err = describe(WMPI_REQ_RECV, buf, count, dt, src, tag, c, 0, out);

    if (err < 0)
        return err;
    (*out)->ctx = ctx;
    return start_new(*out);
}

int wmpi_isend(const void *buf, int count, wmpi_datatype *dt, int dest,
               int tag, wmpi_comm *c, int mode, wmpi_request **out)
{
    return wmpi_isend_ctx(buf, count, dt, dest, tag, c, c->ctx, mode, out);
}

int wmpi_irecv(void *buf, int count, wmpi_datatype *dt, int src, int tag,
               wmpi_comm *c, wmpi_request **out)
{
    return wmpi_irecv_ctx(buf, count, dt, src, tag, c, c->ctx, out);
}

int wmpi_send_init(const void *buf, int count, wmpi_datatype *dt, int dest,
                   int tag, wmpi_comm *c, int mode, wmpi_request **out)
{
    int err = describe(WMPI_REQ_SEND, buf, count, dt, dest, tag, c, mode, out);

    if (err == 0)
        (*out)->persistent = 1;
    return err;
}

int wmpi_recv_init(void *buf, int count, wmpi_datatype *dt, int src,
                   int tag, wmpi_comm *c, wmpi_request **out)
{
    int err = describe(WMPI_REQ_RECV, buf, count, dt, src, tag, c, 0, out);

    if (err == 0)
        (*out)->persistent = 1;
    return err;
}

int wmpi_start(wmpi_request *r)
{
    if (!r->persistent || r->active)
        return WEFT_EBUSY;
    r->active = 1;
    return start_new(r);
}
