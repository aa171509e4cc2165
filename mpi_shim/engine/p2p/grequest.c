/* Generalized requests: operations the program runs itself (on its own
 * threads, in a library...) that MPI's completion calls can wait for.
 *
 * Design: a generalized request is an ordinary request whose completion
 * flag is set by MPI_Grequest_complete instead of by the protocol. So
 * MPI_Wait, Waitany, Waitall, Waitsome and the Test family need nothing
 * special to wait for it: their waiter tests the flag (p2p/progress.c),
 * and the completion bumps the engine's wake-up generation and, if the
 * I/O server's blocker thread sleeps in epoll_wait, writes its eventfd
 * (wmpi_kick), exactly as a loopback send completed by another thread
 * does. A user-level thread or a plain pthread may complete it; the
 * waiter is woken at the server's next poll, or at once from epoll_wait.
 *
 * The user's callbacks run as MPI-3.1 section 12.2 says: query_fn, then
 * free_fn, in the completion call that finishes the request (the binding
 * does this: query_fn fills an MPI_Status); query_fn alone in
 * MPI_Request_get_status; cancel_fn in MPI_Cancel, told whether
 * MPI_Grequest_complete was called yet; free_fn in MPI_Request_free, or,
 * if the request is not complete by then, in MPI_Grequest_complete. The
 * engine lock decides which of those last two runs it, so it runs once
 * even when they race on two threads. No callback runs under the lock
 * (they may call MPI).
 *
 * Rejected: callbacks stored in every wmpi_request (four pointers on the
 * hot path for a rarely used kind); polling a user "done" flag from the
 * I/O server (the standard gives an explicit completion call; a flag
 * would also wake nobody sleeping in epoll_wait).
 *
 * Invariants: complete goes 0 -> 1 once, by MPI_Grequest_complete; a
 * request is freed once, after free_fn returned.
 * Locking: complete/freed decisions under the engine lock.
 */
#include <stdlib.h>

#include "engine/p2p/grequest.h"
#include "engine/core/internal.h"

int wmpi_grequest_start(wmpi_any_fn query, int (*free_fn)(void *),
                        int (*cancel_fn)(void *, int), void *extra,
                        wmpi_request **out)
{
    wmpi_grequest *g = calloc(1, sizeof *g);

    *out = NULL;
    if (!g)
        return WEFT_ENOMEM;
    g->req.kind = WMPI_REQ_GREQ;
    g->req.magic = WMPI_REQ_LIVE;
    g->req.comm = &wmpi_comm_world;
    g->req.peer = WMPI_ANY_SOURCE;
    g->req.tag = WMPI_ANY_TAG;
    g->query = query;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra = extra;
    *out = &g->req;
    return 0;
}

int wmpi_grequest_release(wmpi_request *r)
{
    wmpi_grequest *g = wmpi_grequest_of(r);
    int code = g->free_fn ? g->free_fn(g->extra) : 0;

    __atomic_store_n(&r->magic, WMPI_REQ_FREED, __ATOMIC_RELEASE);
    free(g);
    return code;
}

int wmpi_grequest_complete(wmpi_request *r)
{
    int freed, bad;

    wmpi_lock_engine();
    bad = r->kind != WMPI_REQ_GREQ || __atomic_load_n(&r->complete, __ATOMIC_RELAXED);
    freed = r->freed;
    if (!bad && !freed)
        __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    wmpi_unlock_engine();
    if (bad)
        return WEFT_EINVAL;
    if (freed) /* MPI_Request_free came first: nobody waits for it */
        return wmpi_err_from_mpi(wmpi_grequest_release(r));
    wmpi_kick();
    return 0;
}

int wmpi_grequest_free(wmpi_request *r)
{
    int now;

    wmpi_lock_engine();
    now = __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
    if (!now)
        r->freed = 1; /* wmpi_grequest_complete runs free_fn */
    wmpi_unlock_engine();
    return now ? wmpi_grequest_release(r) : 0;
}

int wmpi_grequest_cancel(wmpi_request *r)
{
    wmpi_grequest *g = wmpi_grequest_of(r);
    int done = __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);

    return g->cancel_fn ? g->cancel_fn(g->extra, done) : 0;
}
