/* Blocking barrier, broadcast, reduce, allreduce, allgather and alltoall
 * through shared memory, for communicators whose ranks all share this
 * host: each member publishes its part in its own collective slot
 * (transport/shm_slots.h) and reads the others' where they lie, instead
 * of sending messages.
 *
 * Design (Open MPI's coll/sm and MPICH's release/gather collectives work
 * alike). A slot's counters only grow: collective number n on the
 * communicator (counted from 1 by each member, in call order, which MPI
 * makes the same everywhere) is "member i arrived" once i's `arrive`
 * reaches base_i + n, and "i is done reading" once its `done` does, base_i
 * being i's `done` when the communicator first used the slot. So:
 *   barrier    every member but the first stores arrive = done = n,
 *              telling the first, and waits for the first to arrive; the
 *              first waits until every other member arrived, then
 *              arrives, telling everyone (gather, then release: each
 *              arrival wakes one member, not all those already waiting);
 *   bcast      the root waits until every member is done with n - 1 (so
 *              none still reads its data area), packs the buffer into it
 *              and arrives; the others wait for the root, unpack, and are
 *              done;
 *   reduce,    every member waits until the others are done with n - 1,
 *   allreduce  copies its contribution into its data area and arrives;
 *              the reducing ranks wait for everyone and combine the data
 *              areas in rank order from the highest down (one order on
 *              every rank: allreduce gives bit-identical results, and a
 *              non-commutative op the rank-order result);
 *   allgather, every member waits until the others are done with n - 1,
 *   alltoall   packs its block (alltoall: its block for each member, in
 *              member order) into its data area and arrives, waits for
 *              everyone, and unpacks its block from each.
 * A wait checks the counters in the calling thread for a few rounds, then
 * hands itself to the I/O server like any MPI wait (wmpi_block): it polls
 * while a worker spins and sleeps on the doorbell otherwise, which every
 * store a peer may wait for rings (wmpi_shm_slots_published). A member
 * that dies ends the wait with -ECONNRESET.
 *
 * Which calls: blocking ones only (a nonblocking collective runs its
 * message schedule in a thread of its own, coll_run.c, and may overlap
 * others on the communicator, which one slot cannot serve); intra-
 * communicators with ctx / 2 below WMPI_SHM_SLOTS; up to
 * WMPI_SHM_SLOT_DATA bytes per member's data area (alltoall: all its
 * blocks together); reductions on a contiguous datatype (every
 * member passes the same one, so all decide alike). The first such call
 * on a communicator has the members trade their bases and whether they
 * reach every other member through shared memory (a message all-gather);
 * if one does not, the communicator keeps its message schedules for good.
 * WEFT_MPI_SHM_COLL=0 turns the whole path off (every rank must agree:
 * mpirun forwards the environment).
 *
 * A slot passes to a new communicator when the old one is freed and its
 * context id reused. A member of the old one may still be reading this
 * rank's data area then (MPI_Comm_free does not wait for anyone), so the
 * new communicator's first call waits until every old member is done with
 * the old communicator's last collective.
 *
 * Invariants: a slot is used by the communicator recorded in `uses`
 * (its owner) only; a rank's arrive never exceeds its done between calls.
 * Locking: none. A communicator's blocking collectives are serialised by
 * MPI's rules; `uses[s]` changes hands only through a context id's free
 * and reuse, which ctx.c's lock orders.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"
#include "transport/shm_slots.h"

#define SPINS 64        /* checks in the caller before handing the wait over */
#define SETUP_STEP 512  /* tag steps of the first call's all-gather */

/* This rank's record of a slot and the communicator using it. */
typedef struct slot_use {
    const wmpi_comm *owner; /* NULL once freed (its members may still read) */
    int off;                /* the members could not all use the slot */
    int n, me;              /* members, and this rank among them */
    int *world;             /* [n] world ranks */
    wmpi_shm_slot **s;      /* [n] each member's slot */
    uint64_t *base;         /* [n] */
    uint64_t count;         /* collectives run through the slot */
} slot_use;

static slot_use uses[WMPI_SHM_SLOTS];

enum { ARRIVE, DONE };

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* --------------------------------------------------------------- waiting */

typedef struct slot_wait {
    const slot_use *u;
    int field;      /* ARRIVE or DONE */
    uint64_t n;     /* wait until base_i + n */
    int only;       /* the one member waited for, or -1: every other one */
    int gone;       /* a member waited for died */
} slot_wait;

static int reached(const slot_use *u, int i, int field, uint64_t n)
{
    const uint64_t *w = field == ARRIVE ? &u->s[i]->arrive : &u->s[i]->done;

    return __atomic_load_n(w, __ATOMIC_ACQUIRE) >= u->base[i] + n;
}

static int wait_ready(void *arg)
{
    slot_wait *w = arg;
    const slot_use *u = w->u;

    for (int i = 0; i < u->n; i++) {
        if (i == u->me || (w->only >= 0 && i != w->only) || reached(u, i, w->field, w->n))
            continue;
        if (wmpi_shm_rank_gone(wmpi_route_shm(), u->world[i])) {
            w->gone = 1;
            return 1;
        }
        return 0;
    }
    return 1;
}

static int wait_for(const slot_use *u, int field, uint64_t n, int only)
{
    slot_wait w = { .u = u, .field = field, .n = n, .only = only };
    int err = 0;

    if (n == 0)
        return 0;
    for (int i = 0; i < SPINS && !wait_ready(&w); i++)
        relax();
    if (!wait_ready(&w)) {
        wmpi_waiter wt = { .kind = WMPI_WAIT_COND, .cond = wait_ready, .arg = &w };
        err = wmpi_block(&wt);
    }
    return err ? err : w.gone ? -ECONNRESET : 0;
}

/* Store this rank's counters for collective n (what is asked), then
 * announce them to member `only`, or to every member if it is -1. */
static void store_for(const slot_use *u, uint64_t n, int arrive, int done, int only)
{
    wmpi_shm_slot *mine = u->s[u->me];

    if (done)
        __atomic_store_n(&mine->done, u->base[u->me] + n, __ATOMIC_RELEASE);
    if (arrive)
        __atomic_store_n(&mine->arrive, u->base[u->me] + n, __ATOMIC_RELEASE);
    if (only < 0)
        wmpi_shm_slots_published(wmpi_route_shm(), u->world, u->n);
    else
        wmpi_shm_slots_published(wmpi_route_shm(), &u->world[only], 1);
}

static void store(const slot_use *u, uint64_t n, int arrive, int done)
{
    store_for(u, n, arrive, done, -1);
}

/* ---------------------------------------------------------------- set-up */

static void forget_members(slot_use *u)
{
    free(u->world);
    free(u->s);
    free(u->base);
    u->world = NULL;
    u->s = NULL;
    u->base = NULL;
    u->n = 0;
    u->count = 0;
}

/* The slot's previous communicator was freed: wait until its members are
 * done with its last collective, then forget them. */
static int drain(slot_use *u)
{
    int err = wait_for(u, DONE, u->count, -1);

    forget_members(u);
    return err;
}

static int enabled(void)
{
    static int on = -1;
    int v = __atomic_load_n(&on, __ATOMIC_RELAXED);

    if (v < 0) {
        const char *e = getenv("WEFT_MPI_SHM_COLL");
        v = !(e && strcmp(e, "0") == 0);
        __atomic_store_n(&on, v, __ATOMIC_RELAXED);
    }
    return v;
}

static int members(slot_use *u, wmpi_comm *c, int slot)
{
    wmpi_transport *t = wmpi_route_shm();
    int ok = 1;

    u->n = c->size;
    u->me = c->rank;
    u->world = malloc((size_t)u->n * sizeof *u->world);
    u->s = malloc((size_t)u->n * sizeof *u->s);
    u->base = malloc((size_t)u->n * sizeof *u->base);
    if (!u->world || !u->s || !u->base)
        return -1;
    for (int i = 0; i < u->n; i++) {
        u->world[i] = wmpi_comm_world_rank(c, i);
        u->s[i] = wmpi_shm_slot_of(t, u->world[i], slot);
        ok &= u->s[i] != NULL;
    }
    return ok ? 0 : -1;
}

/* The members trade whether they can use the slot and their bases. */
static int agree(slot_use *u, const wmpi_coll_call *k, int ok)
{
    uint64_t card[2] = { (uint64_t)ok, 0 }, *cards;
    wmpi_coll_call k2 = *k;
    int err;

    if (ok)
        card[1] = __atomic_load_n(&u->s[u->me]->done, __ATOMIC_RELAXED);
    cards = malloc((size_t)k->size * sizeof card);
    if (!cards)
        return WEFT_ENOMEM;
    k2.step_base = SETUP_STEP;
    wmpi_coll_args a = { .sbuf = card, .scount = (int)sizeof card, .sdt = &wmpi_dt_byte,
                         .rbuf = cards, .rcount = (int)sizeof card, .rdt = &wmpi_dt_byte };
    err = wmpi_coll_allgather_run(&k2, &a);
    for (int i = 0; !err && i < k->size; i++) {
        ok &= cards[2 * i] != 0;
        u->base[i] = cards[2 * i + 1];
    }
    free(cards);
    u->off = err || !ok;
    return err;
}

/* The slot of c, set up on first use; NULL (and *err) if c keeps its
 * message schedules. */
static slot_use *use_of(const wmpi_coll_call *k, int *err)
{
    wmpi_comm *c = k->c;
    int slot = (int)(c->ctx / 2);

    *err = 0;
    if (c->remote_size || c->size < 2 || slot >= WMPI_SHM_SLOTS || !wmpi_route_shm() ||
        !enabled())
        return NULL;
    slot_use *u = &uses[slot];
    if (u->owner == c)
        return u->off ? NULL : u;
    if (u->count)
        *err = drain(u);
    forget_members(u);
    u->owner = c;
    u->off = 1;
    int ok = members(u, c, slot) == 0;
    if (!*err && (u->world && u->s && u->base))
        *err = agree(u, k, ok);
    else if (!*err)
        *err = WEFT_ENOMEM;
    return *err || u->off ? NULL : u;
}

void wmpi_coll_shm_forget(const wmpi_comm *c)
{
    int slot = (int)(c->ctx / 2);

    if (slot < WMPI_SHM_SLOTS && uses[slot].owner == c)
        uses[slot].owner = NULL;
}

void wmpi_coll_shm_fini(void)
{
    for (int s = 0; s < WMPI_SHM_SLOTS; s++) {
        forget_members(&uses[s]);
        uses[s].owner = NULL;
        uses[s].off = 0;
    }
}

/* ------------------------------------------------------------ the kinds */

/* Member 0 releases the others even if a member died (it returns the
 * error): they wait for it alone and would never learn. */
static int barrier(const slot_use *u, uint64_t n)
{
    if (u->me != 0) {
        store_for(u, n, 1, 1, 0);
        return wait_for(u, ARRIVE, n, 0);
    }
    int err = wait_for(u, ARRIVE, n, -1);
    store(u, n, 1, 1);
    return err;
}

static int bcast(const slot_use *u, uint64_t n, const wmpi_coll_args *a)
{
    wmpi_shm_slot *root = u->s[a->root];
    int err;

    if (u->me == a->root) {
        err = wait_for(u, DONE, n - 1, -1);
        if (!err && wmpi_datatype_pack(a->rdt, a->rcount, a->rbuf, root->data) < 0)
            err = WEFT_EINVAL;
        store(u, n, 1, 1);
        return err;
    }
    err = wait_for(u, ARRIVE, n, a->root);
    if (!err && wmpi_datatype_unpack(a->rdt, a->rcount, root->data, a->rbuf) < 0)
        err = WEFT_EINVAL;
    store(u, n, 0, 1);
    return err;
}

/* rbuf = data_0 op (data_1 op (... op data_last)). */
static int combine(const slot_use *u, const wmpi_coll_args *a, size_t bytes)
{
    int err = 0;

    if (bytes == 0) /* the buffers may be NULL */
        return 0;
    memcpy(a->rbuf, u->s[u->n - 1]->data, bytes);
    for (int i = u->n - 2; i >= 0 && !err; i--)
        err = wmpi_coll_reduce_local(a->op, u->s[i]->data, a->rbuf, a->count, a->dt);
    return err;
}

/* Reduce (reducer: the root) or allreduce (reducer: -1, everyone). */
static int reduce(const slot_use *u, uint64_t n, const wmpi_coll_args *a, size_t bytes,
                  int reducer)
{
    const void *mine = a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    int reduces = reducer < 0 || u->me == reducer;
    int err = wait_for(u, DONE, n - 1, -1);

    if (!err && bytes)
        memcpy(u->s[u->me]->data, mine, bytes);
    if (!reduces) {
        store(u, n, 1, 1);
        return err;
    }
    store(u, n, 1, 0);
    if (!err)
        err = wait_for(u, ARRIVE, n, -1);
    if (!err)
        err = combine(u, a, bytes);
    store(u, n, 0, 1);
    return err;
}

/* ------------------------------------------------- allgather, alltoall */

/* Pack `count` elements of dt at buf into dst; WEFT_EINVAL if it fails. */
static int pack_into(void *dst, const wmpi_datatype *dt, int64_t count, const void *buf)
{
    return wmpi_datatype_pack(dt, count, buf, dst) < 0 ? WEFT_EINVAL : 0;
}

static int unpack_from(const void *src, const wmpi_datatype *dt, int64_t count, void *buf)
{
    return wmpi_datatype_unpack(dt, count, src, buf) < 0 ? WEFT_EINVAL : 0;
}

/* Block j of a buffer of blocks of `count` elements of dt. */
static void *block(const void *buf, int j, int64_t count, const wmpi_datatype *dt)
{
    return wmpi_coll_at(buf, (int64_t)j * count, dt);
}

/* This rank's part into its data area: its block (allgather), or its
 * block for each member j at j * blk (alltoall). In place, the blocks are
 * in rbuf, laid out as received. */
static int put_blocks(const slot_use *u, int kind, const wmpi_coll_args *a, size_t blk)
{
    unsigned char *mine = u->s[u->me]->data;
    int in_place = a->sbuf == WMPI_IN_PLACE, err = 0;

    if (kind == WMPI_COLL_ALLGATHER)
        return in_place ? pack_into(mine, a->rdt, a->rcount, block(a->rbuf, u->me, a->rcount, a->rdt))
                        : pack_into(mine, a->sdt, a->scount, a->sbuf);
    for (int j = 0; j < u->n && !err; j++)
        err = in_place ? pack_into(mine + j * blk, a->rdt, a->rcount, block(a->rbuf, j, a->rcount, a->rdt))
                       : pack_into(mine + j * blk, a->sdt, a->scount, block(a->sbuf, j, a->scount, a->sdt));
    return err;
}

/* Every member's block for this rank into rbuf, block i from member i. */
static int take_blocks(const slot_use *u, int kind, const wmpi_coll_args *a, size_t blk)
{
    size_t at = kind == WMPI_COLL_ALLGATHER ? 0 : (size_t)u->me * blk;
    int err = 0;

    for (int i = 0; i < u->n && !err; i++)
        if (i != u->me || a->sbuf != WMPI_IN_PLACE || kind != WMPI_COLL_ALLGATHER)
            err = unpack_from(u->s[i]->data + at, a->rdt, a->rcount,
                              block(a->rbuf, i, a->rcount, a->rdt));
    return err;
}

/* Allgather and alltoall: every member publishes its blocks, then reads
 * its own from everyone. blk: bytes of one block. */
static int exchange(const slot_use *u, uint64_t n, int kind, const wmpi_coll_args *a, size_t blk)
{
    int err = wait_for(u, DONE, n - 1, -1);

    if (!err && blk)
        err = put_blocks(u, kind, a, blk);
    store(u, n, 1, 0);
    if (!err)
        err = wait_for(u, ARRIVE, n, -1);
    if (!err && blk)
        err = take_blocks(u, kind, a, blk);
    store(u, n, 0, 1);
    return err;
}

/* count elements of dt if they fit a slot's data area, else -1. */
static int64_t fits(int64_t count, const wmpi_datatype *dt)
{
    if (count < 0 || (dt->size && (uint64_t)count > WMPI_SHM_SLOT_DATA / dt->size))
        return -1;
    return count * (int64_t)dt->size;
}

/* Bytes the call moves through a slot, or -1 if it keeps its message
 * schedule; every member computes the same. */
static int64_t slot_bytes(int kind, const wmpi_coll_args *a, int size)
{
    switch (kind) {
    case WMPI_COLL_BARRIER:
        return 0;
    case WMPI_COLL_BCAST:
        return fits(a->rcount, a->rdt);
    case WMPI_COLL_REDUCE:
    case WMPI_COLL_ALLREDUCE:
        return wmpi_datatype_is_contig(a->dt) ? fits(a->count, a->dt) : -1;
    case WMPI_COLL_ALLGATHER:
        return fits(a->rcount, a->rdt);
    case WMPI_COLL_ALLTOALL:
        return fits((int64_t)a->rcount * size, a->rdt);
    default:
        return -1;
    }
}

int wmpi_coll_shm_run(int kind, const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int64_t bytes = slot_bytes(kind, a, k->size);
    int err;

    if (bytes < 0)
        return WMPI_COLL_SHM_DECLINED;
    slot_use *u = use_of(k, &err);
    if (!u)
        return err ? err : WMPI_COLL_SHM_DECLINED;
    uint64_t n = ++u->count;
    switch (kind) {
    case WMPI_COLL_BARRIER:
        return barrier(u, n);
    case WMPI_COLL_BCAST:
        return bcast(u, n, a);
    case WMPI_COLL_REDUCE:
        return reduce(u, n, a, (size_t)bytes, a->root);
    case WMPI_COLL_ALLREDUCE:
        return reduce(u, n, a, (size_t)bytes, -1);
    case WMPI_COLL_ALLGATHER:
        return exchange(u, n, kind, a, (size_t)bytes);
    default:
        return exchange(u, n, kind, a, (size_t)bytes / (size_t)k->size);
    }
}
