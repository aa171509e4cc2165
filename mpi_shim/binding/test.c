/* Nonblocking completion: MPI_Test, MPI_Testall, MPI_Testany,
 * MPI_Testsome, MPI_Request_get_status.
 *
 * Design: one progress pass (so that a program polling with MPI_Test in a
 * loop advances its communication, as MPI requires), then the same
 * finishing as the Wait family (wait.c) for what is done. MPI_Testall
 * finishes nothing unless everything is done. MPI_Request_get_status
 * reports without finishing.
 *
 * Rejected: testing without a progress pass (a program polling with
 * MPI_Test must see its messages arrive even if no thread waits).
 * Invariants: a request reported done is finished exactly once.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"
#include "binding/grequest.h"

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    MPI_Comm c;

    WMPI_NEED_INIT("MPI_Test");
    if (!request || !flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Test");
    if (wbind_bad_requests(1, request))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Test");
    *flag = 1;
    if (!wmpi_request_live(*request)) {
        wbind_status_empty(status, 0);
        if (*request)
            wbind_complete(request, MPI_STATUS_IGNORE, 0);
        return MPI_SUCCESS;
    }
    wmpi_progress_poke();
    if (!wmpi_request_done(*request)) {
        *flag = 0;
        wmpi_progress_yield(); /* a polling loop must not starve its completer */
        return MPI_SUCCESS;
    }
    c = wbind_request_comm(*request);
    return wbind_return(c, wbind_complete(request, status, 0), "MPI_Test");
}
WMPI_ALIAS(Test)

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    WMPI_NEED_INIT("MPI_Testall");
    if (count < 0 || (count > 0 && !array_of_requests) || !flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Testall");
    if (wbind_bad_requests(count, array_of_requests))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Testall");
    wmpi_progress_poke();
    for (int i = 0; i < count; i++) {
        if (wmpi_request_live(array_of_requests[i]) &&
            !wmpi_request_done(array_of_requests[i])) {
            *flag = 0;
            wmpi_progress_yield();
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return wbind_finish_all(count, array_of_requests, array_of_statuses, "MPI_Testall");
}
WMPI_ALIAS(Testall)

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index,
                 int *flag, MPI_Status *status)
{
    WMPI_NEED_INIT("MPI_Testany");
    if (count < 0 || (count > 0 && !array_of_requests) || !index || !flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Testany");
    if (wbind_bad_requests(count, array_of_requests))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Testany");
    *index = MPI_UNDEFINED;
    *flag = 1;
    if (!wbind_count_live(count, array_of_requests)) {
        wbind_status_empty(status, 0);
        return MPI_SUCCESS;
    }
    wmpi_progress_poke();
    *flag = 0;
    for (int i = 0; i < count && !*flag; i++)
        *flag = wmpi_request_live(array_of_requests[i]) &&
                wmpi_request_done(array_of_requests[i]);
    if (!*flag) {
        wmpi_progress_yield();
        return MPI_SUCCESS;
    }
    return wbind_finish_any(count, array_of_requests, index, status, "MPI_Testany");
}
WMPI_ALIAS(Testany)

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    int rc;

    WMPI_NEED_INIT("MPI_Testsome");
    if (incount < 0 || (incount > 0 && (!array_of_requests || !array_of_indices)) ||
        !outcount)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Testsome");
    if (wbind_bad_requests(incount, array_of_requests))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Testsome");
    if (!wbind_count_live(incount, array_of_requests)) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    wmpi_progress_poke();
    rc = wbind_finish_some(incount, array_of_requests, outcount,
                          array_of_indices, array_of_statuses, "MPI_Testsome");
    if (rc == MPI_SUCCESS && *outcount == 0)
        wmpi_progress_yield();
    return rc;
}
WMPI_ALIAS(Testsome)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    wmpi_status st;

    WMPI_NEED_INIT("MPI_Request_get_status");
    if (!flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Request_get_status");
    if (wbind_bad_requests(1, &request))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Request_get_status");
    *flag = 1;
    if (!wmpi_request_live(request)) {
        wbind_status_empty(status, 0);
        return MPI_SUCCESS;
    }
    wmpi_progress_poke();
    if (!wmpi_request_done(request)) {
        *flag = 0;
        wmpi_progress_yield(); /* a polling loop must not starve its completer */
        return MPI_SUCCESS;
    }
    if (request->kind == WMPI_REQ_GREQ) /* its query_fn gives the status */
        return wbind_return(wbind_request_comm(request),
                           wbind_grequest_query(request, status),
                           "MPI_Request_get_status");
    wmpi_request_peek(request, &st);
    wbind_status_out(status, &st, 0);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Request_get_status)
