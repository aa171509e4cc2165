/* MPI_Allreduce of short vectors on small communicators, in groups: the
 * ranks of each group send their vectors to its first rank (the leader),
 * which folds them; the leaders trade partial results all with all, each
 * folds them and sends the result to its group. Two groupings:
 *  - by shared CPU, where ranks share CPUs (coll_cpus.c);
 *  - otherwise one group, led by rank 0: the fan through rank 0.
 *
 * Why the fan. Where ranks share CPUs (bench/osu_like runs 4 and 8 ranks
 * on 2), a short allreduce costs what its rounds cost in scheduling, not
 * bytes. Recursive doubling runs log2 n rounds in which every rank must
 * get its CPU in turn, n log2 n messages in all; the fan runs two,
 * 2 (n - 1) messages, and the ranks leave together, released by one
 * rank's sends. On 2 CPUs the fan is faster than doubling on 8 ranks and
 * no slower on 4; Open MPI 4.1's tuned choice on such communicators is
 * recursive doubling (figures: docs/performance-notes.md).
 *
 * Why by CPU. A message to a rank on the same CPU costs a yield, one to
 * another CPU a wake-up there. The fan crosses CPUs twice in a row (in to
 * rank 0, back out); grouped by CPU, only the leaders' trade crosses. On
 * 2 CPUs, for 8-byte sums, it is faster than the fan on 8 ranks and no
 * slower on 4 (figures: docs/performance-notes.md). Leaders going through
 * rank 0 instead of trading all with all cost the same as the fan: the
 * crossings count, not the messages.
 *
 * Order: groups are consecutive ranks; a leader folds its group left to
 * right, and every leader folds the partial results in group order, so
 * every rank gets x0 op x1 op ... op x(n-1), bit for bit the same, and a
 * non-commutative op is applied in rank order as MPI requires. The
 * leaders' extra copies (their own vector into the scratch, the result
 * out) cost less than a round at these sizes.
 *
 * Rejected above 8 ranks (coll_reduce.c): the leader's messages grow
 * linearly where doubling's rounds grow as log2 n.
 *
 * Locking: none of its own (messages through coll_util.c).
 */
#include "engine/coll/coll_impl.h"

/* Fold the n vectors at v[0..n) left to right; the result is left in
 * v[n - 1] (*out points there). */
static int fold_in_order(const wmpi_coll_args *a, char *v, int64_t n, char **out)
{
    int err = 0;

    for (int64_t i = 1; i < n && !err; i++)
        err = wmpi_coll_reduce_local(a->op, wmpi_coll_at(v, (i - 1) * a->count, a->dt),
                                     wmpi_coll_at(v, i * a->count, a->dt), a->count, a->dt);
    *out = wmpi_coll_at(v, (n - 1) * a->count, a->dt);
    return err;
}

/* A leader: its group's vectors into v[0..size), mine first. */
static int gather_group(const wmpi_coll_call *k, const wmpi_coll_args *a,
                        const wmpi_coll_groups *g, const void *mine, char *v)
{
    int lo = g->first[g->mine], hi = g->first[g->mine + 1];
    wmpi_coll_reqs q;

    if (wmpi_coll_reqs_init(&q, hi - lo) != 0)
        return WEFT_ENOMEM;
    for (int r = lo + 1; r < hi; r++)
        wmpi_coll_irecv(&q, k, 0, wmpi_coll_at(v, (r - lo) * a->count, a->dt),
                        a->count, a->dt, r);
    int err = wmpi_coll_copy(mine, a->count, a->dt, v, a->count, a->dt);
    int werr = wmpi_coll_reqs_wait(&q);
    return err ? err : werr;
}

/* Leaders: trade partial results; p[h] gets group h's. */
static int trade_partials(const wmpi_coll_call *k, const wmpi_coll_args *a,
                          const wmpi_coll_groups *g, char *p)
{
    char *own = wmpi_coll_at(p, g->mine * a->count, a->dt);
    wmpi_coll_reqs q;

    if (wmpi_coll_reqs_init(&q, 2 * g->n) != 0)
        return WEFT_ENOMEM;
    for (int h = 0; h < g->n; h++)
        if (h != g->mine)
            wmpi_coll_irecv(&q, k, 1, wmpi_coll_at(p, h * a->count, a->dt), a->count,
                            a->dt, g->first[h]);
    for (int i = 1; i < g->n; i++) {
        int h = (g->mine + i) % g->n;
        wmpi_coll_isend(&q, k, 1, own, a->count, a->dt, g->first[h]);
    }
    return wmpi_coll_reqs_wait(&q);
}

static int lead(const wmpi_coll_call *k, const wmpi_coll_args *a, const wmpi_coll_groups *g,
                const void *mine)
{
    int lo = g->first[g->mine], hi = g->first[g->mine + 1];
    wmpi_coll_tmp v, p;
    wmpi_coll_reqs q;
    char *acc;
    int err = wmpi_coll_tmp_alloc(&v, a->count * (hi - lo), a->dt);

    if (!err)
        err = wmpi_coll_tmp_alloc(&p, a->count * g->n, a->dt);
    if (!err) {
        err = gather_group(k, a, g, mine, v.p);
        if (!err)
            err = fold_in_order(a, v.p, hi - lo, &acc);
        if (!err)
            err = wmpi_coll_copy(acc, a->count, a->dt,
                                 wmpi_coll_at(p.p, g->mine * a->count, a->dt), a->count, a->dt);
        if (!err)
            err = trade_partials(k, a, g, p.p);
        if (!err)
            err = fold_in_order(a, p.p, g->n, &acc);
        if (!err)
            err = wmpi_coll_copy(acc, a->count, a->dt, a->rbuf, a->count, a->dt);
        wmpi_coll_tmp_free(&p);
    }
    wmpi_coll_tmp_free(&v);
    if (err || (err = wmpi_coll_reqs_init(&q, hi - lo)) != 0)
        return err;
    for (int r = lo + 1; r < hi; r++)
        wmpi_coll_isend(&q, k, 2, a->rbuf, a->count, a->dt, r);
    return wmpi_coll_reqs_wait(&q);
}

int wmpi_coll_allreduce_grouped(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    const void *mine = a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    int leader;
    wmpi_coll_reqs q;
    wmpi_coll_groups g;

    if (wmpi_coll_cpu_groups(k, &g) != 0)
        wmpi_coll_one_group(k, &g);
    leader = g.first[g.mine];
    if (k->rank == leader)
        return lead(k, a, &g, mine);
    wmpi_coll_reqs_init(&q, 2);
    wmpi_coll_irecv(&q, k, 2, a->rbuf, a->count, a->dt, leader);
    wmpi_coll_isend(&q, k, 0, mine, a->count, a->dt, leader);
    return wmpi_coll_reqs_wait(&q);
}
