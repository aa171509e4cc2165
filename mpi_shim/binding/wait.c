/* Blocking completion: MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome,
 * and the helpers the Test family shares with them.
 *
 * Design: the engine blocks the calling thread once for the whole set
 * (one waiter: "need 1 of n" for Waitany/Waitsome, "n of n" for Waitall),
 * detected by the I/O server's poll of the MPI handle; then the done
 * requests are finished here: status out, handle set to MPI_REQUEST_NULL
 * (persistent ones become inactive instead). Null handles and inactive
 * persistent requests are skipped as MPI prescribes: Waitany/Waitsome
 * report MPI_UNDEFINED when nothing is live, Wait/Waitall give them an
 * empty status.
 *
 * Errors: single completions return the operation's class through its
 * communicator's handler; multiple completions set each status's
 * MPI_ERROR and return MPI_ERR_IN_STATUS (handler of the first failed
 * request's communicator).
 *
 * Rejected: waiting on the requests one by one (Waitany cannot, and one
 * waiter per call keeps a single wake-up for the whole set).
 * Invariants: a finished non-persistent request's handle becomes
 * MPI_REQUEST_NULL; indices and statuses line up.
 * Locking: none here (the engine locks; done requests are ours).
 */
#include "binding/binding.h"

void wbind_status_empty(MPI_Status *st, int with_error)
{
    wmpi_status e = { .source = MPI_ANY_SOURCE, .tag = MPI_ANY_TAG };

    wbind_status_out(st, &e, with_error);
}

static MPI_Status *nth(MPI_Status *arr, int i)
{
    return arr == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &arr[i];
}

int wbind_finish_all(int n, MPI_Request reqs[], MPI_Status statuses[],
                    const char *fn)
{
    MPI_Comm bad = MPI_COMM_NULL;

    for (int i = 0; i < n; i++) {
        MPI_Comm c = wbind_request_comm(reqs[i]);
        if (!wmpi_request_live(reqs[i])) {
            wbind_status_empty(nth(statuses, i), 1);
            if (reqs[i])
                wbind_complete(&reqs[i], MPI_STATUS_IGNORE, 0);
        } else if (wbind_complete(&reqs[i], nth(statuses, i), 1) && !bad) {
            bad = c;
        }
    }
    return bad ? wbind_fail(bad, MPI_ERR_IN_STATUS, fn) : MPI_SUCCESS;
}

int wbind_finish_some(int n, MPI_Request reqs[], int *outcount, int indices[],
                     MPI_Status statuses[], const char *fn)
{
    MPI_Comm bad = MPI_COMM_NULL;
    int k = 0;

    for (int i = 0; i < n; i++) {
        MPI_Comm c = wbind_request_comm(reqs[i]);
        if (!wmpi_request_live(reqs[i]) || !wmpi_request_done(reqs[i]))
            continue;
        if (wbind_complete(&reqs[i], nth(statuses, k), 1) && !bad)
            bad = c;
        indices[k++] = i;
    }
    *outcount = k;
    return bad ? wbind_fail(bad, MPI_ERR_IN_STATUS, fn) : MPI_SUCCESS;
}

int wbind_count_live(int n, MPI_Request reqs[])
{
    int live = 0;

    for (int i = 0; i < n; i++)
        live += wmpi_request_live(reqs[i]);
    return live;
}

int wbind_bad_requests(int n, const MPI_Request reqs[])
{
    for (int i = 0; i < n; i++)
        if (reqs[i] && !wmpi_request_is_valid(reqs[i]))
            return 1;
    return 0;
}

/* --------------------------------------------------------------- waits */

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    MPI_Comm c;

    WMPI_NEED_INIT("MPI_Wait");
    if (!request || wbind_bad_requests(1, request))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Wait");
    if (!wmpi_request_live(*request)) {
        wbind_status_empty(status, 0);
        if (*request)
            wbind_complete(request, MPI_STATUS_IGNORE, 0);
        return MPI_SUCCESS;
    }
    c = wbind_request_comm(*request);
    return wbind_return(c, wbind_wait_one(request, status), "MPI_Wait");
}
WMPI_ALIAS(Wait)

int PMPI_Waitall(int count, MPI_Request array_of_requests[],
                 MPI_Status array_of_statuses[])
{
    int err;

    WMPI_NEED_INIT("MPI_Waitall");
    if (count < 0 || (count > 0 && !array_of_requests))
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Waitall");
    if (wbind_bad_requests(count, array_of_requests))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Waitall");
    err = wmpi_wait_requests(array_of_requests, count, count);
    if (err)
        return wbind_return(NULL, err, "MPI_Waitall");
    return wbind_finish_all(count, array_of_requests, array_of_statuses, "MPI_Waitall");
}
WMPI_ALIAS(Waitall)

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                 MPI_Status *status)
{
    int err;

    WMPI_NEED_INIT("MPI_Waitany");
    if (count < 0 || (count > 0 && !array_of_requests) || !index)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Waitany");
    if (wbind_bad_requests(count, array_of_requests))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Waitany");
    *index = MPI_UNDEFINED;
    if (!wbind_count_live(count, array_of_requests)) {
        wbind_status_empty(status, 0);
        return MPI_SUCCESS;
    }
    err = wmpi_wait_requests(array_of_requests, count, 1);
    if (err)
        return wbind_return(NULL, err, "MPI_Waitany");
    return wbind_finish_any(count, array_of_requests, index, status, "MPI_Waitany");
}
WMPI_ALIAS(Waitany)

int wbind_finish_any(int n, MPI_Request reqs[], int *index, MPI_Status *status,
                    const char *fn)
{
    for (int i = 0; i < n; i++) {
        if (wmpi_request_live(reqs[i]) && wmpi_request_done(reqs[i])) {
            MPI_Comm c = wbind_request_comm(reqs[i]);
            *index = i;
            return wbind_return(c, wbind_complete(&reqs[i], status, 0), fn);
        }
    }
    return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    int err;

    WMPI_NEED_INIT("MPI_Waitsome");
    if (incount < 0 || (incount > 0 && (!array_of_requests || !array_of_indices)) ||
        !outcount)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Waitsome");
    if (wbind_bad_requests(incount, array_of_requests))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Waitsome");
    if (!wbind_count_live(incount, array_of_requests)) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    err = wmpi_wait_requests(array_of_requests, incount, 1);
    if (err)
        return wbind_return(NULL, err, "MPI_Waitsome");
    return wbind_finish_some(incount, array_of_requests, outcount,
                            array_of_indices, array_of_statuses, "MPI_Waitsome");
}
WMPI_ALIAS(Waitsome)
