/* The error path of the MPI functions Weft does not implement yet.
 *
 * Design: mpi.h declares every MPI-3.1 function (the list in
 * include/weft_mpi_functions.h), so any MPI program compiles and links.
 * At build time mpi_shim/api/gen_stubs.cmake writes a stub for each
 * listed function no binding defines (no WMPI_ALIAS(<Name>) in
 * any binding/ file); the stub calls wbind_unsupported(), which raises
 * MPI_ERR_UNSUPPORTED_OPERATION through the communicator's error handler
 * like any other error: under MPI_ERRORS_ARE_FATAL (the default) the job
 * stops with "MPI_Comm_spawn: MPI_ERR_UNSUPPORTED_OPERATION: unsupported
 * operation (MPI_Comm_spawn is not supported by Weft yet)"; under
 * MPI_ERRORS_RETURN the call returns the class. Implementing a function
 * therefore needs only its binding: the stub disappears on the next build.
 * The same run writes the table `mpirun --list-unsupported` prints.
 *
 * Rejected: a hand-kept table of implemented functions (it drifts from
 * the code); weak stubs overridden by the real bindings (a binding
 * missing its WMPI_ALIAS would silently keep the stub's MPI_ name, and a
 * duplicate definition is the louder, better failure).
 *
 * Invariants: none; no state. Locking: none (the error path is
 * thread-safe, binding/errors.c).
 */
#include <stdio.h>

#include "binding/binding.h"
#include "binding/unsupported.h"

static void describe(char *buf, size_t len, const char *fn)
{
    snprintf(buf, len, "%s is not supported by Weft yet", fn);
}

int wbind_unsupported(MPI_Comm comm, const char *fn)
{
    char detail[128];

    describe(detail, sizeof detail, fn);
    return wbind_fail_detail(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn, detail);
}

_Noreturn void wbind_unsupported_fatal(const char *fn)
{
    char msg[128];

    describe(msg, sizeof msg, fn);
    wmpi_abort(MPI_ERR_UNSUPPORTED_OPERATION, msg);
}
