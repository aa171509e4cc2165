/* MPI_Pack, MPI_Unpack and MPI_Pack_size.
 *
 * Design: the packed format is the engine's wire format (datatype.h):
 * count * size bytes in type-map order, no header, no conversion (every
 * rank of a job shares one architecture). So MPI_Pack_size is exact,
 * MPI_PACKED data can be sent and received as bytes, and a message
 * packed here can be received straight into a matching derived type.
 * Running out of room in either buffer is MPI_ERR_TRUNCATE, as in Open
 * MPI, with the position left unchanged.
 *
 * Rejected: a header in the packed buffer (MPICH-style) for heterogeneous
 * jobs, which we do not run.
 * Invariants: *position only grows by exactly the bytes moved.
 * Locking: none (the caller's buffers; immutable types).
 */
#include <limits.h>

#include "binding/binding.h"
#include "engine/objects/datatype.h"

/* 0 or the class for moving `count` elements of dt between the typed
 * buffer and `size` packed bytes at *position (both directions); *bytes
 * gets the packed length. */
static int check(int count, MPI_Datatype dt, const void *typed,
                 const void *packed, int size, const int *position,
                 MPI_Comm comm, int64_t *bytes)
{
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!wmpi_datatype_committed(dt))
        return MPI_ERR_TYPE;
    if (!position || size < 0 || *position < 0)
        return MPI_ERR_ARG;
    *bytes = wmpi_datatype_bytes(dt, count);
    if (*bytes < 0 || !wmpi_datatype_fits(dt, count))
        return MPI_ERR_COUNT;
    if (*bytes > (int64_t)size - *position)
        return MPI_ERR_TRUNCATE;
    if (*bytes > 0 && (!packed || (!typed && wmpi_datatype_is_predefined(dt))))
        return MPI_ERR_BUFFER; /* derived types may start at MPI_BOTTOM */
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype,
              void *outbuf, int outsize, int *position, MPI_Comm comm)
{
    int64_t bytes;
    int cls;

    WMPI_NEED_INIT("MPI_Pack");
    cls = check(incount, datatype, inbuf, outbuf, outsize, position, comm,
                &bytes);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Pack");
    wmpi_datatype_pack(datatype, incount, inbuf, (char *)outbuf + *position);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf,
                int outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    int64_t bytes;
    int cls;

    WMPI_NEED_INIT("MPI_Unpack");
    cls = check(outcount, datatype, outbuf, inbuf, insize, position, comm,
                &bytes);
    if (cls)
        return wbind_fail(comm, cls, "MPI_Unpack");
    wmpi_datatype_unpack(datatype, outcount, (const char *)inbuf + *position,
                         outbuf);
    *position += (int)bytes;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    int64_t bytes;

    WMPI_NEED_INIT("MPI_Pack_size");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(comm, MPI_ERR_COMM, "MPI_Pack_size");
    if (incount < 0)
        return wbind_fail(comm, MPI_ERR_COUNT, "MPI_Pack_size");
    if (!wmpi_datatype_is_valid(datatype))
        return wbind_fail(comm, MPI_ERR_TYPE, "MPI_Pack_size");
    if (!size)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Pack_size");
    bytes = wmpi_datatype_bytes(datatype, incount);
    if (bytes < 0 || bytes > INT_MAX)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Pack_size");
    *size = (int)bytes;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Pack_size)
