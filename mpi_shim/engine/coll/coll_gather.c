/* MPI_Gather(v) and MPI_Scatter(v) schedules: binomial trees for short
 * blocks, direct messages to or from the root otherwise.
 *
 * Design. Every rank's block has the same packed size in gather and
 * scatter (MPI requires matching type signatures), so each rank knows the
 * size of every block from its own arguments.
 *  - Short (n blocks fit in 8 KiB): binomial tree on ranks renumbered from
 *    the root (v = rank - root). Node v handles the blocks of its subtree
 *    [v, v + lowest set bit of v) as one packed run, in v order: a gather
 *    receives its children's runs behind its own block and sends the whole
 *    run up; a scatter receives its run and sends the children theirs.
 *    ceil(log2 n) rounds instead of n - 1 messages through the root.
 *  - Long, and the v forms (block sizes differ by rank and only the root
 *    knows them all): the root posts all n - 1 receives (sends) at once;
 *    the others send (receive) one message with their own datatype.
 *
 * Rejected: the tree for long blocks (every block crosses log2 n links
 * instead of one, and intermediate ranks must buffer whole subtrees).
 *
 * Invariants: packed runs hold blocks in v order; the root's own block
 * never travels (copied, or left where MPI_IN_PLACE says it is).
 * Locking: none (messages through coll_util.c).
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

#define GATHER_LONG ((int64_t)8 * 1024) /* bytes of all blocks together */

static int64_t span_end(int v, int mask, int n)
{
    return v + mask < n ? v + mask : n;
}

static int lowbit_or_n(int v, int n)
{
    int mask = 1;

    while (mask < n && !(v & mask))
        mask <<= 1;
    return mask;
}

/* ------------------------------------------------------------- gather */

/* Unpack run (blocks in v order, `b` bytes each) into the root's rbuf. */
static int unpack_run(const wmpi_coll_call *k, const wmpi_coll_args *a,
                      const char *run, int64_t b, int root)
{
    int64_t step = a->rcount * (int64_t)a->rdt->extent;

    for (int v = 1; v < k->size; v++) {
        int r = (v + root) % k->size;
        if (wmpi_datatype_unpack(a->rdt, a->rcount, run + v * b,
                                 (char *)a->rbuf + r * step) < 0)
            return WEFT_EINVAL;
    }
    return 0;
}

static int gather_tree(const wmpi_coll_call *k, const wmpi_coll_args *a, int64_t b)
{
    int n = k->size, root = a->root, v = (k->rank - root + n) % n;
    int top = lowbit_or_n(v, n), err = 0;
    char *run = malloc((size_t)(span_end(v, top, n) - v) * (size_t)b + 1);

    if (!run)
        return WEFT_ENOMEM;
    if (v != 0 && wmpi_datatype_pack(a->sdt, a->scount, a->sbuf, run) < 0)
        err = WEFT_EINVAL;
    for (int mask = 1; mask < top && !err; mask <<= 1)
        if (v + mask < n)
            err = wmpi_coll_recv(k, 0, run + mask * b,
                                 (span_end(v + mask, mask, n) - v - mask) * b,
                                 &wmpi_dt_byte, (v + mask + root) % n);
    if (!err && v != 0)
        err = wmpi_coll_send(k, 0, run, (span_end(v, top, n) - v) * b,
                             &wmpi_dt_byte, (v - top + root) % n);
    if (!err && v == 0)
        err = unpack_run(k, a, run, b, root);
    free(run);
    return err;
}

static int root_own_block(const wmpi_coll_args *a, int64_t rcount, int64_t disp)
{
    if (a->sbuf == WMPI_IN_PLACE)
        return 0;
    return wmpi_coll_copy(a->sbuf, a->scount, a->sdt,
                          wmpi_coll_at(a->rbuf, disp, a->rdt), rcount, a->rdt);
}

/* Root: receive every other rank's block at rbuf + displ[r] elements. */
static int gather_direct(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    wmpi_coll_reqs q;
    int err;

    if (k->rank != a->root)
        return wmpi_coll_send(k, 0, a->sbuf, a->scount, a->sdt, a->root);
    err = wmpi_coll_reqs_init(&q, k->size);
    for (int r = 0; r < k->size && !err; r++) {
        int64_t cnt = a->rcounts ? a->rcounts[r] : a->rcount;
        int64_t disp = a->rdispls ? a->rdispls[r] : (int64_t)r * a->rcount;
        if (r != k->rank)
            wmpi_coll_irecv(&q, k, 0, cnt ? wmpi_coll_at(a->rbuf, disp, a->rdt) : a->rbuf,
                            cnt, a->rdt, r);
        else if (!q.err)
            q.err = root_own_block(a, cnt, disp);
    }
    return err ? err : wmpi_coll_reqs_wait(&q);
}

int wmpi_coll_gather_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int root = k->rank == a->root;
    int64_t b = root ? wmpi_datatype_bytes(a->rdt, a->rcount)
                     : wmpi_datatype_bytes(a->sdt, a->scount);

    if (b <= 0) /* every rank agrees: nothing to move */
        return (int)b;
    if (b * k->size >= wmpi_coll_limit(GATHER_LONG) || k->size < 3)
        return gather_direct(k, a);
    if (root) {
        int err = root_own_block(a, a->rcount, (int64_t)k->rank * a->rcount);
        return err ? err : gather_tree(k, a, b);
    }
    return gather_tree(k, a, b);
}

int wmpi_coll_gatherv_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return gather_direct(k, a);
}

/* ------------------------------------------------------------- scatter */

static int pack_run(const wmpi_coll_call *k, const wmpi_coll_args *a, char *run,
                    int64_t b, int root)
{
    int64_t step = a->scount * (int64_t)a->sdt->extent;

    for (int v = 1; v < k->size; v++) {
        int r = (v + root) % k->size;
        if (wmpi_datatype_pack(a->sdt, a->scount, (const char *)a->sbuf + r * step,
                               run + v * b) < 0)
            return WEFT_EINVAL;
    }
    return 0;
}

static int scatter_tree(const wmpi_coll_call *k, const wmpi_coll_args *a, int64_t b)
{
    int n = k->size, root = a->root, v = (k->rank - root + n) % n;
    int top = lowbit_or_n(v, n), err = 0;
    char *run = malloc((size_t)(span_end(v, top, n) - v) * (size_t)b + 1);

    if (!run)
        return WEFT_ENOMEM;
    if (v == 0)
        err = pack_run(k, a, run, b, root);
    else
        err = wmpi_coll_recv(k, 0, run, (span_end(v, top, n) - v) * b,
                             &wmpi_dt_byte, (v - top + root) % n);
    for (int mask = top >> 1; mask > 0 && !err; mask >>= 1)
        if (v + mask < n)
            err = wmpi_coll_send(k, 0, run + mask * b,
                                 (span_end(v + mask, mask, n) - v - mask) * b,
                                 &wmpi_dt_byte, (v + mask + root) % n);
    if (!err && v != 0 && wmpi_datatype_unpack(a->rdt, a->rcount, run, a->rbuf) < 0)
        err = WEFT_EINVAL;
    free(run);
    return err;
}

/* Root: send every other rank its block from sbuf + displ[r] elements. */
static int scatter_direct(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    wmpi_coll_reqs q;
    int err;

    if (k->rank != a->root)
        return wmpi_coll_recv(k, 0, a->rbuf, a->rcount, a->rdt, a->root);
    err = wmpi_coll_reqs_init(&q, k->size);
    for (int r = 0; r < k->size && !err; r++) {
        int64_t cnt = a->scounts ? a->scounts[r] : a->scount;
        int64_t disp = a->sdispls ? a->sdispls[r] : (int64_t)r * a->scount;
        const char *at = cnt ? wmpi_coll_at(a->sbuf, disp, a->sdt) : a->sbuf;
        if (r != k->rank)
            wmpi_coll_isend(&q, k, 0, at, cnt, a->sdt, r);
        else if (a->rbuf != WMPI_IN_PLACE && !q.err)
            q.err = wmpi_coll_copy(at, cnt, a->sdt, a->rbuf, a->rcount, a->rdt);
    }
    return err ? err : wmpi_coll_reqs_wait(&q);
}

int wmpi_coll_scatter_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int root = k->rank == a->root;
    int64_t b = root ? wmpi_datatype_bytes(a->sdt, a->scount)
                     : wmpi_datatype_bytes(a->rdt, a->rcount);
    int err;

    if (b <= 0) /* every rank agrees: nothing to move */
        return (int)b;
    if (b * k->size >= wmpi_coll_limit(GATHER_LONG) || k->size < 3)
        return scatter_direct(k, a);
    err = scatter_tree(k, a, b);
    if (!err && root && a->rbuf != WMPI_IN_PLACE)
        err = wmpi_coll_copy(wmpi_coll_at(a->sbuf, (int64_t)k->rank * a->scount, a->sdt),
                             a->scount, a->sdt, a->rbuf, a->rcount, a->rdt);
    return err;
}

int wmpi_coll_scatterv_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return scatter_direct(k, a);
}
