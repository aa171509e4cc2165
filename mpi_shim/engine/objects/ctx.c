/* Context ids, this rank's side: the table of id pairs it has free, and
 * which allocation may offer which part of it to a vote. The vote itself,
 * which needs messages, is engine/create/comm_ctx.c; freeing (at a
 * communicator's destruction) needs none, so destruction never reaches up
 * into collectives.
 *
 * Design (MPICH's multi-threaded protocol): a bitmap of WMPI_CTX_NPAIRS
 * pairs (pair p is contexts WMPI_CTX_FIRST + 2p and + 1), all free at
 * first, in two segments. An allocation's first round may offer the eager
 * segment (the first WMPI_CTX_EAGER_WORDS words), if no other round
 * offers it now; after a first round that fails, the allocation is listed
 * and each later round may offer the main segment (plus the eager one if
 * free), if no other round offers it and no listed allocation has a lower
 * key (the parent's context id, then create_group's tag: the same order on
 * every rank). What a round does not offer it votes as zeros, so two
 * rounds on one rank never both take a pair.
 *
 * Why listed only after a first round: a round that holds a segment
 * blocks until every member of its parent has voted, and a member may be
 * late for as long as its program likes (a thread waiting for a lock of
 * the program's, held by a thread whose own allocation needs the
 * segment). A failed round has heard from every member, so every listed
 * allocation's members are all voting, round after round, and nothing
 * waits on anything else: the main segment's holder always finishes its
 * round, and the listed allocation with the lowest key wins on each of its
 * members in turn. A first round that holds the eager segment may block;
 * nobody waits for it, as nobody needs the eager segment. Without
 * contention an allocation takes one round, as before threads mattered.
 *
 * Invariants: a pair is either in free_mask or owned by one
 * communicator; a segment's hold bit is set between a vote that offers it
 * and that round's settle; `listed` allocations are in `waiting`.
 * Locking: `lock` (a leaf) guards the bitmap, the hold bits, `in_use`,
 * the pending list and the entries' fields.
 */
#include <errno.h>
#include <string.h>

#include "engine/core/internal.h"

#define EAGER WMPI_CTX_EAGER_WORDS
#define FLAGS WMPI_CTX_NWORDS
#define BOTH (WMPI_CTX_HOLD_EAGER | WMPI_CTX_HOLD_MAIN)

static wmpi_lock lock = WMPI_LOCK_INITIALIZER;
static uint64_t free_mask[WMPI_CTX_NWORDS];
static unsigned held; /* WMPI_CTX_HOLD_* some round holds */
static int mask_ready, in_use;
static wmpi_ctx_pending *waiting;

static void ready_locked(void)
{
    if (!mask_ready) {
        memset(free_mask, 0xff, sizeof free_mask);
        mask_ready = 1;
    }
}

static int lowest_listed_locked(uint64_t key)
{
    for (wmpi_ctx_pending *p = waiting; p; p = p->next)
        if (p->key < key)
            return 0;
    return 1;
}

static void unlink_locked(wmpi_ctx_pending *me)
{
    for (wmpi_ctx_pending **pp = &waiting; *pp; pp = &(*pp)->next) {
        if (*pp == me) {
            *pp = me->next;
            break;
        }
    }
    me->listed = 0;
}

void wmpi_ctx_pending_remove(wmpi_ctx_pending *me)
{
    wmpi_lock_take(&lock);
    if (me->listed)
        unlink_locked(me);
    wmpi_lock_release(&lock);
}

/* The segments me may take now. */
static unsigned may_hold_locked(const wmpi_ctx_pending *me)
{
    unsigned eager = held & WMPI_CTX_HOLD_EAGER ? 0 : WMPI_CTX_HOLD_EAGER;

    if (me->rounds == 0)
        return eager;
    if ((held & WMPI_CTX_HOLD_MAIN) || !lowest_listed_locked(me->key))
        return 0;
    return WMPI_CTX_HOLD_MAIN | eager;
}

void wmpi_ctx_vote(wmpi_ctx_pending *me, uint64_t *v)
{
    wmpi_lock_take(&lock);
    ready_locked();
    me->held = may_hold_locked(me);
    held |= me->held;
    memset(v, 0, WMPI_CTX_NWORDS * sizeof *v);
    if (me->held & WMPI_CTX_HOLD_EAGER)
        memcpy(v, free_mask, EAGER * sizeof *v);
    if (me->held & WMPI_CTX_HOLD_MAIN)
        memcpy(v + EAGER, free_mask + EAGER, (WMPI_CTX_NWORDS - EAGER) * sizeof *v);
    v[FLAGS] = me->held;
    wmpi_lock_release(&lock);
}

static int bit(const uint64_t *m, int p)
{
    return (int)((m[p / 64] >> (p % 64)) & 1);
}

/* First p such that pairs p..p+n-1 are free in m, or -1. */
static int first_run(const uint64_t *m, int n)
{
    for (int p = 0, run = 0; p < WMPI_CTX_NPAIRS; p++) {
        run = bit(m, p) ? run + 1 : 0;
        if (run == n)
            return p - n + 1;
    }
    return -1;
}

static void set_pairs_locked(int p, int n, int free_them)
{
    for (int i = p; i < p + n; i++) {
        if (free_them)
            free_mask[i / 64] |= (uint64_t)1 << (i % 64);
        else
            free_mask[i / 64] &= ~((uint64_t)1 << (i % 64));
    }
}

/* The result's bits are zero outside the segments every member offered,
 * and those this rank held through the round: a run found is free here. */
int wmpi_ctx_settle(wmpi_ctx_pending *me, const uint64_t *result, int npairs)
{
    int p = me->held ? first_run(result, npairs) : -1;

    wmpi_lock_take(&lock);
    if (p >= 0) {
        set_pairs_locked(p, npairs, 0);
        in_use += npairs;
    } else if ((result[FLAGS] & BOTH) == BOTH) {
        p = -ENOSPC;
    } else if (me->rounds == 0) {
        me->next = waiting;
        waiting = me;
        me->listed = 1;
    }
    if (p != -1 && me->listed) /* done: let the next key hold */
        unlink_locked(me);
    held &= ~me->held;
    me->held = 0;
    me->rounds++;
    wmpi_lock_release(&lock);
    return p;
}

void wmpi_ctx_free(uint32_t ctx, int npairs)
{
    int p = (int)(ctx - WMPI_CTX_FIRST) / 2;

    if (ctx < WMPI_CTX_FIRST || npairs <= 0)
        return;
    wmpi_lock_take(&lock);
    set_pairs_locked(p, npairs, 1);
    in_use -= npairs;
    wmpi_lock_release(&lock);
}

int wmpi_ctx_in_use(void)
{
    int n;

    wmpi_lock_take(&lock);
    n = in_use;
    wmpi_lock_release(&lock);
    return n;
}
