/* MPI_Comm_idup: MPI_Comm_dup that returns at once and completes a
 * request when the new communicator exists.
 *
 * Design: the call does, in the caller, what depends on the moment of the
 * call: it copies the attributes (through the program's copy callbacks,
 * in the program's thread, as MPI_Comm_dup would), the topology and the
 * info hints into a holder, and takes the parent's next collective
 * sequence number (of an intercommunicator: its local group's too,
 * coll_impl.h). The context id vote then runs in a thread of its own
 * (coll_run.c's wmpi_coll_task, as a nonblocking collective), every round
 * under that sequence number (comm_ctx.c's wmpi_ctx_alloc_in): so the
 * vote neither blocks the caller nor meets the messages of the
 * collectives the program starts on the parent after the call, however
 * many rounds it takes. Its key, made of the same number, orders it among
 * the rank's other allocations (objects/ctx.c), so several idups of one
 * parent, and a blocking dup beside them, never take turns forever. The
 * thread builds the communicator, hands it the holder's contents, and has
 * the bindings publish the handle (MPI sets *newcomm at completion, so
 * the handle is valid only once the request completes) before it
 * completes the request.
 *
 * Rejected: running MPI_Comm_dup itself in the thread (its allreduce
 * would take a sequence number whenever the thread runs: ranks would
 * disagree on which collective is which, and the copy callbacks would run
 * in a thread the program never made); state machines driven by the
 * progress engine (MPICH's schedules: a second form of the vote).
 * Invariants: the holder's attributes, topology and info belong to the
 * job until moved to the new communicator or discarded; the parent lives
 * while the request does (coll_run.c holds it).
 * Locking: none of its own.
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/comm.h"
#include "engine/objects/info.h"
#include "engine/core/internal.h"

typedef struct idup {
    wmpi_coll_call k;        /* taken at the call */
    wmpi_comm holder;        /* attrs, topo, info for the new communicator */
    void (*publish)(wmpi_comm *c, wmpi_comm *nc, void *slot);
    void *slot;
} idup;

static void holder_discard(wmpi_comm *h)
{
    wmpi_attr_discard(h);
    wmpi_topo_free(h->topo);
    if (h->info)
        wmpi_info_release(h->info);
}

/* What MPI_Comm_dup would copy from c at this moment. */
static int holder_fill(wmpi_comm *c, wmpi_comm *h)
{
    int err = 0;

    if (c->topo && !(h->topo = wmpi_topo_dup(c->topo)))
        err = WEFT_ENOMEM;
    if (!err && c->info)
        err = wmpi_info_dup(c->info, &h->info);
    if (!err)
        err = wmpi_attr_copy_all(c, h);
    if (err)
        holder_discard(h);
    return err;
}

/* The new intracommunicator: c's group on an id voted under k. */
static int intra_bare(const wmpi_coll_call *k, wmpi_comm **out)
{
    wmpi_comm *c = k->c;
    uint32_t ctx;
    int err;

    *out = NULL;
    err = wmpi_ctx_alloc_in(k, 1, NULL, wmpi_ctx_key_nonblocking(c, k->seq), &ctx);
    if (err)
        return err;
    err = wmpi_comm_build(c->group, ctx, 1, out);
    if (err)
        wmpi_ctx_free(ctx, 1);
    return err;
}

static int run(void *arg)
{
    idup *d = arg;
    wmpi_comm *c = d->k.c, *nc = NULL;
    int err;

    if (c->remote)
        err = wmpi_intercomm_dup_bare(
            &d->k, wmpi_ctx_key_nonblocking(c->local, d->k.lseq), &nc);
    else
        err = intra_bare(&d->k, &nc);
    if (err) {
        holder_discard(&d->holder);
    } else {
        nc->attrs = d->holder.attrs;
        nc->topo = d->holder.topo;
        nc->info = d->holder.info;
    }
    d->publish(c, nc, d->slot);
    free(d);
    return err;
}

int wmpi_comm_idup(wmpi_comm *c,
                   void (*publish)(wmpi_comm *c, wmpi_comm *nc, void *slot),
                   void *slot, wmpi_request **req)
{
    idup *d = calloc(1, sizeof *d);
    int err;

    *req = NULL;
    if (!d)
        return WEFT_ENOMEM;
    d->publish = publish;
    d->slot = slot;
    err = holder_fill(c, &d->holder);
    if (err) {
        free(d);
        return err;
    }
    /* the sequence number is spent even if no thread starts: c's
     * collectives are then out of step, as after any failed one */
    wmpi_coll_begin(&d->k, c);
    err = wmpi_coll_task(c, run, d, req);
    if (err) {
        holder_discard(&d->holder);
        free(d);
    }
    return err;
}
