/* Buffered-send buffers: MPI_Buffer_attach and MPI_Buffer_detach.
 *
 * Design: the engine carves the attached buffer for MPI_Bsend's copies
 * (engine/p2p/bsend.c). Detach blocks the calling thread until every buffered
 * message has been sent, then returns the buffer's address and size.
 * Detaching when nothing is attached returns a NULL buffer of size 0.
 *
 * Rejected: failing MPI_Buffer_detach while messages are in flight (MPI
 * says detach waits for them).
 * Invariants: a buffer is attached at most once at a time.
 * Locking: none here (the engine locks).
 */
#include "binding/binding.h"

int PMPI_Buffer_attach(void *buffer, int size)
{
    int err;

    WMPI_NEED_INIT("MPI_Buffer_attach");
    if (size < 0 || (size > 0 && !buffer))
        return wbind_fail(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach");
    err = wmpi_buffer_attach(buffer, (size_t)size);
    if (err == WEFT_EBUSY)
        return wbind_fail(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach");
    return wbind_return(NULL, err, "MPI_Buffer_attach");
}
WMPI_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    void *buf = NULL;
    size_t n = 0;
    int err;

    WMPI_NEED_INIT("MPI_Buffer_detach");
    if (!buffer_addr || !size)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Buffer_detach");
    err = wmpi_buffer_detach(&buf, &n);
    if (err)
        return wbind_return(NULL, err, "MPI_Buffer_detach");
    *(void **)buffer_addr = buf;
    *size = (int)n;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Buffer_detach)
