/* Generalized requests (MPI_Grequest_start / MPI_Grequest_complete): the
 * engine side, for binding/grequest.c, engine/p2p/request.c (free, cancel)
 * and the completion bindings (binding/status.c, binding/test.c).
 *
 * A generalized request is a wmpi_request (kind WMPI_REQ_GREQ, first
 * member, so every request path handles it) plus the user's callbacks.
 * It completes when the user calls MPI_Grequest_complete, from any
 * thread; waiters in MPI_Wait & co are woken like for any request.
 */
#ifndef WMPI_GREQUEST_H
#define WMPI_GREQUEST_H

#include "engine/engine.h"

/* A function pointer of no particular type: the query callback takes an
 * MPI_Status, which the engine does not know; the binding converts it
 * back to MPI_Grequest_query_function before calling it. */
typedef void (*wmpi_any_fn)(void);

typedef struct wmpi_grequest {
    wmpi_request req;                 /* first: a grequest is a request */
    wmpi_any_fn query;                /* read-only */
    int (*free_fn)(void *extra);      /* read-only */
    int (*cancel_fn)(void *extra, int complete); /* read-only */
    void *extra;                      /* read-only */
} wmpi_grequest;

static inline wmpi_grequest *wmpi_grequest_of(wmpi_request *r)
{
    return (wmpi_grequest *)r;
}

/* A new active generalized request in *out (on MPI_COMM_WORLD, for error
 * reporting). Errors: WEFT_ENOMEM (*out NULL). Blocks: no. */
int wmpi_grequest_start(wmpi_any_fn query, int (*free_fn)(void *),
                        int (*cancel_fn)(void *, int), void *extra,
                        wmpi_request **out);

/* MPI_Grequest_complete: mark r done and wake its waiters; if the user
 * freed r already, run free_fn and release r instead. Returns 0, or
 * free_fn's nonzero MPI code as wmpi_err_from_mpi(). Errors: WEFT_EINVAL
 * (r is not a generalized request, or was completed already). Context:
 * any thread. Blocks: no (free_fn runs in the caller). */
int wmpi_grequest_complete(wmpi_request *r);

/* MPI_Request_free of a generalized request: run free_fn and release r
 * if it is complete, else mark it so that wmpi_grequest_complete does.
 * Returns free_fn's result (an MPI code), or 0 if it was deferred. */
int wmpi_grequest_free(wmpi_request *r);

/* MPI_Cancel: call cancel_fn(extra, complete?). Returns its MPI code. */
int wmpi_grequest_cancel(wmpi_request *r);

/* Release a done generalized request after its status was queried: run
 * free_fn, free r. Returns free_fn's MPI code. */
int wmpi_grequest_release(wmpi_request *r);

#endif /* WMPI_GREQUEST_H */
