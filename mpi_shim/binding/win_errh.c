/* Error handlers of windows: MPI_Win_create_errhandler, set, get and
 * call (contract: binding/win.h). The report path itself is
 * wbind_win_fail (win.c).
 *
 * A window handler is the same object as a communicator's (struct
 * wmpi_errhandler, errors.c) with the window function stored in its
 * function pointer; it is counted the same way: one reference per handle
 * the user holds and one per window set to it, atomically, and freed at
 * zero. The predefined handlers are never counted.
 * Locking: a window's handler is one pointer, swapped atomically.
 */
#include <stdlib.h>

#include "binding/win.h"

static MPI_Errhandler hold(MPI_Errhandler h)
{
    if (h && h->kind == WMPI_ERRH_USER)
        __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED);
    return h;
}

void wbind_win_errh_release(MPI_Errhandler h)
{
    if (h && h->kind == WMPI_ERRH_USER &&
        __atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(h);
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *function,
                               MPI_Errhandler *errhandler)
{
    MPI_Errhandler h;

    WMPI_NEED_INIT("MPI_Win_create_errhandler");
    if (!function || !errhandler)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Win_create_errhandler");
    if (!(h = malloc(sizeof *h)))
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Win_create_errhandler");
    h->kind = WMPI_ERRH_USER;
    h->fn = (MPI_Comm_errhandler_function *)(void (*)(void))function;
    h->refs = 1;
    *errhandler = h;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    WBIND_WIN_CHECK(win, "MPI_Win_set_errhandler");
    if (!errhandler)
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
