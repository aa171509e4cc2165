/* MPI_Allreduce of short vectors on small communicators: every rank sends
 * its vector to rank 0, which combines them in rank order and sends the
 * result back to every rank.
 *
 * Why. Where ranks share CPUs (bench/osu_like runs 4 and 8 ranks on 2),
 * a short allreduce costs what its rounds cost in scheduling, not bytes.
 * Recursive doubling runs log2 n rounds in which every rank must get its
 * CPU in turn, n log2 n messages in all; the fan runs two, 2 (n - 1)
 * messages, and the ranks leave together, released by one rank's sends.
 * Measured with both forms back to back (a loop of calls, 2 CPUs):
 *   8 ranks, 1 KiB:  fan 108-109 us, doubling 168-182 us;
 *   8 ranks, 16 KiB: fan 165-179 us, doubling 232-243 us;
 *   4 ranks, 1 KiB:  fan 47-49 us, doubling 47-54 us.
 * Rank 0 does n - 1 local reductions of the vector, which at these sizes
 * costs less than a round. Open MPI 4.1's tuned choice on such
 * communicators is recursive doubling (51-64 us on 4 ranks, 177-199 us on
 * 8, same loop).
 *
 * Order: rank 0 folds left to right, acc = x0 op x1 op ... op x(n-1), so
 * a non-commutative op gives the order MPI requires, as the other forms.
 *
 * Rejected above FAN_MAX_RANKS: rank 0's 2 (n - 1) messages grow linearly
 * where doubling's rounds grow as log2 n.
 *
 * Locking: none of its own (messages through coll_util.c).
 */
#include "engine/coll_impl.h"

/* Rank 0: receive the n - 1 other vectors, fold them in rank order, and
 * leave the result in a->rbuf. */
static int gather_and_fold(const wmpi_coll_call *k, const wmpi_coll_args *a,
                           const void *mine)
{
    int64_t n = k->size, count = a->count;
    const char *acc = mine;
    wmpi_coll_tmp t;
    wmpi_coll_reqs q;
    int err = wmpi_coll_tmp_alloc(&t, count * (n - 1), a->dt);

    if (!err)
        err = wmpi_coll_reqs_init(&q, (int)n);
    if (err) {
        wmpi_coll_tmp_free(&t);
        return err;
    }
    for (int r = 1; r < n; r++)
        wmpi_coll_irecv(&q, k, 0, wmpi_coll_at(t.p, (r - 1) * count, a->dt), count, a->dt, r);
    err = wmpi_coll_reqs_wait(&q);
    for (int r = 1; r < n && !err; r++) {
        char *theirs = wmpi_coll_at(t.p, (r - 1) * count, a->dt);
        err = wmpi_coll_reduce_local(a->op, acc, theirs, count, a->dt); /* acc op x_r */
        acc = theirs;
    }
    if (!err)
        err = wmpi_coll_copy(acc, count, a->dt, a->rbuf, count, a->dt);
    wmpi_coll_tmp_free(&t);
    return err;
}

int wmpi_coll_allreduce_fan(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    const void *mine = a->sbuf == WMPI_IN_PLACE ? a->rbuf : a->sbuf;
    wmpi_coll_reqs q;
    int err;

    if (k->rank != 0) {
        wmpi_coll_reqs_init(&q, 2);
        wmpi_coll_irecv(&q, k, 1, a->rbuf, a->count, a->dt, 0);
        wmpi_coll_isend(&q, k, 0, mine, a->count, a->dt, 0);
        return wmpi_coll_reqs_wait(&q);
    }
    err = gather_and_fold(k, a, mine);
    if (err || (err = wmpi_coll_reqs_init(&q, k->size)) != 0)
        return err;
    for (int r = 1; r < k->size; r++)
        wmpi_coll_isend(&q, k, 1, a->rbuf, a->count, a->dt, r);
    return wmpi_coll_reqs_wait(&q);
}
