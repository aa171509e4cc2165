/* Generalized requests in the completion bindings (binding/status.c,
 * binding/test.c): the user's query_fn and free_fn, called with MPI
 * types. Definitions in binding/grequest.c. */
#ifndef WMPI_BINDING_GREQUEST_H
#define WMPI_BINDING_GREQUEST_H

#include <mpi.h>

/* Finish the done generalized request *req as a completion call does:
 * query_fn fills *status (a scratch status if MPI_STATUS_IGNORE), then
 * free_fn runs, the request is released and *req set to
 * MPI_REQUEST_NULL. With `with_error`, status->MPI_ERROR gets the result.
 * Returns the callbacks' MPI code (free_fn's if nonzero, else query_fn's)
 * as wmpi_err_from_mpi(): 0 if both succeeded. Blocks: only if the
 * callbacks do. */
int wbind_grequest_finish(MPI_Request *req, MPI_Status *status, int with_error);

/* MPI_Request_get_status of a done generalized request: query_fn fills
 * *status; the request stays. Returns its code like wbind_grequest_finish. */
int wbind_grequest_query(MPI_Request req, MPI_Status *status);

#endif /* WMPI_BINDING_GREQUEST_H */
