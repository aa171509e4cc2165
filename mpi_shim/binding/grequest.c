/* Generalized requests: MPI_Grequest_start, MPI_Grequest_complete, and
 * the callbacks' part of completing one (binding/grequest.h).
 *
 * Design: the engine (engine/p2p/grequest.c) makes the request waitable like
 * any other and decides when free_fn runs for MPI_Request_free; the
 * callbacks that take an MPI_Status (query_fn) are called here, where the
 * MPI types are known. A completion call (Wait, Test, and their any/some/
 * all forms, through wbind_complete) runs query_fn then free_fn on the
 * status the user passed (or a scratch one for MPI_STATUS_IGNORE, as the
 * standard requires), pre-filled as an empty status. Errors the callbacks
 * return are MPI error codes; they travel through the engine convention
 * (wmpi_err_from_mpi) so that the completion call returns them through
 * the request's communicator handler (MPI_COMM_WORLD's) unchanged.
 *
 * Rejected: completing generalized requests from the I/O server's poll
 * (the user's completion call is the one event that makes them done).
 * Invariants: query_fn runs only on a complete request; free_fn once.
 * Locking: none here (the engine locks its decisions; callbacks run with
 * no lock held).
 */
#include "binding/binding.h"
#include "binding/grequest.h"
#include "engine/p2p/grequest.h"

static int query(wmpi_grequest *g, MPI_Status *status)
{
    MPI_Grequest_query_function *fn = (MPI_Grequest_query_function *)g->query;

    wbind_status_empty(status, 0);
    return fn ? fn(g->extra, status) : MPI_SUCCESS;
}

int wbind_grequest_query(MPI_Request req, MPI_Status *status)
{
    MPI_Status scratch;

    if (status == MPI_STATUS_IGNORE)
        status = &scratch;
    return wmpi_err_from_mpi(query(wmpi_grequest_of(req), status));
}

int wbind_grequest_finish(MPI_Request *req, MPI_Status *status, int with_error)
{
    MPI_Status scratch;
    int qcode, fcode;

    if (status == MPI_STATUS_IGNORE)
        status = &scratch;
    qcode = query(wmpi_grequest_of(*req), status);
    fcode = wmpi_grequest_release(*req);
    *req = MPI_REQUEST_NULL;
    if (fcode == MPI_SUCCESS)
        fcode = qcode;
    if (with_error)
        status->MPI_ERROR = fcode;
    return wmpi_err_from_mpi(fcode);
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn,
                        void *extra_state, MPI_Request *request)
{
    WMPI_NEED_INIT("MPI_Grequest_start");
    if (!request)
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Grequest_start");
    return wbind_return(NULL, wmpi_grequest_start((wmpi_any_fn)query_fn, free_fn,
                                                 cancel_fn, extra_state, request),
                       "MPI_Grequest_start");
}
WMPI_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    int err;

    WMPI_NEED_INIT("MPI_Grequest_complete");
    if (request == MPI_REQUEST_NULL || request->kind != WMPI_REQ_GREQ)
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete");
    err = wmpi_grequest_complete(request);
    if (err == WEFT_EINVAL) /* completed twice */
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete");
    return wbind_return(NULL, err, "MPI_Grequest_complete");
}
WMPI_ALIAS(Grequest_complete)
