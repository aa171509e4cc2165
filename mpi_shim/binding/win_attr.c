/* Window attribute bindings: MPI_Win_create_keyval, _free_keyval,
 * _set_attr, _delete_attr (MPI_Win_get_attr, which also answers the
 * predefined MPI_WIN_BASE...MPI_WIN_MODEL, is in win.c).
 *
 * Design: the same engine as communicator and datatype attributes
 * (engine/objects/attr.c), with keyvals of the window kind; the delete
 * callbacks run in MPI_Win_free, before the window goes. Windows are never
 * duplicated, so copy callbacks are accepted and never called.
 *
 * Errors: through the window's handler (keyval functions: MPI_COMM_WORLD's).
 * An unknown or freed keyval, a predefined one where it may not be set,
 * or a keyval of another kind of object is MPI_ERR_KEYVAL; deleting an
 * attribute that is not set is MPI_ERR_OTHER, as for communicators.
 * Locking: none here (engine/objects/attr.c).
 */
#include "binding/win.h"
#include "engine/objects/comm.h"

static int win_attr_return(MPI_Win win, int err, const char *fn)
{
    if (err == WEFT_EINVAL)
        return wbind_win_fail(win, MPI_ERR_KEYVAL, fn);
    if (err == -ENOENT)
        return wbind_win_fail(win, MPI_ERR_OTHER, fn);
    return wbind_win_return(win, err, fn);
}

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    WMPI_NEED_INIT("MPI_Win_create_keyval");
    if (!win_keyval)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Win_create_keyval");
    return wbind_return(NULL,
                        wmpi_win_keyval_create(win_copy_attr_fn, win_delete_attr_fn,
                                               extra_state, win_keyval),
                        "MPI_Win_create_keyval");
}
WMPI_ALIAS(Win_create_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    WMPI_NEED_INIT("MPI_Win_free_keyval");
    if (!win_keyval)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Win_free_keyval");
    if (wmpi_win_keyval_free(*win_keyval))
        return wbind_fail(NULL, MPI_ERR_KEYVAL, "MPI_Win_free_keyval");
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    WBIND_WIN_CHECK(win, "MPI_Win_set_attr");
    return win_attr_return(win, wmpi_win_attr_set(win, win_keyval, attribute_val),
                           "MPI_Win_set_attr");
}
WMPI_ALIAS(Win_set_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    WBIND_WIN_CHECK(win, "MPI_Win_delete_attr");
    return win_attr_return(win, wmpi_win_attr_delete(win, win_keyval), "MPI_Win_delete_attr");
}
WMPI_ALIAS(Win_delete_attr)

/* A user keyval's value for MPI_Win_get_attr (win.c). */
int wbind_win_user_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    return win_attr_return(win, wmpi_win_attr_get(win, win_keyval, (void **)attribute_val, flag),
                           "MPI_Win_get_attr");
}
