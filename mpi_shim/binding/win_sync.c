/* Window synchronisation bindings: MPI_Win_fence, lock / unlock,
 * lock_all / unlock_all, the flushes and MPI_Win_sync (contract:
 * binding/win.h). They check the window, the rank, the lock type and the
 * assertion bits, and map MPI's lock types to the engine's.
 */
#include "binding/win.h"

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | \
                       MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

static int bad_rank(MPI_Win w, int rank)
{
    return rank < 0 || rank >= w->comm->size;
}

int PMPI_Win_fence(int assertion, MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_fence");
    if (assertion & ~FENCE_ASSERTS)
        return wbind_win_fail(win, MPI_ERR_ASSERT, "MPI_Win_fence");
    return wbind_win_return(win, wmpi_win_fence(win, !!(assertion & MPI_MODE_NOSUCCEED)),
                            "MPI_Win_fence");
}
WMPI_ALIAS(Win_fence)

int PMPI_Win_lock(int lock_type, int rank, int assertion, MPI_Win win)
{
    int type = lock_type == MPI_LOCK_SHARED      ? WMPI_LOCK_SHARED
               : lock_type == MPI_LOCK_EXCLUSIVE ? WMPI_LOCK_EXCLUSIVE
                                                 : 0;

    WBIND_WIN_CHECK(win, "MPI_Win_lock");
    if (!type)
        return wbind_win_fail(win, MPI_ERR_LOCKTYPE, "MPI_Win_lock");
    if (bad_rank(win, rank))
        return wbind_win_fail(win, MPI_ERR_RANK, "MPI_Win_lock");
    if (assertion & ~MPI_MODE_NOCHECK)
        return wbind_win_fail(win, MPI_ERR_ASSERT, "MPI_Win_lock");
    return wbind_win_return(win, wmpi_win_lock(win, type, rank,
                                               assertion & MPI_MODE_NOCHECK),
                            "MPI_Win_lock");
}
WMPI_ALIAS(Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_unlock");
    if (bad_rank(win, rank))
        return wbind_win_fail(win, MPI_ERR_RANK, "MPI_Win_unlock");
    return wbind_win_return(win, wmpi_win_unlock(win, rank), "MPI_Win_unlock");
}
WMPI_ALIAS(Win_unlock)

int PMPI_Win_lock_all(int assertion, MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_lock_all");
    if (assertion & ~MPI_MODE_NOCHECK)
        return wbind_win_fail(win, MPI_ERR_ASSERT, "MPI_Win_lock_all");
    return wbind_win_return(win, wmpi_win_lock_all(win,
                                                   assertion & MPI_MODE_NOCHECK),
                            "MPI_Win_lock_all");
}
WMPI_ALIAS(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_unlock_all");
    return wbind_win_return(win, wmpi_win_unlock_all(win), "MPI_Win_unlock_all");
}
WMPI_ALIAS(Win_unlock_all)

static int flush(int rank, MPI_Win win, const char *fn)
{
    WBIND_WIN_CHECK(win, fn);
    if (rank != -1 && bad_rank(win, rank))
        return wbind_win_fail(win, MPI_ERR_RANK, fn);
    return wbind_win_return(win, wmpi_win_flush(win, rank), fn);
}

/* Local completion waits for the same answer as remote completion: the
 * data of a get arrives with it, and a put's buffer is free once sent,
 * which the answer implies. */
int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush(rank < 0 ? -2 : rank, win, "MPI_Win_flush");
}
WMPI_ALIAS(Win_flush)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush(rank < 0 ? -2 : rank, win, "MPI_Win_flush_local");
}
WMPI_ALIAS(Win_flush_local)

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush(-1, win, "MPI_Win_flush_all");
}
WMPI_ALIAS(Win_flush_all)

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush(-1, win, "MPI_Win_flush_local_all");
}
WMPI_ALIAS(Win_flush_local_all)

/* Unified model: the service thread (or another rank's own copies)
 * writes the window in place; a full fence orders this thread's loads and
 * stores against those writes. */
int PMPI_Win_sync(MPI_Win win)
{
    WBIND_WIN_CHECK(win, "MPI_Win_sync");
    wmpi_win_memory_fence(win);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Win_sync)
