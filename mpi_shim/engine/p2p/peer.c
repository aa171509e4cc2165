/* Peer failures: what a broken connection does to pending operations.
 *
 * Design: when a transport reports a peer lost (EOF, ECONNRESET, any
 * socket error), every operation that can no longer finish fails with
 * -ECONNRESET, which the bindings report as MPI_ERR_OTHER through the
 * communicator's error handler (the default handler aborts the job with a
 * message): our sends waiting for its CTS, our receives waiting for its
 * DATA, posted receives naming it (or any source of a communicator that
 * holds it), and later operations with it. Frames still queued to it were
 * already finished with the error by the transport. Nothing ever waits on
 * a dead peer, so a crash elsewhere in the job turns into errors here,
 * never a hang.
 *
 * A peer that sent its closing message (MPI_Finalize, context
 * WMPI_CTX_FINAL) and then closed is not an error: `bye` marks it, set as
 * the closing message's header arrives, before the EOF that follows it.
 *
 * Rejected: reconnecting (a peer that lost its socket lost its state as
 * well; MPI has no recovery model here).
 * Invariants: `lost` never goes back to 0; a lost peer has no request in
 * its rts/rndv lists.
 * Locking: under the engine lock (called from the transport's progress).
 */
#include <stdio.h>
#include <string.h>

#include "engine/core/internal.h"

static void fail_list(wmpi_list *l, int err)
{
    wmpi_request *r;

    while ((r = l->head) != NULL)
        wmpi_request_complete_locked(r, err); /* unlinks r */
}

void wmpi_peer_lost_locked(int peer, int err)
{
    wmpi_peer *p = &wmpi_eng.peers[peer];

    if (p->lost)
        return;
    p->lost = 1;
    p->lost_err = -ECONNRESET;
    if (p->bye)
        return;
    const char *where = wmpi_route_where(peer);
    fprintf(stderr, "weft-mpi: rank %d: lost the connection to rank %d (%s%s%s, %s)\n",
            wmpi_eng.rank, peer, wmpi_route_name(peer), where ? " to " : "", where ? where : "",
            strerror(err < 0 ? -err : err));
    fail_list(&p->rts, p->lost_err);
    fail_list(&p->rndv, p->lost_err);
    wmpi_mq_fail_peer_locked(peer, p->lost_err);
    /* wake MPI_Probe callers: they look at wmpi_peer_err again */
    __atomic_add_fetch(&wmpi_eng.arrivals, 1, __ATOMIC_SEQ_CST);
    wmpi_kick();
}

static int failed(int wpeer)
{
    const wmpi_peer *p = &wmpi_eng.peers[wpeer];

    return p->lost && !p->bye ? p->lost_err : 0;
}

int wmpi_peer_err_locked(const wmpi_comm *c, int src)
{
    int err = 0;

    if (src != WMPI_ANY_SOURCE)
        return failed(wmpi_comm_world_rank(c, src));
    for (int i = 0; i < wmpi_comm_peers(c) && !err; i++) /* remote group
                                                          of an intercomm */
        err = failed(wmpi_comm_world_rank(c, i));
    return err;
}
