/* Context ids, this rank's side: the table of id pairs it has free, and
 * who may offer it to a vote. The vote itself, which needs messages, is
 * engine/create/comm_ctx.c; freeing (at a communicator's destruction)
 * needs none, so destruction never reaches up into collectives.
 *
 * Design: a bitmap of WMPI_CTX_NPAIRS pairs (pair p is contexts
 * WMPI_CTX_FIRST + 2p and + 1), all free at first. One allocation at a
 * time "holds" it: its vote carries the bitmap, the others' vote zeros
 * and "not holding", and they retry. The holder is the pending allocation
 * with the lowest key (the parent's context id, then create_group's tag),
 * the same order on every rank, so nobody starves.
 *
 * Invariants: a pair is either in free_mask or owned by one communicator;
 * `held` is set between a holding vote and its settle.
 * Locking: `lock` (a leaf) guards the bitmap, `held`, `in_use` and the
 * pending list.
 */
#include <errno.h>
#include <string.h>

#include "engine/core/internal.h"

static wmpi_lock lock = WMPI_LOCK_INITIALIZER;
static uint64_t free_mask[WMPI_CTX_NWORDS];
static int mask_ready, held, in_use;
static wmpi_ctx_pending *waiting;

static void ready_locked(void)
{
    if (!mask_ready) {
        memset(free_mask, 0xff, sizeof free_mask);
        mask_ready = 1;
    }
}

static int lowest_pending_locked(uint64_t key)
{
    for (wmpi_ctx_pending *p = waiting; p; p = p->next)
        if (p->key < key)
            return 0;
    return 1;
}

static void unlink_pending_locked(wmpi_ctx_pending *me)
{
    for (wmpi_ctx_pending **pp = &waiting; *pp; pp = &(*pp)->next) {
        if (*pp == me) {
            *pp = me->next;
            return;
        }
    }
}

void wmpi_ctx_pending_add(wmpi_ctx_pending *me)
{
    wmpi_lock_take(&lock);
    me->next = waiting;
    waiting = me;
    wmpi_lock_release(&lock);
}

void wmpi_ctx_pending_remove(wmpi_ctx_pending *me)
{
    wmpi_lock_take(&lock);
    unlink_pending_locked(me);
    wmpi_lock_release(&lock);
}

int wmpi_ctx_vote(const wmpi_ctx_pending *me, uint64_t *v)
{
    int mine;

    wmpi_lock_take(&lock);
    ready_locked();
    mine = !held && lowest_pending_locked(me->key);
    if (mine) {
        held = 1;
        memcpy(v, free_mask, sizeof free_mask);
    } else {
        memset(v, 0, sizeof free_mask);
    }
    v[WMPI_CTX_NWORDS] = mine ? ~(uint64_t)0 : 0;
    wmpi_lock_release(&lock);
    return mine;
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

int wmpi_ctx_settle(int mine, const uint64_t *result, int npairs)
{
    int p = -1;

    wmpi_lock_take(&lock);
    if (mine && result[WMPI_CTX_NWORDS]) {
        p = first_run(result, npairs);
        if (p >= 0) {
            set_pairs_locked(p, npairs, 0);
            in_use += npairs;
        } else {
            p = -ENOSPC;
        }
    }
    if (mine)
        held = 0;
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
