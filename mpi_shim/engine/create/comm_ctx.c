/* Context ids, the vote: how the members of a new communicator agree on a
 * pair of ids (ctx for point-to-point, ctx + 1 for collectives) that none
 * of them uses. Each rank's table of free pairs, and which allocation may
 * offer which part of it: engine/objects/ctx.c.
 *
 * Design (MPICH's mask algorithm): each rank keeps a bitmap of the id
 * pairs it has free (pair p is contexts WMPI_CTX_FIRST + 2p and + 1). The
 * members vote in rounds: an allreduce (bitwise AND) of their bitmaps over
 * the parent communicator, after which all take the lowest pair (or run of
 * `npairs` pairs) free everywhere. Disjoint communicators made by one
 * split get the same id; that is fine, as no rank belongs to two of them.
 *
 * Threads (MPI_THREAD_MULTIPLE): two allocations running at once on one
 * rank (over different parents) must not both take the same free id, so
 * a round offers only the part of the bitmap no other round on the rank
 * offers, and zeros elsewhere; the members all see the same AND and fail
 * or succeed alike. objects/ctx.c says who may offer what, and why no
 * round ever waits for a member that is busy elsewhere. A round that
 * fails gives the scheduler a turn (weft_thread_yield) and votes again;
 * over a parent of several ranks each round's messages park the caller
 * until every member has voted, so retries go at the pace of the slowest
 * member. A single thread allocating takes one round.
 *
 * A nonblocking creation (MPI_Comm_idup) votes the same way from a thread
 * of its own, its rounds' messages under the collective identity its call
 * took (wmpi_ctx_alloc_in), and is ordered among the rank's allocations by
 * a key of its own, made from that call's sequence number.
 *
 * Ids are released when the communicator object is destroyed (its last
 * reference), not at MPI_Comm_free, so an id is never reused while a
 * request of the old communicator may still match; releasing is local
 * (objects/ctx.c), so destruction sends nothing.
 *
 * Rejected: a global counter (breaks with disjoint groups creating
 * communicators at once); a fixed id per creation sequence number
 * (differs between ranks that created different communicators).
 * Locking: the table's lock (objects/ctx.c) is held only inside its
 * calls; the messages of a vote run without it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/comm.h"
#include "engine/core/internal.h"

#define NWORDS WMPI_CTX_NWORDS


/* How a vote is combined over the members: the parent's allreduce, or
 * (create_group, which only the group's members call) point-to-point
 * messages tagged with the user's tag. */
typedef struct voting {
    int npairs;
    const wmpi_ctx_bridge *bridge;
    int tag;                   /* < 0: collective over c */
    const wmpi_coll_call *k;   /* non-NULL: every round under this call */
} voting;

/* create_group's messages travel on the parent's collective context, so
 * that no receive of the program's on the parent (MPI_ANY_TAG included)
 * takes them, as MPI requires of that tag. The collectives' own tags there
 * are never negative: user tag t becomes -2 - t (never MPI_ANY_TAG's -1;
 * the top tag shares the lowest value with the one below it). */
static int wire_tag(int tag)
{
    return tag >= WMPI_TAG_UB - 1 ? INT_MIN : -2 - tag;
}

/* One blocking message of n words to or from rank `peer` of c. */
static int xfer(wmpi_comm *c, uint64_t *buf, int n, int peer, int tag, int send)
{
    wmpi_request *r = NULL;
    wmpi_status st = { 0 };
    int wt = wire_tag(tag);
    int err = send ? wmpi_isend_ctx(buf, n, &wmpi_dt_uint64, peer, wt, c,
                                    c->ctx + 1, WMPI_MODE_STANDARD, &r)
                   : wmpi_irecv_ctx(buf, n, &wmpi_dt_uint64, peer, wt, c,
                                    c->ctx + 1, &r);

    if (!err)
        err = wmpi_wait_requests(&r, 1, 1);
    if (r && wmpi_request_done(r))
        wmpi_request_finish(r, &st);
    else if (r)
        wmpi_request_free(r);
    return err ? err : st.error;
}

/* AND of every member's v into r through rank 0 (2(n-1) messages: only
 * for create_group, a rare call). */
static int and_by_messages(wmpi_comm *c, uint64_t *v, uint64_t *r, int n, int tag)
{
    uint64_t t[NWORDS + 2];
    int err = 0;

    memcpy(r, v, (size_t)n * sizeof *r);
    if (c->rank != 0) {
        err = xfer(c, v, n, 0, tag, 1);
        return err ? err : xfer(c, r, n, 0, tag, 0);
    }
    for (int p = 1; p < c->size && !err; p++) {
        err = xfer(c, t, n, p, tag, 0);
        for (int i = 0; !err && i < n; i++)
            r[i] &= t[i];
    }
    for (int p = 1; p < c->size && !err; p++)
        err = xfer(c, r, n, p, tag, 1);
    return err;
}

/* A nonblocking creation's rounds run the schedules under the identity
 * its call took on c (so they never take c's sequence numbers late, out
 * of step with the collectives started after it); each round has steps
 * of its own, though non-overtaking would already keep rounds apart. */
static int allreduce_in(const voting *how, int round, uint64_t *v, uint64_t *r)
{
    wmpi_coll_call k = *how->k;
    wmpi_coll_args a = { .sbuf = v, .rbuf = r, .count = NWORDS + 2,
                         .dt = &wmpi_dt_uint64, .op = &wmpi_op_band };

    k.step_base = round * 64;
    return wmpi_coll_allreduce_run(&k, &a);
}

static int bcast_in(const voting *how, int round, uint64_t *r, int root)
{
    wmpi_coll_call k = *how->k;
    wmpi_coll_args a = { .rbuf = r, .rcount = NWORDS + 2,
                         .rdt = &wmpi_dt_uint64, .root = root };

    k.step_base = round * 64 + 32;
    return wmpi_coll_bcast_run(&k, &a);
}

static int combine(wmpi_comm *c, const voting *how, int round, uint64_t *v,
                   uint64_t *r)
{
    if (how->tag >= 0)
        return and_by_messages(c, v, r, NWORDS + 2, how->tag);
    if (how->k)
        return allreduce_in(how, round, v, r);
    return wmpi_allreduce(v, r, NWORDS + 2, &wmpi_dt_uint64, &wmpi_op_band, c);
}

static int spread(wmpi_comm *c, const voting *how, int round, uint64_t *r)
{
    if (how->k)
        return bcast_in(how, round, r, how->bridge->root);
    return wmpi_bcast(r, NWORDS + 2, &wmpi_dt_uint64, how->bridge->root, c);
}

/* One round: vote, AND over the members (and the bridge), settle. The
 * word after the vote tells the members the bridge failed at the root. */
static int round_once(wmpi_comm *c, wmpi_ctx_pending *me, const voting *how,
                      int *pair)
{
    const wmpi_ctx_bridge *bridge = how->bridge;
    uint64_t v[NWORDS + 2], r[NWORDS + 2];
    int round = me->rounds, err;

    wmpi_ctx_vote(me, v);
    v[NWORDS + 1] = 0;
    err = combine(c, how, round, v, r);
    if (!err && bridge) {
        if (c->rank == bridge->root && bridge->fn(bridge->arg, r, NWORDS + 1))
            r[NWORDS + 1] = 1;
        err = spread(c, how, round, r);
        if (!err && r[NWORDS + 1])
            err = -ECONNABORTED;
    }
    if (err)
        memset(r, 0, sizeof r);
    *pair = wmpi_ctx_settle(me, r, how->npairs);
    return err;
}

static int alloc_with(wmpi_comm *c, const voting *how, uint64_t key,
                      uint32_t *ctx)
{
    wmpi_ctx_pending me = { .key = key };
    int pair = -1, err = 0;

    while (!err && pair == -1) {
        err = round_once(c, &me, how, &pair);
        if (!err && pair == -1)
            weft_thread_yield();
    }
    wmpi_ctx_pending_remove(&me);
    if (err)
        return err;
    if (pair < 0)
        return pair;
    *ctx = WMPI_CTX_FIRST + 2u * (uint32_t)pair;
    return 0;
}

int wmpi_ctx_alloc(wmpi_comm *c, int npairs, const wmpi_ctx_bridge *bridge,
                   uint32_t *ctx)
{
    voting how = { npairs, bridge, -1, NULL };

    return alloc_with(c, &how, (uint64_t)c->ctx << 32, ctx);
}

int wmpi_ctx_alloc_tagged(wmpi_comm *c, int tag, uint32_t *ctx)
{
    voting how = { 1, NULL, tag, NULL };

    /* tag + 1: apart from a dup of c, whose key is c's context alone */
    return alloc_with(c, &how, ((uint64_t)c->ctx << 32) | ((uint32_t)tag + 1u), ctx);
}

/* Keys of nonblocking creations: above create_group's (tag + 1 <=
 * 2^31), apart from each other by the call's sequence number, which every
 * member took in the same order. */
uint64_t wmpi_ctx_key_nonblocking(const wmpi_comm *parent, uint32_t seq)
{
    return ((uint64_t)parent->ctx << 32) | (0x80000001u + seq % 0x7ffffffeu);
}

int wmpi_ctx_alloc_in(const wmpi_coll_call *k, int npairs,
                      const wmpi_ctx_bridge *bridge, uint64_t key, uint32_t *ctx)
{
    voting how = { npairs, bridge, -1, k };

    return alloc_with(k->c, &how, key, ctx);
}
