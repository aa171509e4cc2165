/* MPI_Barrier: a dissemination barrier over point-to-point messages on the
 * communicator's collective context.
 *
 * Design (Hensgen, Finkel and Manber's dissemination algorithm): in round
 * k = 0, 1, ... while 2^k < size, rank r sends an empty message to
 * (r + 2^k) mod size and receives one from (r - 2^k) mod size. After
 * ceil(log2 size) rounds every rank has heard, directly or through others,
 * from every rank, so none leaves before all arrived. Works for any size,
 * not only powers of two. The round number is the tag, so a fast rank's
 * message for a later round, or for the next barrier, never satisfies the
 * wrong receive (same sender, same tag only within one round and
 * barrier, and non-overtaking keeps consecutive barriers apart).
 * Messages use ctx + 1, which user point-to-point traffic never uses.
 *
 * Rejected: a gather to rank 0 and a broadcast back (2(n-1) messages
 * through one rank against n log n spread over all; same round count at
 * our sizes, but a hot spot). The collectives issue brings tuned
 * algorithms; this one only has to be correct.
 *
 * Invariants: every rank runs the same rounds in the same order.
 * Locking: none of its own; each round waits through wmpi_block.
 */
#include "engine/internal.h"

static int round_trip(wmpi_comm *c, int to, int from, int tag)
{
    wmpi_request *rq[2] = { NULL, NULL };
    wmpi_status st[2];
    int err;

    err = wmpi_irecv_ctx(NULL, 0, &wmpi_dt_byte, from, tag, c, c->ctx + 1, &rq[0]);
    if (!err)
        err = wmpi_isend_ctx(NULL, 0, &wmpi_dt_byte, to, tag, c, c->ctx + 1,
                             WMPI_MODE_STANDARD, &rq[1]);
    if (!err)
        err = wmpi_wait_requests(rq, 2, 2);
    for (int i = 0; i < 2; i++)
        if (rq[i] && wmpi_request_done(rq[i]))
            wmpi_request_finish(rq[i], &st[i]);
        else if (rq[i])
            wmpi_request_free(rq[i]);
    if (!err && rq[0] && rq[1])
        err = st[0].error ? st[0].error : st[1].error;
    return err;
}

int wmpi_barrier(wmpi_comm *c)
{
    int size = c->size, rank = c->rank, err = 0;

    for (int k = 1, round = 0; k < size && !err; k <<= 1, round++)
        err = round_trip(c, (rank + k) % size, (rank - k + size) % size, round);
    return err;
}
