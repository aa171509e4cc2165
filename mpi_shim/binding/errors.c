/* Error handling: the one error path of every binding, error handlers,
 * error classes and their strings.
 *
 * Design: engine errors are WEFT_E* codes (-errno where one exists);
 * wbind_error_class() maps them to MPI classes in one table, and
 * wbind_fail() hands the class to the communicator's handler (as Open MPI's
 * OMPI_ERRHANDLER_RETURN): MPI_ERRORS_ARE_FATAL aborts the whole job
 * through the launcher (wmpi_abort -> wmpi_boot_abort) with
 * "<function>: <class name>: <text>", exit status = the class;
 * MPI_ERRORS_RETURN returns the class; a user handler (MPI_Comm_create_
 * errhandler) is called with the communicator and the class, then the
 * class is returned. The predefined error codes are the classes; codes
 * and classes the program adds (MPI_Add_error_*, binding/errclass.c)
 * follow MPI_ERR_LASTCODE and pass through handlers, MPI_Error_class and
 * MPI_Error_string like the others. An MPI code a user callback returned
 * (generalized requests) reaches wbind_return encoded as an engine error
 * (wmpi_err_from_mpi) and comes out unchanged.
 *
 * User handlers are reference counted (MPI: a freed handler lives on
 * while a communicator uses it): one reference per handle the user holds
 * (MPI_Comm_create_errhandler, MPI_Comm_get_errhandler) and one per
 * communicator set to it; the predefined handlers are never counted.
 * MPI_Finalize drops the predefined communicators' references. A handler
 * carries a live mark, cleared when its last reference goes (its memory
 * then waits in the quarantine, engine/objects/quarantine.c): a released,
 * zeroed or small-integer handle is MPI_ERR_ARG, as in MPICH and Open MPI.
 *
 * Rejected: exit() in the fatal handler (it would leave the other ranks
 * waiting on us; the launcher must stop the whole job).
 * Invariants: every class in 0..MPI_ERR_LASTCODE has a name and a text;
 * wbind_fail returns its class unless the handler aborted.
 * Locking: a communicator's handler is one pointer, swapped atomically;
 * counts are atomic (setting a handler concurrently with an error on the
 * same communicator is a user race, as in every MPI).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/binding.h"
#include "binding/comm.h"
#include "binding/errclass.h"
#include "engine/objects/quarantine.h"

struct wmpi_errhandler wmpi_errh_fatal = { WMPI_ERRH_FATAL, NULL, 0, WMPI_ERRH_LIVE };
struct wmpi_errhandler wmpi_errh_return = { WMPI_ERRH_RETURN, NULL, 0, WMPI_ERRH_LIVE };

_Static_assert(offsetof(struct wmpi_errhandler, magic) >= 16,
               "the live mark lies past the words free() reuses");

static const char *const class_name[MPI_ERR_LASTCODE + 1] = {
#define C(x) [x] = #x
    C(MPI_SUCCESS), C(MPI_ERR_BUFFER), C(MPI_ERR_COUNT), C(MPI_ERR_TYPE),
    C(MPI_ERR_TAG), C(MPI_ERR_COMM), C(MPI_ERR_RANK), C(MPI_ERR_REQUEST),
    C(MPI_ERR_ROOT), C(MPI_ERR_GROUP), C(MPI_ERR_OP), C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS), C(MPI_ERR_ARG), C(MPI_ERR_UNKNOWN), C(MPI_ERR_TRUNCATE),
    C(MPI_ERR_OTHER), C(MPI_ERR_INTERN), C(MPI_ERR_IN_STATUS),
    C(MPI_ERR_PENDING), C(MPI_ERR_ACCESS), C(MPI_ERR_AMODE), C(MPI_ERR_ASSERT),
    C(MPI_ERR_BAD_FILE), C(MPI_ERR_BASE), C(MPI_ERR_CONVERSION),
    C(MPI_ERR_DISP), C(MPI_ERR_DUP_DATAREP), C(MPI_ERR_FILE_EXISTS),
    C(MPI_ERR_FILE_IN_USE), C(MPI_ERR_FILE), C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO),
    C(MPI_ERR_IO), C(MPI_ERR_KEYVAL), C(MPI_ERR_LOCKTYPE), C(MPI_ERR_NAME),
    C(MPI_ERR_NO_MEM), C(MPI_ERR_NOT_SAME), C(MPI_ERR_NO_SPACE),
    C(MPI_ERR_NO_SUCH_FILE), C(MPI_ERR_PORT), C(MPI_ERR_QUOTA),
    C(MPI_ERR_READ_ONLY), C(MPI_ERR_RMA_ATTACH), C(MPI_ERR_RMA_CONFLICT),
    C(MPI_ERR_RMA_RANGE), C(MPI_ERR_RMA_SHARED), C(MPI_ERR_RMA_SYNC),
    C(MPI_ERR_RMA_FLAVOR), C(MPI_ERR_SERVICE), C(MPI_ERR_SIZE),
    C(MPI_ERR_SPAWN), C(MPI_ERR_UNSUPPORTED_DATAREP),
    C(MPI_ERR_UNSUPPORTED_OPERATION), C(MPI_ERR_WIN), C(MPI_T_ERR_MEMORY),
    C(MPI_T_ERR_NOT_INITIALIZED), C(MPI_T_ERR_CANNOT_INIT),
    C(MPI_T_ERR_INVALID_INDEX), C(MPI_T_ERR_INVALID_ITEM),
    C(MPI_T_ERR_INVALID_HANDLE), C(MPI_T_ERR_OUT_OF_HANDLES),
    C(MPI_T_ERR_OUT_OF_SESSIONS), C(MPI_T_ERR_INVALID_SESSION),
    C(MPI_T_ERR_CVAR_SET_NOT_NOW), C(MPI_T_ERR_CVAR_SET_NEVER),
    C(MPI_T_ERR_PVAR_NO_STARTSTOP), C(MPI_T_ERR_PVAR_NO_WRITE),
    C(MPI_T_ERR_PVAR_NO_ATOMIC), C(MPI_T_ERR_INVALID_NAME),
    C(MPI_T_ERR_INVALID), C(MPI_ERR_LASTCODE),
#undef C
};

static const char *const class_text[MPI_ERR_LASTCODE + 1] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated on receive",
    [MPI_ERR_OTHER] = "known error not in this list",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_CONVERSION] = "data conversion failed",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_DUP_DATAREP] = "data representation already registered",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_NAME] = "service name not published",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "file does not exist",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file or file system",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_RANGE] = "target memory outside the window",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_SYNC] = "wrong synchronisation of RMA calls",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_SPAWN] = "cannot spawn processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "unsupported operation",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_T_ERR_MEMORY] = "tool interface: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "tool interface not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "tool interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "tool interface: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "tool interface: invalid item",
    [MPI_T_ERR_INVALID_HANDLE] = "tool interface: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "tool interface: out of handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "tool interface: out of sessions",
    [MPI_T_ERR_INVALID_SESSION] = "tool interface: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "control variable can never be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "performance variable cannot start or stop",
    [MPI_T_ERR_PVAR_NO_WRITE] = "performance variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "performance variable cannot be read atomically",
    [MPI_T_ERR_INVALID_NAME] = "tool interface: invalid name",
    [MPI_T_ERR_INVALID] = "tool interface: invalid use",
    [MPI_ERR_LASTCODE] = "last error code",
};

/* ----------------------------------------------------------- the path */

int wbind_error_class(int err)
{
    if (wmpi_err_is_mpi(err)) /* a user callback's MPI code, as it was */
        return WMPI_EMPI_BASE - err;
    switch (err) {
    case 0:              return MPI_SUCCESS;
    case -EMSGSIZE:      return MPI_ERR_TRUNCATE;
    case -ENOBUFS:       return MPI_ERR_BUFFER;
    case WEFT_ENOMEM:    return MPI_ERR_NO_MEM;
    case WEFT_EINVAL:    return MPI_ERR_ARG;
    default:             return MPI_ERR_OTHER;
    }
}

/* A communicator's handler (default: fatal); errors tied to no
 * communicator use MPI_COMM_WORLD's. */
static MPI_Errhandler handler_of(MPI_Comm comm)
{
    /* an erroneous handle has no handler to read: MPI_COMM_WORLD's serves */
    MPI_Errhandler h = (MPI_Errhandler)(wmpi_comm_is_live(comm) ? comm
                                                             : MPI_COMM_WORLD)->errh;

    return h ? h : MPI_ERRORS_ARE_FATAL;
}

static _Noreturn void die(int cls, const char *fn, const char *detail)
{
    char msg[512], text[MPI_MAX_ERROR_STRING];

    if (wbind_errcode_string(cls, text, sizeof text)) { /* a user code */
        snprintf(msg, sizeof msg, "%s: user error code %d: %s", fn, cls, text);
        wmpi_abort(cls, msg);
    }
    snprintf(msg, sizeof msg, "%s: %s: %s%s%s%s", fn, class_name[cls],
             class_text[cls], detail ? " (" : "", detail ? detail : "",
             detail ? ")" : "");
    wmpi_abort(cls, msg);
}

static int handle(MPI_Comm comm, int cls, const char *fn, const char *detail)
{
    MPI_Errhandler h = handler_of(comm);

    if (wbind_errcode_class(cls) < 0) /* neither predefined nor user-added */
        cls = MPI_ERR_UNKNOWN;
    if (h->kind == WMPI_ERRH_FATAL)
        die(cls, fn, detail);
    if (h->kind == WMPI_ERRH_USER && h->fn) {
        MPI_Comm c = wmpi_comm_is_live(comm) ? comm : MPI_COMM_WORLD;
        int code = cls;
        h->fn(&c, &code, fn);
    }
    return cls;
}

int wbind_fail(MPI_Comm comm, int cls, const char *fn)
{
    return handle(comm, cls, fn, NULL);
}

/* wbind_fail with a text for the fatal message (binding/unsupported.h). */
int wbind_fail_detail(MPI_Comm comm, int cls, const char *fn, const char *detail)
{
    return handle(comm, cls, fn, detail);
}

int wbind_return(MPI_Comm comm, int err, const char *fn)
{
    if (err == 0)
        return MPI_SUCCESS;
    return handle(comm, wbind_error_class(err), fn,
                  wmpi_err_is_mpi(err) ? NULL
                  : err == WEFT_ESTATE ? weft_strerror(err) : strerror(-err));
}

void wbind_need_init(const char *fn)
{
    char msg[256];

    snprintf(msg, sizeof msg, "%s called %s", fn,
             wmpi_state.finalized ? "after MPI_Finalize" : "before MPI_Init");
    wmpi_abort(MPI_ERR_OTHER, msg);
}

/* ------------------------------------------------------------ handlers */

static MPI_Errhandler hold(MPI_Errhandler h)
{
    if (h && h->kind == WMPI_ERRH_USER)
        __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
    return h;
}

MPI_Errhandler wbind_errh_create(MPI_Comm_errhandler_function *fn)
{
    MPI_Errhandler h = malloc(sizeof *h);

    if (h)
        *h = (struct wmpi_errhandler){ WMPI_ERRH_USER, fn, 1, WMPI_ERRH_LIVE };
    return h;
}

void wbind_errh_release(MPI_Errhandler h)
{
    if (!h || h->kind != WMPI_ERRH_USER ||
        __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    /* a stale copy of a handle then reads FREED in memory still ours */
    __atomic_store_n(&h->magic, WMPI_ERRH_FREED, __ATOMIC_RELEASE);
    wmpi_quarantine_put(h);
}

static void set_handler(MPI_Comm comm, MPI_Errhandler h)
{
    wbind_errh_release(__atomic_exchange_n((MPI_Errhandler *)&comm->errh, hold(h),
                                           __ATOMIC_ACQ_REL));
}

/* The engine destroyed a communicator: drop its handler's reference. */
static void drop_comm_handler(wmpi_comm *c)
{
    wbind_errh_release(__atomic_exchange_n((MPI_Errhandler *)&c->errh, NULL, __ATOMIC_ACQ_REL));
}

/* (binding/comm.h) A new communicator inherits its parent's handler. */
void wbind_comm_inherit_errh(MPI_Comm nc, MPI_Comm parent)
{
    wmpi_comm_set_destroy_hook(drop_comm_handler);
    set_handler(nc, (MPI_Errhandler)parent->errh);
}

void wbind_errhandlers_release(void)
{
    set_handler(MPI_COMM_WORLD, NULL);
    set_handler(MPI_COMM_SELF, NULL);
}

/* The MPI-1 names (MPI_Errhandler_set/get/create, deprecated but in
 * MPI-3.1) share these bodies with the MPI-2 ones; `fn` names the call. */
static int comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler,
                               const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, fn);
    if (!wbind_errh_is_live(errhandler)) /* null, released, zeroed */
        return wbind_fail(comm, MPI_ERR_ARG, fn);
    set_handler(comm, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return comm_set_errhandler(comm, errhandler, "MPI_Comm_set_errhandler");
}
WMPI_ALIAS(Comm_set_errhandler)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return comm_set_errhandler(comm, errhandler, "MPI_Errhandler_set");
}
WMPI_ALIAS(Errhandler_set)

static int comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler,
                               const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, fn);
    if (!errhandler)
        return wbind_fail(comm, MPI_ERR_ARG, fn);
    *errhandler = hold(comm->errh ? comm->errh : MPI_ERRORS_ARE_FATAL);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return comm_get_errhandler(comm, errhandler, "MPI_Comm_get_errhandler");
}
WMPI_ALIAS(Comm_get_errhandler)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return comm_get_errhandler(comm, errhandler, "MPI_Errhandler_get");
}
WMPI_ALIAS(Errhandler_get)

static int create_errhandler(MPI_Comm_errhandler_function *function,
                             MPI_Errhandler *errhandler, const char *fn)
{
    MPI_Errhandler h;

    if (!function || !errhandler)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    h = wbind_errh_create(function);
    if (!h)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, fn);
    *errhandler = h;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    return create_errhandler(function, errhandler, "MPI_Comm_create_errhandler");
}
WMPI_ALIAS(Comm_create_errhandler)

/* MPI_Handler_function is MPI_Comm_errhandler_function's MPI-1 name. */
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return create_errhandler(function, errhandler, "MPI_Errhandler_create");
}
WMPI_ALIAS(Errhandler_create)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    WMPI_NEED_INIT("MPI_Comm_call_errhandler");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_call_errhandler");
    handle(comm, errorcode, "MPI_Comm_call_errhandler", NULL);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_call_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !wbind_errh_is_live(*errhandler))
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Errhandler_free");
    wbind_errh_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Errhandler_free)

/* ------------------------------------------------------------- strings */

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    int n;

    if (!string || !resultlen)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Error_string");
    if (wbind_errcode_string(errorcode, string, MPI_MAX_ERROR_STRING))
        n = (int)strlen(string); /* a user code: its MPI_Add_error_string */
    else if (errorcode < 0 || errorcode > MPI_ERR_LASTCODE)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "unknown error code %d", errorcode);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s",
                     class_name[errorcode], class_text[errorcode]);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Error_string)

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int cls = wbind_errcode_class(errorcode); /* user codes too */

    if (!errorclass || cls < 0)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Error_class");
    *errorclass = cls;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Error_class)
