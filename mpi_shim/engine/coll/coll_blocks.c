/* Rabenseifner's phases, shared by the long reductions (allreduce and
 * reduce): the pairing that turns any rank count into a power of two, a
 * reduce-scatter by recursive halving, and the gathers of its blocks.
 *
 * Design. Ranks are renumbered from a root (v = rank - root mod n; the
 * root is 0 for allreduce). With p = 2^floor(log2 n) and rem = n - p, the
 * pairs (2i, 2i+1) for i < rem fold into one survivor each (the odd one
 * for allreduce, which keeps every survivor's range of ranks contiguous
 * and ordered; the even one for reduce, so that the root, v = 0, is
 * survivor 0); v >= 2 rem are survivors i = v - rem. The vector of
 * `count` elements is cut into p blocks (sizes differ by at most one).
 *  - Halving: in round j (mask p/2, p/4, ... 1), each survivor sends the
 *    half of its current window of blocks that its partner (index ^ mask)
 *    keeps, receives the half it keeps, and reduces it in: after log2 p
 *    rounds survivor i holds block i of the whole reduction, each having
 *    sent and received (p-1)/p of the vector.
 *  - Gather to all (recursive doubling, windows doubling each round) or to
 *    survivor 0 (a binomial tree over the same windows): (p-1)/p of the
 *    vector again.
 * Commutative ops only: blocks are combined in partner order, not rank
 * order.
 *
 * Rejected: a ring reduce-scatter/allgather (same volume, 2 (p-1) rounds
 * instead of 2 log2 p: latency-bound at our sizes).
 * Invariants: partners always share a window; block boundaries depend
 * only on count and p, so every rank computes the same ones.
 * Locking: none (messages through coll_util.c).
 */
#include "engine/coll/coll_impl.h"

#define STEP_HALVING 1
#define STEP_GATHER 40

void wmpi_coll_pairs_init(wmpi_coll_pairs *s, int n, int root, int keep_odd)
{
    s->n = n;
    s->p = wmpi_coll_pof2(n);
    s->rem = n - s->p;
    s->root = root;
    s->keep_odd = keep_odd;
}

int wmpi_coll_pairs_rank(const wmpi_coll_pairs *s, int i)
{
    int v = i < s->rem ? 2 * i + (s->keep_odd ? 1 : 0) : i + s->rem;

    return (v + s->root) % s->n;
}

int wmpi_coll_pairs_index(const wmpi_coll_pairs *s, int rank)
{
    int v = (rank - s->root + s->n) % s->n;

    if (v >= 2 * s->rem)
        return v - s->rem;
    return (v % 2 == 1) == (s->keep_odd != 0) ? v / 2 : -1;
}

int wmpi_coll_pairs_partner(const wmpi_coll_pairs *s, int rank)
{
    int v = (rank - s->root + s->n) % s->n;

    if (v >= 2 * s->rem)
        return WMPI_PROC_NULL;
    return ((v ^ 1) + s->root) % s->n;
}

/* Block b of p blocks of `count` elements: first element and length. */
static void block(int64_t count, int p, int b, int64_t *at, int64_t *len)
{
    int64_t base = count / p, extra = count % p;

    *at = b * base + (b < extra ? b : extra);
    *len = base + (b < extra);
}

/* Blocks [lo, hi): first element and length. */
static void window(int64_t count, int p, int lo, int hi, int64_t *at, int64_t *len)
{
    int64_t end, l;

    block(count, p, lo, at, &l);
    block(count, p, hi - 1, &end, &l);
    *len = end + l - *at;
}

int wmpi_coll_halving(const wmpi_coll_call *k, const wmpi_coll_args *a, char *acc,
                      char *in, int me, const wmpi_coll_pairs *s)
{
    int lo = 0, hi = s->p, err = 0, step = STEP_HALVING;
    int64_t sa, sl, ra, rl;

    for (int mask = s->p / 2; mask > 0 && !err; mask /= 2, step++) {
        int peer = wmpi_coll_pairs_rank(s, me ^ mask), mid = lo + (hi - lo) / 2;
        int upper = (me & mask) != 0;
        window(a->count, s->p, upper ? lo : mid, upper ? mid : hi, &sa, &sl);
        window(a->count, s->p, upper ? mid : lo, upper ? hi : mid, &ra, &rl);
        err = wmpi_coll_sendrecv(k, step, wmpi_coll_at(acc, sa, a->dt), sl, a->dt, peer,
                                 wmpi_coll_at(in, ra, a->dt), rl, a->dt, peer);
        if (!err)
            err = wmpi_coll_reduce_local(a->op, wmpi_coll_at(in, ra, a->dt),
                                         wmpi_coll_at(acc, ra, a->dt), rl, a->dt);
        lo = upper ? mid : lo;
        hi = upper ? hi : mid;
    }
    return err;
}

/* Round `mask` of a gather: my window and my partner's, both of `mask`
 * blocks. */
static void gather_windows(const wmpi_coll_args *a, int p, int me, int mask,
                           int64_t *ma, int64_t *ml, int64_t *pa, int64_t *pl)
{
    int mlo = me & ~(mask - 1), plo = (me ^ mask) & ~(mask - 1);

    window(a->count, p, mlo, mlo + mask, ma, ml);
    window(a->count, p, plo, plo + mask, pa, pl);
}

int wmpi_coll_block_gather(const wmpi_coll_call *k, const wmpi_coll_args *a, char *acc,
                           int me, const wmpi_coll_pairs *s, int all)
{
    int err = 0, step = STEP_GATHER;
    int64_t ma, ml, pa, pl;

    for (int mask = 1; mask < s->p && !err; mask *= 2, step++) {
        int peer = wmpi_coll_pairs_rank(s, me ^ mask), sender = (me & mask) != 0;
        gather_windows(a, s->p, me, mask, &ma, &ml, &pa, &pl);
        if (all)
            err = wmpi_coll_sendrecv(k, step, wmpi_coll_at(acc, ma, a->dt), ml, a->dt,
                                     peer, wmpi_coll_at(acc, pa, a->dt), pl, a->dt, peer);
        else if (sender)
            return wmpi_coll_send(k, step, wmpi_coll_at(acc, ma, a->dt), ml, a->dt, peer);
        else
            err = wmpi_coll_recv(k, step, wmpi_coll_at(acc, pa, a->dt), pl, a->dt, peer);
    }
    return err;
}
