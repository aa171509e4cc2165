/* MPI_Barrier (and MPI_Ibarrier's schedule): a dissemination barrier over
 * point-to-point messages on the communicator's collective context.
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
 * Rejected: a gather to rank 0 and a broadcast back (2(n-1) messages
 * through one rank against n log n spread over all; twice the rounds of
 * dissemination and a hot spot); recursive doubling (needs an extra
 * round for sizes that are not powers of two).
 *
 * Invariants: every rank runs the same rounds in the same order.
 * Locking: none of its own; each round waits through wmpi_block.
 */
#include "engine/coll_impl.h"

int wmpi_coll_barrier_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int size = k->size, rank = k->rank, err = 0;

    (void)a;
    for (int dist = 1, round = 0; dist < size && !err; dist <<= 1, round++)
        err = wmpi_coll_sendrecv(k, round, NULL, 0, &wmpi_dt_byte,
                                 (rank + dist) % size, NULL, 0, &wmpi_dt_byte,
                                 (rank - dist + size) % size);
    return err;
}

int wmpi_barrier(wmpi_comm *c)
{
    wmpi_coll_args a = { 0 };

    return wmpi_coll(WMPI_COLL_BARRIER, &a, c);
}
