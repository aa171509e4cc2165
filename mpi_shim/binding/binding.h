/* What the MPI bindings share: the PMPI/MPI alias macro, the error path,
 * parameter checks and status conversion.
 *
 * Every binding is written as PMPI_<name> (the implementation) followed by
 * WMPI_ALIAS(<name>), which makes MPI_<name> a weak alias of it (as Open
 * MPI and MPICH do), so a profiling library can define MPI_<name> and call
 * PMPI_<name>. Bindings call only the engine (never another MPI_ function),
 * so a profiler sees each user call once.
 *
 * Errors: a binding returns MPI_SUCCESS or goes through wbind_fail()
 * (an MPI error class found by a parameter check) or wbind_return() (a
 * WEFT_E* code from the engine, mapped to a class). Both invoke the
 * communicator's error handler: MPI_ERRORS_ARE_FATAL (the default) aborts
 * the job with a message naming the function and the error;
 * MPI_ERRORS_RETURN returns the class; a user handler is called, then the
 * class is returned.
 *
 * Names: functions the bindings share among themselves are wbind_*; wmpi_*
 * names belong to the engine (and to the objects mpi.h's macros name), so
 * a name tells which side of the binding/engine line it lives on.
 */
#ifndef WMPI_BINDING_H
#define WMPI_BINDING_H

#include <mpi.h>

#include "engine/engine.h"
#include "engine/objects/info.h"

#define WMPI_STR_(x) #x
#define WMPI_STR(x) WMPI_STR_(x)
#define WMPI_ALIAS(name) _Pragma(WMPI_STR(weak MPI_##name = PMPI_##name))

/* A binding that refuses one kind of communicator with
 * MPI_ERR_UNSUPPORTED_OPERATION declares it beside its code, at file scope:
 *   WMPI_UNSUPPORTED_ON(Comm_example, "intercommunicators");
 * mpi_shim/api/gen_stubs.cmake reads these into the table mpirun
 * --list-unsupported prints; the compiler sees nothing. */
#define WMPI_UNSUPPORTED_ON(name, kind) _Static_assert(1, "MPI_" #name " on " kind)

/* ------------------------------------------------------------ errors */

enum { WMPI_ERRH_FATAL = 1, WMPI_ERRH_RETURN = 2, WMPI_ERRH_USER = 3 };

struct wmpi_errhandler {
    int kind;
    MPI_Comm_errhandler_function *fn; /* WMPI_ERRH_USER */
    int refs; /* atomic; user handlers: handles + communicators using it */
    uint32_t magic; /* atomic: WMPI_ERRH_LIVE while referenced (predefined:
                       always), WMPI_ERRH_FREED once the last reference went */
};

#define WMPI_ERRH_LIVE 0x48525245u  /* "ERRH" */
#define WMPI_ERRH_FREED 0x44525245u /* "ERRD" */

/* 1 if h looks like an error handler still referenced: not NULL, not a
 * small integer or misaligned pointer, not zeroed or released memory
 * (released handlers stay readable in the quarantine for a while). A
 * handler freed while a communicator or window still uses it stays valid:
 * every handle to it, from create or get_errhandler, is the same address.
 * One load and compare. */
static inline int wbind_errh_is_live(MPI_Errhandler h)
{
    return WMPI_MARKED_LIVE(h, struct wmpi_errhandler, WMPI_ERRH_LIVE);
}

/* A user handler of kind WMPI_ERRH_USER calling fn (a window's function
 * cast to the communicator type), one reference; NULL if out of memory. */
MPI_Errhandler wbind_errh_create(MPI_Comm_errhandler_function *fn);
/* Drop a reference of a user handler (predefined ones and NULL are left
 * alone); the last one puts it in the quarantine. */
void wbind_errh_release(MPI_Errhandler h);

/* Drop the handlers of the predefined communicators (MPI_Finalize). */
void wbind_errhandlers_release(void);

/* Report MPI error class `cls` raised by function `fn` on `comm` (NULL:
 * MPI_COMM_WORLD) through its error handler; returns cls if it returns. */
int wbind_fail(MPI_Comm comm, int cls, const char *fn);
/* 0 -> MPI_SUCCESS; else wbind_fail with the class of WEFT_E* code `err`,
 * whose text also appears in a fatal message. */
int wbind_return(MPI_Comm comm, int err, const char *fn);
/* The MPI error class of a WEFT_E* code (0 -> MPI_SUCCESS). */
int wbind_error_class(int err);

/* MPI must be initialised and not finalised; else abort with a message
 * (MPI says such calls are erroneous). */
void wbind_need_init(const char *fn);
#define WMPI_NEED_INIT(fn)                                                 \
    do {                                                                   \
        if (__builtin_expect(!wmpi_state.initialized || wmpi_state.finalized, 0)) \
            wbind_need_init(fn);                                            \
    } while (0)

/* --------------------------------------------------- parameter checks */

/* 0 or the MPI error class for a point-to-point argument list. `peer` is a
 * destination (send) or a source (recv: MPI_ANY_SOURCE allowed); `tag`
 * likewise (MPI_ANY_TAG allowed for receives). */
int wbind_check_p2p(const void *buf, int count, MPI_Datatype dt, int peer,
                   int tag, MPI_Comm comm, int recv);

/* wbind_check_p2p for calls that hand back a request: MPI_ERR_REQUEST too
 * when `req` is NULL. */
int wbind_check_p2p_req(const void *buf, int count, MPI_Datatype dt, int peer,
                       int tag, MPI_Comm comm, int recv, const MPI_Request *req);

/* 0 for MPI_INFO_NULL or a live info object, else MPI_ERR_INFO (freed or
 * zeroed memory, a small integer): for the calls whose info argument may
 * be null. One load and compare. */
static inline int wbind_check_info(MPI_Info info)
{
    return info == MPI_INFO_NULL || wmpi_info_is_live(info) ? 0 : MPI_ERR_INFO;
}

/* ------------------------------------------------------------ status */

/* Copy an engine status out. `with_error` says whether MPI_ERROR is set:
 * only multiple-completion calls set it (MPI-3.1 3.2.5). */
void wbind_status_out(MPI_Status *out, const wmpi_status *st, int with_error);

/* ------------------------------------------------------ completion */

/* Finish a done request into status (MPI_STATUS_IGNORE allowed) and set
 * *req to MPI_REQUEST_NULL unless it is persistent. Returns the engine
 * error code of the operation (0 if fine). */
int wbind_complete(MPI_Request *req, MPI_Status *status, int with_error);

/* Block until *req is done, then wbind_complete it (MPI_ERROR untouched).
 * Returns a wait error or the operation's error. */
int wbind_wait_one(MPI_Request *req, MPI_Status *status);

/* An empty status (null or inactive request): source MPI_ANY_SOURCE, tag
 * MPI_ANY_TAG, count 0, not cancelled. */
void wbind_status_empty(MPI_Status *st, int with_error);

/* Multiple completion, shared by the Wait and Test families (wait.c):
 * finish every request / every done one / the first done one, reporting
 * errors as MPI prescribes for `fn`. */
int wbind_finish_all(int n, MPI_Request reqs[], MPI_Status statuses[],
                    const char *fn);
int wbind_finish_some(int n, MPI_Request reqs[], int *outcount, int indices[],
                     MPI_Status statuses[], const char *fn);
int wbind_finish_any(int n, MPI_Request reqs[], int *index, MPI_Status *status,
                    const char *fn);
int wbind_count_live(int n, MPI_Request reqs[]);
/* 1 if a handle of reqs[0..n-1] other than MPI_REQUEST_NULL is not a
 * request the engine made and still holds (zeroed or freed memory, a
 * small integer): the caller fails with MPI_ERR_REQUEST instead of
 * waiting on it forever. */
int wbind_bad_requests(int n, const MPI_Request reqs[]);

/* The communicator whose handler reports errors of request `r`. */
MPI_Comm wbind_request_comm(MPI_Request r);

#endif /* WMPI_BINDING_H */
