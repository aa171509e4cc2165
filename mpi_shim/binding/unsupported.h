/* What the generated stubs of the MPI functions Weft does not implement
 * yet call (the stubs: mpi_shim/api/gen_stubs.cmake, from the list in
 * include/weft_mpi_functions.h).
 */
#ifndef WMPI_UNSUPPORTED_H
#define WMPI_UNSUPPORTED_H

#include <mpi.h>

/* Report MPI_ERR_UNSUPPORTED_OPERATION for function `fn` ("MPI_Win_create")
 * through the error handler of `comm` (MPI_COMM_NULL: MPI_COMM_WORLD's),
 * with the text "<fn> is not supported by Weft yet" in a fatal message.
 * Returns MPI_ERR_UNSUPPORTED_OPERATION if the handler returns. Works
 * before MPI_Init and after MPI_Finalize too. Does not block. */
int wbind_unsupported(MPI_Comm comm, const char *fn);

/* For functions that cannot return an error class (they return a handle
 * or a value): abort the job with "<fn> is not supported by Weft yet". */
_Noreturn void wbind_unsupported_fatal(const char *fn);

/* wbind_fail (binding/binding.h) with `detail` added to a fatal message;
 * defined in binding/errors.c. */
int wbind_fail_detail(MPI_Comm comm, int cls, const char *fn, const char *detail);

#endif /* WMPI_UNSUPPORTED_H */
