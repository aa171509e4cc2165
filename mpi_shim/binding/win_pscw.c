/* Generalized active target bindings: MPI_Win_post, MPI_Win_start,
 * MPI_Win_complete, MPI_Win_wait, MPI_Win_test (contract: binding/win.h).
 * The MPI group becomes ranks of the window's group here; a member that
 * is not in the window is MPI_ERR_GROUP.
 */
#include <stdlib.h>

#include "binding/win.h"
#include "engine/objects/comm.h"

/* The window ranks of g's members in *out (malloc'd); 0 or a class. */
static int group_ranks(MPI_Win w, MPI_Group g, int **out)
{
    int *r;

    *out = NULL;
    if (!wmpi_group_is_valid(g))
        return MPI_ERR_GROUP;
    if (!(r = malloc(((size_t)g->size + 1) * sizeof *r)))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < g->size; i++) {
        r[i] = wmpi_group_rank_of(w->comm->group, g->world[i]);
        if (r[i] == WMPI_UNDEFINED) {
            free(r);
            return MPI_ERR_GROUP;
        }
    }
    *out = r;
    return MPI_SUCCESS;
}

static int open_epoch(MPI_Group group, int assertion, int allowed,
                      MPI_Win win, int post, const char *fn)
{
    int *ranks, cls, err;

    WBIND_WIN_CHECK(win, fn);
    if (assertion & ~allowed)
        return wbind_win_fail(win, MPI_ERR_ASSERT, fn);
    cls = group_ranks(win, group, &ranks);
    if (cls)
        return wbind_win_fail(win, cls, fn);
    err = post ? wmpi_win_post(win, ranks, group->size)
               : wmpi_win_start(win, ranks, group->size);
    free(ranks);
    return wbind_win_return(win, err, fn);
}

int PMPI_Win_post(MPI_Group group, int assertion, MPI_Win win)
{
    return open_epoch(group, assertion,
                      MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT,
                      win, 1, "MPI_Win_post");
}
WMPI_ALIAS(Win_post)

int PMPI_Win_start(MPI_Group group, int assertion, MPI_Win win)
{
    return open_epoch(group, assertion, MPI_MODE_NOCHECK, win, 0,
                      "MPI_Win_start");
}
WMPI_ALIAS(Win_start)

int PMPI_Win_complete(MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_complete");
    return wbind_win_return(win, wmpi_win_complete(win), "MPI_Win_complete");
}
WMPI_ALIAS(Win_complete)

int PMPI_Win_wait(MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_wait");
    return wbind_win_return(win, wmpi_win_wait(win), "MPI_Win_wait");
}
WMPI_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
    WBIND_WIN_CHECK(win, "MPI_Win_test");
    if (!flag)
        return wbind_win_fail(win, MPI_ERR_ARG, "MPI_Win_test");
    return wbind_win_return(win, wmpi_win_test(win, flag), "MPI_Win_test");
}
WMPI_ALIAS(Win_test)
