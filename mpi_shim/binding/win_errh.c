/* Error handlers of windows: MPI_Win_create_errhandler, set, get and
 * call (contract: binding/win.h), and the error path every window
 * binding shares (wbind_win_fail, wbind_win_return).
 *
 * Errors on a window go to the window's handler: MPI_ERRORS_ARE_FATAL
 * (the default) aborts through the same path as a communicator's (the
 * window's private communicator has no handler of its own, so it is
 * fatal), MPI_ERRORS_RETURN returns the class, a user function is called
 * and the class returned. An invalid window has no handler:
 * MPI_COMM_WORLD's reports it, as for an invalid communicator.
 *
 * A window handler is the same object as a communicator's (struct
 * wmpi_errhandler, errors.c) with the window function stored in its
 * function pointer; it is counted the same way: one reference per handle
 * the user holds and one per window set to it, atomically, and freed at
 * zero (wbind_errh_release, errors.c). The predefined handlers are never
 * counted. A handle that is not a live handler is MPI_ERR_ARG.
 * Locking: a window's handler is one pointer, swapped atomically.
 */
#include <errno.h>

#include "binding/win.h"

/* ------------------------------------------------------------- errors */

int wbind_win_fail(MPI_Win w, int cls, const char *fn)
{
    MPI_Errhandler h;
    int code = cls;

    if (!wmpi_win_is_live(w))
        return wbind_fail(NULL, cls, fn);
    h = __atomic_load_n(&w->errh, __ATOMIC_ACQUIRE);
    if (!h || h->kind == WMPI_ERRH_FATAL)
        return wbind_fail(w->comm, cls, fn); /* no handler there: fatal */
    if (h->kind == WMPI_ERRH_USER)
        ((MPI_Win_errhandler_function *)(void (*)(void))h->fn)(&w, &code, fn);
    return cls;
}

static int rma_class(int err)
{
    switch (err) {
    case -ERANGE:  return MPI_ERR_RMA_RANGE;
    case -EDOM:    return MPI_ERR_DISP;
    case -EPROTO:
    case -EBUSY:   return MPI_ERR_RMA_SYNC;
    case -EBADMSG: return MPI_ERR_TYPE;
    case -ENOTSUP: return MPI_ERR_UNSUPPORTED_OPERATION;
    default:       return wbind_error_class(err);
    }
}

int wbind_win_return(MPI_Win w, int err, const char *fn)
{
    return err ? wbind_win_fail(w, rma_class(err), fn) : MPI_SUCCESS;
}

/* ------------------------------------------------------------ handlers */

static MPI_Errhandler hold(MPI_Errhandler h)
{
    if (h && h->kind == WMPI_ERRH_USER)
        __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
    return h;
}

void wbind_win_errh_release(MPI_Errhandler h)
{
    wbind_errh_release(h);
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function,
                               MPI_Errhandler *errhandler)
{
    MPI_Errhandler h;

    WMPI_NEED_INIT("MPI_Win_create_errhandler");
    if (!function || !errhandler)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Win_create_errhandler");
    h = wbind_errh_create((MPI_Comm_errhandler_function *)(void (*)(void))function);
    if (!h)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Win_create_errhandler");
    *errhandler = h;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    WBIND_WIN_CHECK(win, "MPI_Win_set_errhandler");
    if (!wbind_errh_is_live(errhandler)) /* null, released, zeroed */
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_set_errhandler");
    wbind_win_errh_release(__atomic_exchange_n((MPI_Errhandler *)&win->errh,
                                               hold(errhandler),
                                               __ATOMIC_ACQ_REL));
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    MPI_Errhandler h;

    WBIND_WIN_CHECK(win, "MPI_Win_get_errhandler");
    if (!errhandler)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_get_errhandler");
    h = __atomic_load_n((MPI_Errhandler *)&win->errh, __ATOMIC_ACQUIRE);
    *errhandler = hold(h ? h : MPI_ERRORS_ARE_FATAL);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    WBIND_WIN_CHECK(win, "MPI_Win_call_errhandler");
    wbind_win_fail(win, errorcode, "MPI_Win_call_errhandler");
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_call_errhandler)
