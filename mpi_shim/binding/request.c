/* Request management: MPI_Request_free and MPI_Cancel.
 *
 * Design: MPI_Request_free hands an active request over to the engine,
 * which frees it when the operation ends (MPI_Finalize waits for such
 * operations); MPI_Cancel withdraws a receive that no message matched
 * yet: it completes at once and MPI_Test_cancelled says so. A send, or a
 * receive already matched, is not cancelled (MPI allows a cancel to fail;
 * the operation then completes normally).
 *
 * Rejected: cancelling sends (MPI-3.1 allows it but deprecates it for the
 * next version; a cancel that fails is always correct).
 * Invariants: after MPI_Request_free the handle is MPI_REQUEST_NULL.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"

int PMPI_Request_free(MPI_Request *request)
{
    WMPI_NEED_INIT("MPI_Request_free");
    if (!request || !*request || wbind_bad_requests(1, request))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Request_free");
    wmpi_request_free(*request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Request_free)

int PMPI_Cancel(MPI_Request *request)
{
    WMPI_NEED_INIT("MPI_Cancel");
    if (!request || !*request || wbind_bad_requests(1, request))
        return wbind_fail(NULL, MPI_ERR_REQUEST, "MPI_Cancel");
    if (wmpi_request_live(*request))
        wmpi_cancel(*request);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Cancel)
