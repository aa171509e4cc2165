/* Statuses: conversion from the engine's, finishing a completed request
 * into one, the queries on them (MPI_Get_count, MPI_Get_elements,
 * MPI_Test_cancelled) and the setters generalized requests use
 * (MPI_Status_set_elements(_x), MPI_Status_set_cancelled).
 *
 * Design: MPI_Status carries, besides the public MPI_SOURCE, MPI_TAG and
 * MPI_ERROR, the received byte count and the cancelled flag (private
 * fields, mpi.h). Counts are derived from bytes when asked, with the
 * datatype the caller names: bytes / size for whole elements (messages
 * carry packed data), or MPI_UNDEFINED when the bytes are not a whole
 * number of them (MPI-3.1 3.2.5); MPI_Get_elements counts basic elements,
 * those of a partial last element too, MPI_UNDEFINED if the bytes end
 * inside a basic element.
 *
 * MPI_ERROR is written only by the multiple-completion calls (Waitall,
 * Testall, Waitsome, Testsome), as MPI prescribes; the others leave it.
 *
 * Rejected: storing counts in elements (the datatype is only known when
 * the program asks; bytes are exact for every datatype).
 * Invariants: a status's byte count is what was stored in the buffer.
 * Locking: none (statuses belong to the caller; requests passed here are
 * done, so the engine no longer touches them).
 */
#include <limits.h>

#include "binding/binding.h"
#include "engine/objects/datatype.h"
#include "binding/grequest.h"

void wbind_status_out(MPI_Status *out, const wmpi_status *st, int with_error)
{
    if (out == MPI_STATUS_IGNORE)
        return;
    out->MPI_SOURCE = st->source;
    out->MPI_TAG = st->tag;
    if (with_error)
        out->MPI_ERROR = wbind_error_class(st->error);
    out->wmpi_cancelled = st->cancelled;
    out->wmpi_bytes = st->bytes;
}

int wbind_complete(MPI_Request *req, MPI_Status *status, int with_error)
{
    wmpi_status st;

    if ((*req)->kind == WMPI_REQ_GREQ) /* the user's callbacks give the status */
        return wbind_grequest_finish(req, status, with_error);
    if (wmpi_request_finish(*req, &st))
        *req = MPI_REQUEST_NULL;
    wbind_status_out(status, &st, with_error);
    return st.error;
}

int wbind_wait_one(MPI_Request *req, MPI_Status *status)
{
    int err = wmpi_wait_requests(req, 1, 1);

    return err ? err : wbind_complete(req, status, 0);
}

MPI_Comm wbind_request_comm(MPI_Request r)
{
    return r ? r->comm : MPI_COMM_WORLD;
}

/* ------------------------------------------------------------- queries */

/* Elements (basic: basic elements, counting those of a partial last
 * element) of dt in the status's packed byte count (datatype.h). */
static int count_of(const MPI_Status *status, MPI_Datatype dt, int basic,
                    MPI_Count *count)
{
    int64_t n = basic ? wmpi_datatype_elements(dt, status->wmpi_bytes)
                      : wmpi_datatype_count(dt, status->wmpi_bytes);

    *count = n < 0 ? MPI_UNDEFINED : (MPI_Count)n;
    return MPI_SUCCESS;
}

static int get_int(const MPI_Status *status, MPI_Datatype dt, int basic,
                   int *count, const char *fn)
{
    MPI_Count c;

    WMPI_NEED_INIT(fn);
    if (!status || !count)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    if (!wmpi_datatype_is_valid(dt))
        return wbind_fail(NULL, MPI_ERR_TYPE, fn);
    count_of(status, dt, basic, &c);
    *count = c > INT_MAX ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_int(status, datatype, 0, count, "MPI_Get_count");
}
WMPI_ALIAS(Get_count)

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    return get_int(status, datatype, 1, count, "MPI_Get_elements");
}
WMPI_ALIAS(Get_elements)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    WMPI_NEED_INIT("MPI_Get_elements_x");
    if (!status || !count)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Get_elements_x");
    if (!wmpi_datatype_is_valid(datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Get_elements_x");
    return count_of(status, datatype, 1, count);
}
WMPI_ALIAS(Get_elements_x)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    WMPI_NEED_INIT("MPI_Test_cancelled");
    if (!status || !flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Test_cancelled");
    *flag = status->wmpi_cancelled != 0;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Test_cancelled)

/* ------------------------------------------------------------- setters */

/* MPI_Status_set_elements(_x): a status whose MPI_Get_elements with `dt`
 * gives `count` (generalized requests' query_fn uses them): the bytes of
 * that many basic elements in type-map order (datatype.h). */
static int set_elements(MPI_Status *status, MPI_Datatype dt, MPI_Count count,
                        const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!status)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    if (!wmpi_datatype_is_valid(dt))
        return wbind_fail(NULL, MPI_ERR_TYPE, fn);
    if (count < 0 || (dt->size > 0 && count > INT64_MAX / (MPI_Count)dt->size))
        return wbind_fail(NULL, MPI_ERR_COUNT, fn);
    count = wmpi_datatype_elements_bytes(dt, count); /* exact, derived too */
    if (count < 0)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    status->wmpi_bytes = count;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements");
}
WMPI_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count count)
{
    return set_elements(status, datatype, count, "MPI_Status_set_elements_x");
}
WMPI_ALIAS(Status_set_elements_x)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    WMPI_NEED_INIT("MPI_Status_set_cancelled");
    if (!status)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled");
    status->wmpi_cancelled = flag != 0;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Status_set_cancelled)
