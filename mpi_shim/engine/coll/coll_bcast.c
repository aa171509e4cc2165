/* MPI_Bcast's schedules: a binomial tree for short messages, the same tree
 * in pipelined segments for medium ones, scatter then ring allgather (van
 * de Geijn) for long ones.
 *
 * Design. Ranks are renumbered relative to the root (v = rank - root mod
 * n), which makes any root rank 0 of the tree.
 *  - Binomial tree: v receives from v minus its lowest set bit, then sends
 *    to v + 2^j for each 2^j below that bit: ceil(log2 n) rounds, each
 *    message the whole buffer. Best while latency dominates.
 *  - Pipelined tree (PIPE_MIN and up, n >= 3): the same tree, the buffer
 *    cut into PIPE_SEG segments; every receive is posted at once and each
 *    segment is forwarded as soon as it is in, so a leaf starts receiving
 *    after one segment has crossed each level, not the whole buffer. On
 *    2 vCPUs it is faster than the plain tree from 256 KiB up (figures:
 *    docs/performance-notes.md). Segments of 32 KiB do no better than
 *    64 KiB; 64 KiB (the default eager limit) means fewer messages.
 *  - Scatter + allgather: the buffer is cut into n segments; a binomial
 *    scatter gives segment v to v (each tree edge carries only the
 *    segments of the subtree below it), then n - 1 ring steps pass every
 *    segment around. About 2 (n-1)/n of the buffer crosses each rank's
 *    link, against log2 n buffers for the tree: the winner on networks
 *    where link bandwidth is the limit, for n >= 3. Over TCP loopback on
 *    2 vCPUs the tree is faster up to 4 MiB at least (figures:
 *    docs/performance-notes.md), since every byte crosses the same memory
 *    and CPUs anyway: BCAST_LONG is set above that.
 * Segment sizes follow from the byte count alone, so sender and receiver
 * agree on every message's size and empty segments are skipped by both.
 * The segmented forms cut bytes, not elements: a non-contiguous type is
 * packed first (and unpacked at the end). The choice of form depends only on the
 * byte count and the size, which every rank agrees on (ranks may use
 * different datatypes of the same type signature).
 *
 * Rejected: a pipelined chain (best for huge messages on few ranks, but
 * needs a segment size tuned per machine); MPICH's recursive-doubling
 * allgather phase (needs powers of two or a fix-up phase).
 *
 * Invariants: every rank computes the same tree and segment map.
 * Locking: none (messages through coll_util.c).
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

#define BCAST_LONG ((int64_t)8 * 1024 * 1024)
#define PIPE_SEG ((int64_t)64 * 1024)
#define PIPE_MIN (2 * PIPE_SEG)

/* Length of segment s of a pipelined `bytes` buffer. */
static int64_t seg_len(int64_t bytes, int s)
{
    int64_t left = bytes - (int64_t)s * PIPE_SEG;

    return left < PIPE_SEG ? left : PIPE_SEG;
}

static int real_rank(int v, int root, int n)
{
    return (v + root) % n;
}

/* This rank's parent in the binomial tree of relative rank v (-1 at the
 * root) and its children, farthest subtree first; returns their count. */
static int tree_links(int v, int n, int *parent, int child[32])
{
    int mask = 1, nc = 0;

    *parent = -1;
    for (; mask < n; mask <<= 1)
        if (v & mask) {
            *parent = v - mask;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            child[nc++] = v + mask;
    return nc;
}

static int binomial(const wmpi_coll_call *k, void *buf, int64_t count,
                    wmpi_datatype *dt, int root)
{
    int n = k->size, v = (k->rank - root + n) % n, parent, child[32], err = 0;
    int nc = tree_links(v, n, &parent, child);
    wmpi_coll_reqs q;

    if (parent >= 0)
        err = wmpi_coll_recv(k, 0, buf, count, dt, real_rank(parent, root, n));
    if (err || wmpi_coll_reqs_init(&q, nc) != 0)
        return err ? err : WEFT_ENOMEM;
    for (int c = 0; c < nc; c++)
        wmpi_coll_isend(&q, k, 0, buf, count, dt, real_rank(child[c], root, n));
    return wmpi_coll_reqs_wait(&q);
}

/* The binomial tree in segments of PIPE_SEG bytes: a rank forwards each
 * segment as soon as it has it, so the tree's levels work at once. */
static int pipelined(const wmpi_coll_call *k, char *buf, int64_t bytes, int root)
{
    int n = k->size, v = (k->rank - root + n) % n, parent, child[32], err = 0;
    int nc = tree_links(v, n, &parent, child);
    int nseg = (int)((bytes + PIPE_SEG - 1) / PIPE_SEG);
    wmpi_coll_reqs rq, sq;

    wmpi_coll_reqs_init(&rq, parent < 0 ? 0 : nseg);
    wmpi_coll_reqs_init(&sq, nseg * nc);
    for (int s = 0; parent >= 0 && s < nseg; s++)
        wmpi_coll_irecv(&rq, k, 0, buf + (int64_t)s * PIPE_SEG,
                        seg_len(bytes, s), &wmpi_dt_byte, real_rank(parent, root, n));
    for (int s = 0; s < nseg && !err && !rq.err; s++) {
        if (parent >= 0)
            err = wmpi_wait_requests(&rq.r[s], 1, 1);
        for (int c = 0; c < nc && !err; c++)
            wmpi_coll_isend(&sq, k, 0, buf + (int64_t)s * PIPE_SEG, seg_len(bytes, s),
                            &wmpi_dt_byte, real_rank(child[c], root, n));
    }
    int rerr = wmpi_coll_reqs_wait(&rq), serr = wmpi_coll_reqs_wait(&sq);
    return err ? err : rerr ? rerr : serr;
}

/* Byte offset of segment `s` (s = n: the end) of a `bytes` buffer. */
static int64_t seg_at(int64_t bytes, int n, int s)
{
    int64_t chunk = (bytes + n - 1) / n, at = chunk * s;

    return at < bytes ? at : bytes;
}

static int scatter(const wmpi_coll_call *k, char *buf, int64_t bytes, int root)
{
    int n = k->size, v = (k->rank - root + n) % n, mask = 1, err = 0;
    int64_t from, to;
    wmpi_coll_reqs q;

    for (; mask < n; mask <<= 1)
        if (v & mask) {
            int end = v + mask < n ? v + mask : n;
            from = seg_at(bytes, n, v);
            to = seg_at(bytes, n, end);
            if (to > from)
                err = wmpi_coll_recv(k, 0, buf + from, to - from, &wmpi_dt_byte,
                                     real_rank(v - mask, root, n));
            break;
        }
    if (err || wmpi_coll_reqs_init(&q, 32) != 0)
        return err ? err : WEFT_ENOMEM;
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = v + mask, end = child + mask < n ? child + mask : n;
        if (child >= n)
            continue;
        from = seg_at(bytes, n, child);
        to = seg_at(bytes, n, end);
        if (to > from)
            wmpi_coll_isend(&q, k, 0, buf + from, to - from, &wmpi_dt_byte,
                            real_rank(child, root, n));
    }
    return wmpi_coll_reqs_wait(&q);
}

static int ring_allgather(const wmpi_coll_call *k, char *buf, int64_t bytes, int root)
{
    int n = k->size, v = (k->rank - root + n) % n, err = 0;
    int right = real_rank((v + 1) % n, root, n);
    int left = real_rank((v + n - 1) % n, root, n);

    for (int i = 0; i < n - 1 && !err; i++) {
        int s = (v - i + n) % n, r = (v - i - 1 + 2 * n) % n;
        int64_t s0 = seg_at(bytes, n, s), s1 = seg_at(bytes, n, s + 1);
        int64_t r0 = seg_at(bytes, n, r), r1 = seg_at(bytes, n, r + 1);
        err = wmpi_coll_sendrecv(k, 1 + i, buf + s0, s1 - s0, &wmpi_dt_byte,
                                 s1 > s0 ? right : WMPI_PROC_NULL,
                                 buf + r0, r1 - r0, &wmpi_dt_byte,
                                 r1 > r0 ? left : WMPI_PROC_NULL);
    }
    return err;
}

static int scatter_allgather(const wmpi_coll_call *k, char *buf, int64_t bytes,
                             int root)
{
    int err = scatter(k, buf, bytes, root);

    return err ? err : ring_allgather(k, buf, bytes, root);
}

/* A schedule that moves bytes. */
typedef int (*byte_form)(const wmpi_coll_call *k, char *buf, int64_t bytes, int root);

/* A byte schedule on a non-contiguous type: on its packed bytes. */
static int packed(const wmpi_coll_call *k, const wmpi_coll_args *a, int64_t bytes,
                  byte_form form)
{
    char *tmp = malloc((size_t)bytes);
    int err = 0;

    if (!tmp)
        return WEFT_ENOMEM;
    if (k->rank == a->root && wmpi_datatype_pack(a->rdt, a->rcount, a->rbuf, tmp) < 0)
        err = WEFT_EINVAL;
    if (!err)
        err = form(k, tmp, bytes, a->root);
    if (!err && k->rank != a->root &&
        wmpi_datatype_unpack(a->rdt, a->rcount, tmp, a->rbuf) < 0)
        err = WEFT_EINVAL;
    free(tmp);
    return err;
}

/* The choice depends only on what every rank agrees on (the byte count
 * and the size), never on a rank's own datatype. */
int wmpi_coll_bcast_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int64_t bytes = wmpi_datatype_bytes(a->rdt, a->rcount);
    byte_form form;

    if (bytes < 0)
        return (int)bytes;
    if (k->size == 1 || bytes == 0)
        return 0;
    if (k->size < 3)
        return binomial(k, a->rbuf, a->rcount, a->rdt, a->root);
    if (bytes >= wmpi_coll_limit(BCAST_LONG))
        form = scatter_allgather;
    else if (bytes >= PIPE_MIN)
        form = pipelined;
    else
        return binomial(k, a->rbuf, a->rcount, a->rdt, a->root);
    if (!wmpi_datatype_is_contig(a->rdt))
        return packed(k, a, bytes, form);
    return form(k, a->rbuf, bytes, a->root);
}
