/* Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge and
 * MPI_Comm_dup (and the core of MPI_Comm_idup) of an intercommunicator.
 *
 * Design: an intercommunicator is a communicator whose point-to-point
 * ranks name the *remote* group: its `world` map is the remote group's,
 * `remote_size` its size, while rank, size and group stay the local
 * group's (what MPI_Comm_rank/size report). So the point-to-point path
 * needs no special case: a send maps its destination through `world`
 * (the remote group), and the envelope carries the sender's local rank,
 * which is exactly the source the receiver's side expects. It owns two
 * context id pairs: ctx/ctx + 1 for the traffic between the groups (the
 * leaders' exchanges use ctx + 1), ctx + 2/+ 3 for `local`, an internal
 * intracommunicator of the local group for the collectives each group
 * runs inside itself (merge, dup).
 *
 * The two groups agree on things through their leaders: each group votes
 * internally, the leaders swap the results (over the peer communicator
 * with the user's tag at creation, over ctx + 1 later) and each leader
 * broadcasts the combined answer to its group; inside an intercommunicator
 * the leaders' messages carry the tag of a collective call taken on it,
 * so they keep apart from its collectives'. Context ids use the same
 * vote as intracommunicators (comm_ctx.c) with the leaders' swap as its
 * bridge, so the id is free on every member of both groups.
 *
 * Rejected: a context id per direction (MPICH's recvcontext/sendcontext)
 * — one agreed id for both groups is simpler and, with the bridge, as
 * safe.
 * Invariants: local and remote groups are disjoint; local->group ==
 * group.
 * Locking: none of their own; messages block the caller only.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/comm.h"
#include "engine/objects/info.h"
#include "engine/core/internal.h"

extern wmpi_datatype wmpi_dt_int, wmpi_dt_uint64;

/* How a group's leader reaches the other group's leader. */
typedef struct link {
    wmpi_comm *via;
    uint32_t ctx;
    int peer;  /* rank of the other leader in `via` */
    int tag;
} link;

/* Send `mine` (count elements of dt) and receive `theirs` (rcount) over
 * l. */
static int swap_n(const link *l, const void *mine, int count, void *theirs,
                  int rcount, wmpi_datatype *dt)
{
    wmpi_request *rq[2] = { NULL, NULL };
    wmpi_status st[2] = { { 0 }, { 0 } };
    int err;

    err = wmpi_irecv_ctx(theirs, rcount, dt, l->peer, l->tag, l->via, l->ctx, &rq[0]);
    if (!err)
        err = wmpi_isend_ctx(mine, count, dt, l->peer, l->tag, l->via, l->ctx,
                             WMPI_MODE_STANDARD, &rq[1]);
    if (!err)
        err = wmpi_wait_requests(rq, 2, 2);
    for (int i = 0; i < 2; i++) {
        if (rq[i] && wmpi_request_done(rq[i]))
            wmpi_request_finish(rq[i], &st[i]);
        else if (rq[i])
            wmpi_request_free(rq[i]);
    }
    if (!err)
        err = st[0].error ? st[0].error : st[1].error;
    return err;
}

static int swap(const link *l, const void *mine, void *theirs, int count,
                wmpi_datatype *dt)
{
    return swap_n(l, mine, count, theirs, count, dt);
}

static int and_remote(void *arg, uint64_t *mask, int n)
{
    uint64_t *theirs = malloc((size_t)n * sizeof *theirs);
    int err;

    if (!theirs)
        return WEFT_ENOMEM;
    err = swap(arg, mask, theirs, n, &wmpi_dt_uint64);
    for (int i = 0; !err && i < n; i++)
        mask[i] &= theirs[i];
    free(theirs);
    return err;
}

/* A new intercommunicator of groups `lg` (ours) and `rg` on `ctx`, with
 * its local intracommunicator. */
static int build_inter(wmpi_group *lg, wmpi_group *rg, uint32_t ctx,
                       wmpi_comm **out)
{
    wmpi_comm *c;
    int err = wmpi_comm_build(lg, ctx, 2, &c);

    *out = NULL;
    if (err)
        return err;
    err = wmpi_comm_build(lg, ctx + 2, 0, &c->local);
    if (err) {
        wmpi_comm_release(c);
        return err;
    }
    wmpi_group_retain(rg);
    c->remote = rg;
    c->remote_size = rg->size;
    c->world = rg->world;
    *out = c;
    return 0;
}

/* ---------------------------------------------------------------- create */

/* The leaders swap their groups' world ranks; every member gets the
 * remote group. */
static int learn_remote(wmpi_comm *local, int leader, const link *l,
                        wmpi_group **remote)
{
    int n = 0, err = 0, *w = NULL;

    *remote = NULL;
    if (local->rank == leader)
        err = swap(l, &local->size, &n, 1, &wmpi_dt_int);
    if (local->rank == leader && !err && !(w = malloc((size_t)n * sizeof *w)))
        err = WEFT_ENOMEM;
    if (local->rank == leader && !err)
        err = swap_n(l, local->group->world, local->size, w, n, &wmpi_dt_int);
    if (local->rank == leader && err)
        n = -1; /* tell the others */
    if (!err || local->rank == leader) {
        int e = wmpi_bcast(&n, 1, &wmpi_dt_int, leader, local);
        err = err ? err : e;
    }
    if (!err && n < 0)
        err = -ECONNABORTED;
    if (!err && local->rank != leader && !(w = malloc((size_t)n * sizeof *w)))
        err = WEFT_ENOMEM;
    if (!err)
        err = wmpi_bcast(w, n, &wmpi_dt_int, leader, local);
    if (!err)
        err = wmpi_group_new(n, w, remote);
    free(w);
    return err;
}

int wmpi_intercomm_create(wmpi_comm *local, int local_leader, wmpi_comm *peer,
                          int remote_leader, int tag, wmpi_comm **out)
{
    link l = { peer, peer ? peer->ctx : 0, remote_leader, tag };
    wmpi_ctx_bridge b = { and_remote, &l, local_leader };
    wmpi_group *rg;
    uint32_t ctx;
    int err;

    *out = NULL;
    err = learn_remote(local, local_leader, &l, &rg);
    if (err)
        return err;
    for (int i = 0; i < rg->size && !err; i++)
        if (wmpi_group_rank_of(local->group, rg->world[i]) != WMPI_UNDEFINED)
            err = WEFT_EINVAL;
    if (!err)
        err = wmpi_ctx_alloc(local, 2, &b, &ctx);
    if (!err) {
        err = build_inter(local->group, rg, ctx, out);
        if (err)
            wmpi_ctx_free(ctx, 2);
    }
    wmpi_group_release(rg);
    return err;
}

/* ----------------------------------------------------------- dup, merge */

/* The leaders' link inside an intercommunicator (local rank 0 to remote
 * rank 0, on the inter-group collective context) under the tag of a
 * collective call k took on it, so that it never meets a collective's
 * messages. */
static link leaders(const wmpi_coll_call *k)
{
    return (link){ k->c, k->ctx, 0, wmpi_coll_tag(k, 0) };
}

int wmpi_intercomm_make(const wmpi_coll_call *k, uint64_t key, wmpi_group *lg,
                        wmpi_group *rg, wmpi_comm **out)
{
    link l = leaders(k);
    wmpi_ctx_bridge b = { and_remote, &l, 0 };
    wmpi_coll_call kl = wmpi_coll_local(k);
    uint32_t ctx;
    int err;

    *out = NULL;
    err = wmpi_ctx_alloc_in(&kl, 2, &b, key, &ctx);
    if (err)
        return err;
    if (lg && rg)
        err = build_inter(lg, rg, ctx, out);
    if (!*out) /* not a member, or no memory: give the ids back */
        wmpi_ctx_free(ctx, 2);
    return err;
}

int wmpi_intercomm_dup_bare(const wmpi_coll_call *k, uint64_t key,
                            wmpi_comm **out)
{
    return wmpi_intercomm_make(k, key, k->c->group, k->c->remote, out);
}

int wmpi_intercomm_dup(wmpi_comm *inter, struct wmpi_info *info,
                       wmpi_comm **out)
{
    wmpi_coll_call k;
    wmpi_comm *nc;
    int err;

    *out = NULL;
    wmpi_coll_begin(&k, inter);
    err = wmpi_intercomm_dup_bare(&k, (uint64_t)inter->local->ctx << 32, &nc);
    if (err)
        return err;
    if (info)
        err = wmpi_info_dup(info, &nc->info);
    if (!err)
        err = wmpi_attr_copy_all(inter, nc);
    if (err) {
        wmpi_attr_delete_all(nc);
        wmpi_comm_release(nc);
        return err;
    }
    *out = nc;
    return 0;
}

/* Does our group go first in the merged order? By `high` (low first);
 * on a tie, the group whose leader has the lower world rank. */
static int decide_order(wmpi_comm *inter, const link *lk, int high, int *first)
{
    const link *l = lk;
    int mine[2] = { high != 0, inter->group->world[0] }, theirs[2] = { 0, 0 };
    int err = 0;

    if (inter->rank == 0)
        err = swap(l, mine, theirs, 2, &wmpi_dt_int);
    if (inter->rank == 0 && err)
        theirs[1] = -1; /* tell the others */
    if (!err || inter->rank == 0) {
        int e = wmpi_bcast(theirs, 2, &wmpi_dt_int, 0, inter->local);
        err = err ? err : e;
    }
    if (!err && theirs[1] < 0)
        err = -ECONNABORTED;
    *first = mine[0] != theirs[0] ? mine[0] < theirs[0] : mine[1] < theirs[1];
    return err;
}

int wmpi_intercomm_merge(wmpi_comm *inter, int high, wmpi_comm **out)
{
    wmpi_coll_call k;
    link l;
    wmpi_ctx_bridge b = { and_remote, &l, 0 };
    wmpi_group *lo, *hi, *all = NULL;
    uint32_t ctx;
    int first = 0, err;

    *out = NULL;
    wmpi_coll_begin(&k, inter);
    l = leaders(&k);
    err = decide_order(inter, &l, high, &first);
    if (err)
        return err;
    lo = first ? inter->group : inter->remote;
    hi = first ? inter->remote : inter->group;
    err = wmpi_group_union(lo, hi, &all);
    if (!err)
        err = wmpi_ctx_alloc(inter->local, 1, &b, &ctx);
    if (!err) {
        err = wmpi_comm_build(all, ctx, 1, out);
        if (err)
            wmpi_ctx_free(ctx, 1);
    }
    wmpi_group_release(all);
    return err;
}
