/* MPI_Reduce's and MPI_Allreduce's schedules.
 *
 * Design. Every combination applies op as left = lower ranks, right =
 * higher ranks (wmpi_op_apply(op, in = left, inout = right)), so a
 * non-commutative op gives x0 op x1 op ... op x(n-1) as MPI requires; a
 * commutative one gets the same bit-exact result on every rank.
 *  - Reduce: binomial tree. Node v gathers the partial results of
 *    [v, v + 2^j) from v + 2^j, in increasing j, so its accumulator always
 *    holds a contiguous, ordered range. Commutative ops root the tree at
 *    the root (v = rank - root); non-commutative ones at rank 0 (v = rank,
 *    ranges in rank order), which then sends the result to the root.
 *  - Allreduce, short, on at most 8 ranks: in groups
 *    (coll_allreduce_groups.c): on each shared CPU first, then across
 *    CPUs, when ranks share CPUs, else through rank 0.
 *  - Allreduce, short or non-commutative otherwise: recursive doubling. With
 *    p = 2^floor(log2 n) and rem = n - p, the first 2 rem ranks pair up
 *    (even into odd: the odd rank then stands for both, which keeps
 *    every group a contiguous range of ranks), the p survivors exchange
 *    whole buffers with partners at distance 1, 2, 4..., and the odd ranks
 *    finally hand the result back: log2 p + 2 rounds.
 *  - Allreduce, long and commutative (Rabenseifner, coll_blocks.c): after
 *    the same pairing, a reduce-scatter by recursive halving leaves
 *    survivor i with block i of the result; an allgather by recursive
 *    doubling reassembles it. Each rank sends about 2 buffers in all
 *    instead of log2 p buffers.
 *  - Reduce, long and commutative: the same halving, then a binomial
 *    gather of the blocks to the root (renumbered survivor 0), which also
 *    spreads the arithmetic over all ranks instead of the tree's root.
 *
 * Rejected: reduce + broadcast for allreduce (twice the rounds); a ring
 * allreduce (2 (n-1) rounds: latency-bound at our rank counts, where
 * Rabenseifner moves the same volume in 2 log2 n rounds).
 *
 * Invariants: scratch buffers have the user's layout (coll_util.c), so
 * partial results travel with the user's datatype.
 * Locking: none (messages through coll_util.c).
 */
#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

/* Bytes from which the long forms run. Measured on 2 vCPUs over TCP
 * (bench/osu_like collectives, 4 and 8 ranks): allreduce by doubling is
 * faster at 64 KiB (185 against 241 us, 4 ranks), Rabenseifner from
 * 256 KiB (709 against 893 us; 2300 against 3490 us on 8 ranks); reduce by
 * the binomial tree is faster at every size up to 1 MiB (1.34 against
 * 3.33 ms on 4 ranks, 2.6 against 7.0 ms on 8): its leaves are done after
 * one send, where the halving keeps every rank in every round. */
#define ALLREDUCE_LONG ((int64_t)128 * 1024)
/* Up to these, allreduce goes in groups (coll_allreduce_groups.c), from
 * 3 ranks: two ranks exchange their vectors (doubling's one round, one
 * message time, where the fan through rank 0 takes two). */
#define ALLREDUCE_FAN_BYTES ((int64_t)16 * 1024)
#define ALLREDUCE_FAN_RANKS 8
#define REDUCE_LONG ((int64_t)4 * 1024 * 1024)

/* Two scratch buffers, allocated on first use. */
typedef struct scratch {
    wmpi_coll_tmp t[2];
    int64_t count;
    wmpi_datatype *dt;
} scratch;

static char *scratch_get(scratch *s, int i, int *err)
{
    if (!s->t[i].base && !*err)
        *err = wmpi_coll_tmp_alloc(&s->t[i], s->count, s->dt);
    return *err ? NULL : s->t[i].p;
}

static void scratch_free(scratch *s)
{
    wmpi_coll_tmp_free(&s->t[0]);
    wmpi_coll_tmp_free(&s->t[1]);
}

/* ------------------------------------------------------- partial results */

/* The scratch buffer that is not `not`. */
static char *other(scratch *s, const char *not, int *err)
{
    return scratch_get(s, not == s->t[0].p ? 1 : 0, err);
}

/* `in` (a scratch buffer) holds the partial result of a range of ranks
 * next to *acc's: make *acc = in op *acc if that range is the lower one,
 * else *acc op in. *acc may be a user buffer: it is only read. */
static int combine(const wmpi_coll_args *a, scratch *s, const char **acc,
                   char *in, int theirs_lower)
{
    char *mine;
    int err = 0;

    if (!theirs_lower) {
        err = wmpi_coll_reduce_local(a->op, *acc, in, a->count, a->dt);
        *acc = in;
        return err;
    }
    mine = other(s, in, &err);
    if (!err && mine != *acc)
        err = wmpi_coll_copy(*acc, a->count, a->dt, mine, a->count, a->dt);
    if (!err)
        err = wmpi_coll_reduce_local(a->op, in, mine, a->count, a->dt);
    *acc = mine;
    return err;
}

/* Receive the partial result of the range of ranks `src` stands for and
 * combine it into *acc. */
static int absorb(const wmpi_coll_call *k, int step, const wmpi_coll_args *a,
                  scratch *s, const char **acc, int src, int theirs_lower)
{
    int err = 0;
    char *in = other(s, *acc, &err);

    if (!err)
        err = wmpi_coll_recv(k, step, in, a->count, a->dt, src);
    return err ? err : combine(a, s, acc, in, theirs_lower);
}

static int reduce_tree(const wmpi_coll_call *k, const wmpi_coll_args *a, scratch *s,
                       int top, const char **acc)
{
    int n = k->size, v = (k->rank - top + n) % n, err = 0;

    for (int mask = 1, step = 0; mask < n && !err; mask <<= 1, step++) {
        if (v & mask)
            return wmpi_coll_send(k, step, *acc, a->count, a->dt,
                                  (v - mask + top) % n);
        if (v + mask < n)
            err = absorb(k, step, a, s, acc, (v + mask + top) % n, 0);
    }
    return err;
}

/* ------------------------------------------------------------- allreduce */

/* Pair up the first 2 rem ranks into their survivors. */
static int fold(const wmpi_coll_call *k, const wmpi_coll_args *a, scratch *s,
                const char **acc, const wmpi_coll_pairs *sv)
{
    int partner = wmpi_coll_pairs_partner(sv, k->rank);

    if (partner == WMPI_PROC_NULL)
        return 0;
    if (wmpi_coll_pairs_index(sv, k->rank) < 0)
        return wmpi_coll_send(k, 0, *acc, a->count, a->dt, partner);
    return absorb(k, 0, a, s, acc, partner, partner < k->rank);
}

static int unfold(const wmpi_coll_call *k, const wmpi_coll_args *a,
                  const char *acc, const wmpi_coll_pairs *sv)
{
    int partner = wmpi_coll_pairs_partner(sv, k->rank);

    if (partner == WMPI_PROC_NULL)
        return 0;
    if (wmpi_coll_pairs_index(sv, k->rank) < 0)
        return wmpi_coll_recv(k, 31, a->rbuf, a->count, a->dt, partner);
    return wmpi_coll_send(k, 31, acc, a->count, a->dt, partner);
}

static int doubling(const wmpi_coll_call *k, const wmpi_coll_args *a, scratch *s,
                    const char **acc, int me, const wmpi_coll_pairs *sv)
{
    int err = 0;

    for (int mask = 1, step = 1; mask < sv->p && !err; mask <<= 1, step++) {
        int peer = wmpi_coll_pairs_rank(sv, me ^ mask);
        char *in = other(s, *acc, &err);
        if (!err)
            err = wmpi_coll_sendrecv(k, step, *acc, a->count, a->dt, peer,
                                     in, a->count, a->dt, peer);
        if (!err)
            err = combine(a, s, acc, in, peer < k->rank);
    }
    return err;
}

/* Rabenseifner: halving then gather, on a writable copy of *acc: the
 * receive buffer itself where every rank gets the result (allreduce: one
 * copy of the vector instead of two, none in place), scratch otherwise. */
static int rabenseifner(const wmpi_coll_call *k, const wmpi_coll_args *a, scratch *s,
                        const char **acc, int me, const wmpi_coll_pairs *sv, int all)
{
    int err = 0;
    char *mine = all ? (char *)a->rbuf : scratch_get(s, 0, &err);
    char *in;

    if (!err && mine != *acc)
        err = wmpi_coll_copy(*acc, a->count, a->dt, mine, a->count, a->dt);
    *acc = mine;
    in = other(s, mine, &err);
    if (!err)
        err = wmpi_coll_halving(k, a, mine, in, me, sv);
    return err ? err : wmpi_coll_block_gather(k, a, mine, me, sv, all);
}

/* Long enough, and the op allows it: every rank decides alike. */
static int long_form(const wmpi_coll_args *a, int p, int64_t from)
{
    int64_t bytes = wmpi_datatype_bytes(a->dt, a->count);

    return bytes >= wmpi_coll_limit(from) && a->count >= p &&
           wmpi_coll_op_commutes(a->op);
}

int wmpi_coll_allreduce_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    const char *acc = a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    scratch s = { .count = a->count, .dt = a->dt };
    wmpi_coll_pairs sv;
    int me, err;

    if (a->count == 0)
        return 0;
    if (k->size > 2 && k->size <= ALLREDUCE_FAN_RANKS &&
        wmpi_datatype_bytes(a->dt, a->count) <= wmpi_coll_limit(ALLREDUCE_FAN_BYTES))
        return wmpi_coll_allreduce_grouped(k, a);
    wmpi_coll_pairs_init(&sv, k->size, 0, 1);
    err = fold(k, a, &s, &acc, &sv);
    me = wmpi_coll_pairs_index(&sv, k->rank);
    if (!err && me >= 0 && long_form(a, sv.p, ALLREDUCE_LONG))
        err = rabenseifner(k, a, &s, &acc, me, &sv, 1);
    else if (!err && me >= 0)
        err = doubling(k, a, &s, &acc, me, &sv);
    if (!err)
        err = unfold(k, a, acc, &sv);
    if (!err && me >= 0 && acc != a->rbuf)
        err = wmpi_coll_copy(acc, a->count, a->dt, a->rbuf, a->count, a->dt);
    scratch_free(&s);
    return err;
}

/* Long commutative reduce: pairs fold into their even member, so the
 * root is survivor 0, where the gather of the blocks ends. */
static int reduce_long(const wmpi_coll_call *k, const wmpi_coll_args *a,
                       const wmpi_coll_pairs *sv)
{
    const char *acc = k->rank == a->root && a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    scratch s = { .count = a->count, .dt = a->dt };
    int me = wmpi_coll_pairs_index(sv, k->rank), err;

    err = fold(k, a, &s, &acc, sv);
    if (!err && me >= 0)
        err = rabenseifner(k, a, &s, &acc, me, sv, 0);
    if (!err && k->rank == a->root && acc != a->rbuf)
        err = wmpi_coll_copy(acc, a->count, a->dt, a->rbuf, a->count, a->dt);
    scratch_free(&s);
    return err;
}

/* ----------------------------------------------------------------- reduce */

int wmpi_coll_reduce_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int commutes = wmpi_coll_op_commutes(a->op);
    int top = commutes ? a->root : 0, root = k->rank == a->root;
    const char *acc = root && a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    scratch s = { .count = a->count, .dt = a->dt };
    wmpi_coll_pairs sv;
    int err;

    if (a->count == 0)
        return 0;
    wmpi_coll_pairs_init(&sv, k->size, a->root, 0);
    if (k->size > 2 && long_form(a, sv.p, REDUCE_LONG))
        return reduce_long(k, a, &sv);
    err = reduce_tree(k, a, &s, top, &acc);
    if (!err && top != a->root && k->rank == top)
        err = wmpi_coll_send(k, 30, acc, a->count, a->dt, a->root);
    else if (!err && top != a->root && root)
        err = wmpi_coll_recv(k, 30, a->rbuf, a->count, a->dt, top);
    else if (!err && root && acc != a->rbuf)
        err = wmpi_coll_copy(acc, a->count, a->dt, a->rbuf, a->count, a->dt);
    scratch_free(&s);
    return err;
}
