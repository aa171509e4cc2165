/* MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block and MPI_Reduce_scatter
 * schedules.
 *
 * Design.
 *  - Scan / Exscan: recursive doubling. Each rank keeps `partial`, the
 *    reduction of its current group (an aligned run of 2^j ranks), and its
 *    result. In round j it trades partials with rank ^ 2^j; a partner
 *    below contributes to the result (on the left) and to the partial (on
 *    the left), a partner above only to the partial (on the right). So
 *    every combination keeps rank order: correct for non-commutative ops,
 *    ceil(log2 n) rounds, any n. Exscan is the same with the result
 *    starting empty (rank 0's stays undefined, as MPI says).
 *  - Reduce_scatter(_block): a reduce of the whole vector to rank 0 (the
 *    tree of coll_reduce.c, in rank order) then a scatter(v) of the
 *    blocks; the second phase's steps are offset so its tags never meet
 *    the first's.
 *
 * Rejected: a linear chain for scan (n - 1 rounds); recursive halving for
 * reduce-scatter (fastest for long vectors, but powers of two only and
 * commutative ops only: a later tuning).
 *
 * Invariants: `in` always holds a partner's partial, never this rank's.
 * Locking: none (messages through coll_util.c).
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

typedef struct scan_bufs {
    wmpi_coll_tmp t[2];
    char *partial, *in;
} scan_bufs;

static int scan_setup(scan_bufs *b, const wmpi_coll_args *a, const void *mine)
{
    int err = wmpi_coll_tmp_alloc(&b->t[0], a->count, a->dt);

    if (!err)
        err = wmpi_coll_tmp_alloc(&b->t[1], a->count, a->dt);
    b->partial = b->t[0].p;
    b->in = b->t[1].p;
    return err ? err : wmpi_coll_copy(mine, a->count, a->dt, b->partial, a->count, a->dt);
}

/* One round with a partner below (theirs_lower) or above. `have` says
 * whether rbuf holds a result yet (exscan starts without). */
static int scan_combine(const wmpi_coll_args *a, scan_bufs *b, int theirs_lower,
                        int *have)
{
    char *swap;
    int err;

    if (!theirs_lower) {
        err = wmpi_coll_reduce_local(a->op, b->partial, b->in, a->count, a->dt);
        swap = b->partial, b->partial = b->in, b->in = swap;
        return err;
    }
    if (*have)
        err = wmpi_coll_reduce_local(a->op, b->in, a->rbuf, a->count, a->dt);
    else
        err = wmpi_coll_copy(b->in, a->count, a->dt, a->rbuf, a->count, a->dt);
    *have = 1;
    return err ? err : wmpi_coll_reduce_local(a->op, b->in, b->partial, a->count, a->dt);
}

static int scan_run(const wmpi_coll_call *k, const wmpi_coll_args *a, int inclusive)
{
    const void *mine = a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    int have = inclusive, err;
    scan_bufs b;

    if (a->count == 0)
        return 0;
    err = scan_setup(&b, a, mine);
    if (!err && inclusive && mine != a->rbuf)
        err = wmpi_coll_copy(mine, a->count, a->dt, a->rbuf, a->count, a->dt);
    for (int mask = 1, step = 0; mask < k->size && !err; mask <<= 1, step++) {
        int peer = k->rank ^ mask;
        if (peer >= k->size)
            continue;
        err = wmpi_coll_sendrecv(k, step, b.partial, a->count, a->dt, peer,
                                 b.in, a->count, a->dt, peer);
        if (!err)
            err = scan_combine(a, &b, peer < k->rank, &have);
    }
    wmpi_coll_tmp_free(&b.t[0]);
    wmpi_coll_tmp_free(&b.t[1]);
    return err;
}

int wmpi_coll_scan_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return scan_run(k, a, 1);
}

int wmpi_coll_exscan_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return scan_run(k, a, 0);
}

/* ------------------------------------------------------- reduce-scatter */

/* Reduce `total` elements to rank 0, then scatter block r (counts[r]
 * elements at displs[r]) to rank r. */
static int reduce_then_scatter(const wmpi_coll_call *k, const wmpi_coll_args *a,
                               int64_t total, const int *counts, const int *displs)
{
    wmpi_coll_args ra = *a, sa = { 0 };
    wmpi_coll_call phase2 = *k;
    wmpi_coll_tmp t = { 0 };
    int err = 0;

    if (total > INT32_MAX)
        return WEFT_EINVAL;
    if (k->rank == 0)
        err = wmpi_coll_tmp_alloc(&t, total, a->dt);
    ra.sbuf = a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    ra.rbuf = t.p;
    ra.count = (int)total;
    ra.root = 0;
    if (!err)
        err = wmpi_coll_reduce_run(k, &ra);
    sa.sbuf = t.p;
    sa.sdt = sa.rdt = a->dt;
    sa.scounts = counts;
    sa.sdispls = displs;
    sa.rbuf = a->rbuf;
    sa.rcount = counts[k->rank];
    phase2.step_base = 64;
    if (!err)
        err = wmpi_coll_scatterv_run(&phase2, &sa);
    wmpi_coll_tmp_free(&t);
    return err;
}

static int layout(const wmpi_coll_call *k, const int *counts, int each, int **cnt,
                  int **disp, int64_t *total)
{
    int64_t at = 0;

    *cnt = malloc(2 * (size_t)k->size * sizeof **cnt);
    if (!*cnt)
        return WEFT_ENOMEM;
    *disp = *cnt + k->size;
    for (int r = 0; r < k->size; r++) {
        (*cnt)[r] = counts ? counts[r] : each;
        (*disp)[r] = (int)at;
        at += (*cnt)[r];
        if (at > INT32_MAX) {
            free(*cnt);
            return WEFT_EINVAL;
        }
    }
    *total = at;
    return 0;
}

static int reduce_scatter(const wmpi_coll_call *k, const wmpi_coll_args *a,
                          const int *counts, int each)
{
    int *cnt, *disp, err;
    int64_t total;

    err = layout(k, counts, each, &cnt, &disp, &total);
    if (err)
        return err;
    err = total == 0 ? 0 : reduce_then_scatter(k, a, total, cnt, disp);
    free(cnt);
    return err;
}

int wmpi_coll_reduce_scatter_block_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return reduce_scatter(k, a, NULL, a->count);
}

int wmpi_coll_reduce_scatter_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return reduce_scatter(k, a, a->rcounts, 0);
}
