/* The schedule of MPI_Barrier and MPI_Ibarrier (run by coll_run.c): a
 * dissemination barrier over point-to-point messages on the
 * communicator's collective context, a gather and release through rank 0
 * on small communicators, or the same by shared CPU where ranks share
 * CPUs.
 *
 * Design (Hensgen, Finkel and Manber's dissemination algorithm): in round
 * k = 0, 1, ... while 2^k < size, rank r sends an empty message to
 * (r + 2^k) mod size and receives one from (r - 2^k) mod size. After
 * ceil(log2 size) rounds every rank has heard, directly or through others,
 * from every rank, so none leaves before all arrived. Works for any size,
 * not only powers of two, with no idle rank in any round. Each message
 * carries the barrier's sequence number and round in its tag
 * (coll_impl.h), so a fast rank's message for a later round, or for the
 * next barrier (or a nonblocking one outstanding beside this), never
 * satisfies the wrong receive.
 *
 * Below LINEAR_MAX ranks: every rank tells rank 0, which then releases
 * every rank (the one-group case of the form below; Open MPI's choice too
 * below 8 ranks). Two rounds, and fewer messages than dissemination there
 * (2(n-1): 6 against 8 on 4 ranks, 12 against 21 on 7); above all, the
 * ranks leave together, released by one rank's sends, where
 * dissemination's last round lets them go one by one as each gets its CPU.
 * Where ranks share CPUs, a call timed right after the barrier pays that
 * stagger, while the barrier itself costs about the same either way
 * (figures: docs/performance-notes.md).
 *
 * By shared CPU, whenever the ranks' placement allows (coll_cpus.c: each
 * CPU's ranks consecutive): each CPU's ranks tell the first of them, the
 * leaders trade all with all, each releases its ranks. A message on one
 * CPU costs a yield, one across CPUs a wake-up there; this crosses CPUs
 * once. On 2 CPUs it is faster than dissemination on 8 ranks, the calls
 * timed after it lose their stagger too, and on 4 ranks it costs about
 * the same (figures: docs/performance-notes.md). A group larger than
 * GROUP_FAN + 1 ranks tells and releases through a tree of GROUP_FAN
 * children a rank: over TCP every pair that talks holds a connection, and
 * a leader that heard from each of its CPU's ranks directly would hold
 * one per rank (128 each on 256 ranks over 2 CPUs).
 *
 * Rejected: the gather and release above LINEAR_MAX (2(n-1) messages
 * through one rank against n log n spread over all, and a hot spot);
 * recursive doubling (needs an extra round for sizes that are not powers
 * of two).
 *
 * Invariants: every rank runs the same rounds in the same order.
 * Locking: none of its own; each round waits through wmpi_block.
 */
#include "engine/coll/coll_impl.h"

#define LINEAR_MAX 8 /* ranks: fan-in and fan-out below, dissemination from */
#define GROUP_FAN 7  /* children a rank in a group: with its parent and one
                        other leader (2 CPUs), 8 connections at most */

/* Leaders of the CPU groups: hear from every other leader (step 1). */
static int trade_leaders(const wmpi_coll_call *k, const wmpi_coll_groups *g)
{
    wmpi_coll_reqs q;

    if (wmpi_coll_reqs_init(&q, 2 * g->n) != 0)
        return WEFT_ENOMEM;
    for (int i = 1; i < g->n; i++) {
        wmpi_coll_irecv(&q, k, 1, NULL, 0, &wmpi_dt_byte, g->first[(g->mine + i) % g->n]);
        wmpi_coll_isend(&q, k, 1, NULL, 0, &wmpi_dt_byte, g->first[(g->mine + i) % g->n]);
    }
    return wmpi_coll_reqs_wait(&q);
}

/* Messages of one step to the children of index j in a group of n ranks
 * from rank lo: receives (in) or sends. */
static int children(const wmpi_coll_call *k, int step, int lo, int j, int n, int in)
{
    int first = j * GROUP_FAN + 1, end = first + GROUP_FAN < n ? first + GROUP_FAN : n;
    wmpi_coll_reqs q;

    if (first >= n)
        return 0;
    if (wmpi_coll_reqs_init(&q, end - first) != 0)
        return WEFT_ENOMEM;
    for (int c = first; c < end; c++) {
        if (in)
            wmpi_coll_irecv(&q, k, step, NULL, 0, &wmpi_dt_byte, lo + c);
        else
            wmpi_coll_isend(&q, k, step, NULL, 0, &wmpi_dt_byte, lo + c);
    }
    return wmpi_coll_reqs_wait(&q);
}

/* In groups (coll_cpus.c): each group's ranks tell their leader through
 * the group's tree (step 0), the leaders trade, each releases its ranks
 * down the tree (step 2). One group is the fan-in and fan-out through
 * rank 0 (a tree of one level below GROUP_FAN + 2 ranks). */
static int in_groups(const wmpi_coll_call *k, const wmpi_coll_groups *g)
{
    int lo = g->first[g->mine], n = g->first[g->mine + 1] - lo, j = k->rank - lo;
    int parent = lo + (j - 1) / GROUP_FAN;
    int err = children(k, 0, lo, j, n, 1);

    if (!err && j != 0) {
        err = wmpi_coll_send(k, 0, NULL, 0, &wmpi_dt_byte, parent);
        if (!err)
            err = wmpi_coll_recv(k, 2, NULL, 0, &wmpi_dt_byte, parent);
    } else if (!err) {
        err = trade_leaders(k, g);
    }
    return err ? err : children(k, 2, lo, j, n, 0);
}

int wmpi_coll_barrier_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int size = k->size, rank = k->rank, err = 0;
    wmpi_coll_groups g;

    (void)a;
    if (size > 1 && wmpi_coll_cpu_groups(k, &g) == 0)
        return in_groups(k, &g);
    if (size > 1 && size < LINEAR_MAX) {
        wmpi_coll_one_group(k, &g);
        return in_groups(k, &g);
    }
    for (int dist = 1, round = 0; dist < size && !err; dist <<= 1, round++)
        err = wmpi_coll_sendrecv(k, round, NULL, 0, &wmpi_dt_byte,
                                 (rank + dist) % size, NULL, 0, &wmpi_dt_byte,
                                 (rank - dist + size) % size);
    return err;
}
