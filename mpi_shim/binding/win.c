/* Window bindings: creation (and attaching memory to dynamic windows),
 * freeing, attributes, group, name, info (binding/win.h has the contract
 * of each function).
 */
#include <errno.h>
#include <string.h>

#include "binding/win.h"
#include "engine/objects/comm.h"
#include "engine/objects/info.h"

_Static_assert(WMPI_WIN_CREATE == MPI_WIN_FLAVOR_CREATE &&
               WMPI_WIN_ALLOCATE == MPI_WIN_FLAVOR_ALLOCATE &&
               WMPI_WIN_DYNAMIC == MPI_WIN_FLAVOR_DYNAMIC &&
               WMPI_WIN_SHARED == MPI_WIN_FLAVOR_SHARED &&
               WMPI_WIN_UNIFIED == MPI_WIN_UNIFIED,
               "window attribute values differ from mpi.h");

/* ----------------------------------------------------------- creation */

static int create_check(MPI_Aint size, int disp_unit, MPI_Info info,
                        MPI_Comm comm, const void *out, const void *win)
{
    if (!wmpi_comm_is_live(comm) || comm->remote_size)
        return MPI_ERR_COMM;
    if (wbind_check_info(info)) /* no hint is used, but a bad handle is bad */
        return MPI_ERR_INFO;
    if (size < 0)
        return MPI_ERR_SIZE;
    if (disp_unit <= 0)
        return MPI_ERR_DISP;
    return out && win ? MPI_SUCCESS : MPI_ERR_ARG;
}

static int create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                  MPI_Comm comm, int flavor, MPI_Win *win, const char *fn)
{
    int allocate = flavor == WMPI_WIN_ALLOCATE || flavor == WMPI_WIN_SHARED;
    int cls = create_check(size, disp_unit, info, comm, allocate ? base : win, win);
    wmpi_win *w;
    int err;

    if (cls)
        return wbind_fail(wmpi_comm_is_live(comm) ? comm : NULL, cls, fn);
    err = wmpi_win_create(allocate ? NULL : base, size, disp_unit, flavor,
                          comm, &w);
    if (err == -EXDEV) /* the ranks cannot map one another's memory */
        return wbind_fail(comm, MPI_ERR_RMA_SHARED, fn);
    if (err)
        return wbind_return(comm, err, fn);
    if (allocate)
        *(void **)base = w->base;
    *win = w;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                    MPI_Comm comm, MPI_Win *win)
{
    WMPI_NEED_INIT("MPI_Win_create");
    return create(base, size, disp_unit, info, comm, WMPI_WIN_CREATE, win,
                  "MPI_Win_create");
}
WMPI_ALIAS(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
                      MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    WMPI_NEED_INIT("MPI_Win_allocate");
    return create(baseptr, size, disp_unit, info, comm, WMPI_WIN_ALLOCATE, win,
                  "MPI_Win_allocate");
}
WMPI_ALIAS(Win_allocate)

/* The alloc_shared_noncontig hint is ignored: contiguous parts satisfy
 * it as well. */
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                             MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    WMPI_NEED_INIT("MPI_Win_allocate_shared");
    return create(baseptr, size, disp_unit, info, comm, WMPI_WIN_SHARED, win,
                  "MPI_Win_allocate_shared");
}
WMPI_ALIAS(Win_allocate_shared)

/* rank MPI_PROC_NULL: the lowest rank's part with a size > 0 (if none,
 * rank 0's empty part). */
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
                          int *disp_unit, void *baseptr)
{
    WBIND_WIN_CHECK(win, "MPI_Win_shared_query");
    if (win->flavor != WMPI_WIN_SHARED)
        return wbind_win_fail(win, MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= win->comm->size))
        return wbind_win_fail(win, MPI_ERR_RANK, "MPI_Win_shared_query");
    if (!size || !disp_unit || !baseptr)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_shared_query");
    if (rank == MPI_PROC_NULL) {
        rank = 0;
        while (rank < win->comm->size - 1 && win->sizes[rank] == 0)
            rank++;
        if (win->sizes[rank] == 0)
            rank = 0;
    }
    *size = (MPI_Aint)win->sizes[rank];
    *disp_unit = win->units[rank];
    *(void **)baseptr = wmpi_win_shared_base(win, rank);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_shared_query)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    WMPI_NEED_INIT("MPI_Win_create_dynamic");
    return create(MPI_BOTTOM, 0, 1, info, comm, WMPI_WIN_DYNAMIC, win,
                  "MPI_Win_create_dynamic");
}
WMPI_ALIAS(Win_create_dynamic)

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    WBIND_WIN_CHECK(win, "MPI_Win_attach");
    if (win->flavor != WMPI_WIN_DYNAMIC)
        return wbind_win_fail(win, MPI_ERR_RMA_FLAVOR, "MPI_Win_attach");
    if (size < 0)
        return wbind_win_fail(win, MPI_ERR_SIZE, "MPI_Win_attach");
    return wbind_win_return(win, wmpi_win_attach(win, base, size),
                            "MPI_Win_attach");
}
WMPI_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    int err;

    WBIND_WIN_CHECK(win, "MPI_Win_detach");
    if (win->flavor != WMPI_WIN_DYNAMIC)
        return wbind_win_fail(win, MPI_ERR_RMA_FLAVOR, "MPI_Win_detach");
    err = wmpi_win_detach(win, base);
    if (err == -ENOENT) /* nothing attached there */
        return wbind_win_fail(win, MPI_ERR_RMA_ATTACH, "MPI_Win_detach");
    return wbind_win_return(win, err, "MPI_Win_detach");
}
WMPI_ALIAS(Win_detach)

int PMPI_Win_free(MPI_Win *win)
{
    MPI_Errhandler h;
    int err;

    WMPI_NEED_INIT("MPI_Win_free");
    if (!win)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Win_free");
    WBIND_WIN_CHECK(*win, "MPI_Win_free");
    h = (*win)->errh;
    err = wmpi_win_free(*win);
    if (err)
        return wbind_win_return(*win, err, "MPI_Win_free");
    wbind_win_errh_release(h);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_free)

/* --------------------------------------------------------- attributes */

static void *attr_of(MPI_Win w, int keyval)
{
    switch (keyval) {
    case MPI_WIN_BASE:          return w->base;
    case MPI_WIN_SIZE:          return &w->size;
    case MPI_WIN_DISP_UNIT:     return &w->disp_unit;
    case MPI_WIN_CREATE_FLAVOR: return &w->flavor;
    case MPI_WIN_MODEL:         return &w->model;
    default:                    return NULL;
    }
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val,
                      int *flag)
{
    WBIND_WIN_CHECK(win, "MPI_Win_get_attr");
    if (!attribute_val || !flag)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_get_attr");
    if (win_keyval < MPI_WIN_BASE || win_keyval > MPI_WIN_MODEL)
        return wbind_win_user_attr(win, win_keyval, attribute_val, flag);
    *flag = 1;
    *(void **)attribute_val = attr_of(win, win_keyval);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_get_attr)

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    WBIND_WIN_CHECK(win, "MPI_Win_get_group");
    if (!group)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_get_group");
    wmpi_group_retain(win->comm->group);
    *group = win->comm->group;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_get_group)

/* --------------------------------------------------------------- name */

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    WBIND_WIN_CHECK(win, "MPI_Win_set_name");
    if (!win_name)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_set_name");
    strncpy(win->name, win_name, sizeof win->name - 1);
    win->name[sizeof win->name - 1] = '\0';
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    WBIND_WIN_CHECK(win, "MPI_Win_get_name");
    if (!win_name || !resultlen)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_get_name");
    strcpy(win_name, win->name);
    *resultlen = (int)strlen(win->name);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_get_name)

/* --------------------------------------------------------------- info */

/* No hint changes what a window does: set_info keeps none, and get_info
 * gives an empty object (MPI-3.1 11.2.7 lets it return the hints used). */
int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    WBIND_WIN_CHECK(win, "MPI_Win_set_info");
    if (!wmpi_info_is_live(info))
        return wbind_win_fail(win, MPI_ERR_INFO, "MPI_Win_set_info");
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    WBIND_WIN_CHECK(win, "MPI_Win_get_info");
    if (!info_used)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_get_info");
    return wbind_win_return(win, wmpi_info_create(info_used),
                            "MPI_Win_get_info");
}
WMPI_ALIAS(Win_get_info)
