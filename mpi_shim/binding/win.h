/* What the window bindings (win.c, win_rma.c, win_sync.c) share, and the
 * contract of every MPI one-sided function Weft implements.
 *
 * Windows (win.c)
 *   MPI_Win_create(base, size, disp_unit, info, comm, win)
 *   MPI_Win_allocate(size, disp_unit, info, comm, baseptr, win)
 *     Collective over comm: the window exposes `size` bytes at base (the
 *     caller's, or `size` bytes Weft allocates and returns in *baseptr).
 *     The window takes a private duplicate of comm, so its traffic never
 *     matches the user's messages; info is ignored. Errors: MPI_ERR_COMM
 *     (also an intercommunicator), MPI_ERR_SIZE (size < 0), MPI_ERR_DISP
 *     (disp_unit <= 0), MPI_ERR_ARG (win or baseptr NULL), MPI_ERR_NO_MEM.
 *     Blocks: the caller, until every member of comm called it.
 *   MPI_Win_allocate_shared(size, disp_unit, info, comm, baseptr, win):
 *     as allocate, in one segment that every rank of comm maps, the ranks'
 *     parts contiguous in rank order (alloc_shared_noncontig is ignored:
 *     contiguous parts satisfy it). Errors: as allocate, and
 *     MPI_ERR_RMA_SHARED on every rank if one of them cannot map it
 *     (another host, another user). Blocks: the caller.
 *   MPI_Win_shared_query(win, rank, size, disp_unit, baseptr): where
 *     rank's part of a shared window lies in this process, its size and
 *     disp unit; MPI_PROC_NULL: the lowest rank's part with size > 0 (if
 *     none, rank 0's empty part). Errors: MPI_ERR_WIN, MPI_ERR_RMA_FLAVOR
 *     (not a shared window), MPI_ERR_RANK, MPI_ERR_ARG. Blocks: no.
 *   MPI_Win_create_dynamic(info, comm, win): as create, with no memory;
 *     MPI_Win_attach(win, base, size) / MPI_Win_detach(win, base) expose
 *     and withdraw regions (not collective; displacements are addresses,
 *     MPI_Get_address). The target checks an access against its regions
 *     and stops the job if it misses them (erroneous program). Errors:
 *     MPI_ERR_RMA_FLAVOR (not a dynamic window), MPI_ERR_SIZE,
 *     MPI_ERR_RMA_ATTACH (detach of memory not attached). Blocks: create
 *     only.
 *   MPI_Win_free(win): collective; completes this rank's operations, waits
 *     for every rank, frees the window (and allocated memory); *win
 *     becomes MPI_WIN_NULL. Errors: MPI_ERR_WIN, MPI_ERR_RMA_SYNC (a
 *     passive-target epoch is still open). Blocks: the caller.
 *   MPI_Win_get_attr: MPI_WIN_BASE (the base), MPI_WIN_SIZE (MPI_Aint *),
 *     MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR (MPI_WIN_FLAVOR_CREATE,
 *     _ALLOCATE, _SHARED or _DYNAMIC) and MPI_WIN_MODEL (MPI_WIN_UNIFIED: the target's memory
 *     is written in place by its service thread, so public and private
 *     copies are one) as int *; a user keyval: its value (flag 0 if not
 *     set). Errors: MPI_ERR_WIN, MPI_ERR_ARG, MPI_ERR_KEYVAL. Blocks: no.
 *   MPI_Win_create_keyval / free_keyval / set_attr / delete_attr
 *     (win_attr.c): attributes of the program's own, as for communicators;
 *     delete callbacks run in MPI_Win_free (copy callbacks never run:
 *     windows are not duplicated). Errors: MPI_ERR_WIN, MPI_ERR_KEYVAL
 *     (unknown, freed, predefined or another object's keyval),
 *     MPI_ERR_OTHER (delete of an attribute not set), MPI_ERR_ARG, a
 *     callback's own code. Blocks: no (a callback may).
 *   MPI_Win_get_group: a new reference to the window's group. Blocks: no.
 *   MPI_Win_create_errhandler / set_errhandler / get_errhandler /
 *     call_errhandler (win_errh.c): MPI_ERRORS_ARE_FATAL (the default),
 *     MPI_ERRORS_RETURN, or a user function called with the window and the
 *     class (then the class is returned). A window holds a reference on
 *     its handler; get_errhandler gives a new one (MPI_Errhandler_free
 *     it). call_errhandler invokes the handler with the code and returns
 *     MPI_SUCCESS if it returns. Errors: MPI_ERR_WIN, MPI_ERR_ARG.
 *     Blocks: no.
 *   MPI_Win_get_info: an empty info object (no hint is used); set_info
 *     ignores the hints. Errors: MPI_ERR_WIN, MPI_ERR_INFO, MPI_ERR_ARG.
 *   MPI_Win_set_name / get_name: at most MPI_MAX_OBJECT_NAME - 1 chars.
 *
 * Operations (win_rma.c): MPI_Put, MPI_Get, MPI_Accumulate,
 *   MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap.
 *   Start one operation on target_rank's window at target_disp (in the
 *   target's disp units); it completes when the epoch ends (fence,
 *   unlock, unlock_all, flush*): the origin buffer must not be reused, nor
 *   the result read, before. Any committed datatype on either side;
 *   accumulates need one predefined basic type on both (a pair type,
 *   for MINLOC/MAXLOC, as the target type itself: a derived type of
 *   pairs there is MPI_ERR_UNSUPPORTED_OPERATION) and a predefined op,
 *   MPI_REPLACE, or (Get_accumulate, Fetch_and_op) MPI_NO_OP; they are atomic per element
 *   with respect to each other. MPI_PROC_NULL: nothing happens.
 *   Errors: MPI_ERR_WIN, MPI_ERR_COUNT, MPI_ERR_TYPE (uncommitted, sizes of
 *   origin, result and target differ, mixed basic types, CAS on a
 *   non-integer type), MPI_ERR_RANK, MPI_ERR_DISP (negative
 *   displacement), MPI_ERR_RMA_RANGE (outside the target's window),
 *   MPI_ERR_OP, MPI_ERR_RMA_SYNC (no epoch gives access to the target),
 *   MPI_ERR_NO_MEM. Blocks: no.
 *   MPI_Rput, MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate: the same,
 *   in a passive-target epoch only (else MPI_ERR_RMA_SYNC), with a request
 *   (NULL: MPI_ERR_REQUEST) that completes when the target's answer
 *   arrived: the data of a get in the origin buffer, a put or accumulate
 *   applied at the target (stronger than the local completion MPI asks).
 *   The epoch's end completes the operation too; the request stays the
 *   user's to wait for or free. Blocks: no.
 *
 * Synchronisation (win_sync.c)
 *   MPI_Win_fence(assert, win): collective; completes every operation of
 *     the epoch on every rank and opens the next (none with
 *     MPI_MODE_NOSUCCEED). Errors: MPI_ERR_RMA_SYNC (inside a passive
 *     epoch), MPI_ERR_ASSERT. Blocks: the caller, until every rank fenced.
 *   MPI_Win_lock(type, rank, assert, win) / MPI_Win_unlock(rank, win):
 *     shared or exclusive lock on one target, granted in order by the
 *     target (its service thread: the target need not call MPI); lock
 *     blocks until granted (not with MPI_MODE_NOCHECK), unlock until the
 *     epoch's operations completed at the target and the lock is released.
 *     Errors: MPI_ERR_RMA_SYNC (already locked / not locked, inside
 *     lock_all), MPI_ERR_LOCKTYPE, MPI_ERR_RANK. Blocks: the caller.
 *   MPI_Win_lock_all / unlock_all: a shared lock on every rank.
 *   MPI_Win_flush(rank) / flush_all / flush_local(rank) / flush_local_all:
 *     complete the operations to rank (all ranks) at the target (local
 *     completion is not cheaper here: it is the same wait). Errors:
 *     MPI_ERR_RMA_SYNC (no passive epoch). Blocks: the caller.
 *   MPI_Win_sync: a memory fence (unified model). Blocks: no.
 *
 * Generalized active target (win_pscw.c)
 *   MPI_Win_post(group, assert, win): expose the window to the origins in
 *     group; returns at once. MPI_Win_wait(win) blocks until each of them
 *     called MPI_Win_complete (their operations are then in the window);
 *     MPI_Win_test(win, flag) is the same without blocking.
 *   MPI_Win_start(group, assert, win): access the targets in group; blocks
 *     until each of them posted. MPI_Win_complete(win) completes the
 *     epoch's operations at those targets and tells them; blocks until
 *     the operations' answers came back.
 *   Errors: MPI_ERR_WIN, MPI_ERR_GROUP (NULL, or a member outside the
 *     window), MPI_ERR_ASSERT, MPI_ERR_RMA_SYNC (an epoch of that kind
 *     already open / none open), MPI_ERR_NO_MEM.
 */
#ifndef WMPI_BINDING_WIN_H
#define WMPI_BINDING_WIN_H

#include "binding/binding.h"
#include "engine/rma/rma.h"

/* Report class cls raised by fn on window w through w's error handler
 * (w not live: MPI_COMM_WORLD's); returns cls unless it aborted. */
int wbind_win_fail(MPI_Win w, int cls, const char *fn);
/* 0 -> MPI_SUCCESS; else wbind_win_fail with the class of engine code
 * err (the RMA codes of engine/rma/rma.h included). */
int wbind_win_return(MPI_Win w, int err, const char *fn);

/* MPI_Win_get_attr of a keyval other than the predefined ones
 * (win_attr.c): its value and *flag, or MPI_ERR_KEYVAL. */
int wbind_win_user_attr(MPI_Win w, int keyval, void *attribute_val, int *flag);

/* Drop a window's reference on a user handler (others: nothing). */
void wbind_win_errh_release(MPI_Errhandler h);

/* The start of every window binding: initialised, w live. */
#define WBIND_WIN_CHECK(w, fn)                                    \
    do {                                                          \
        WMPI_NEED_INIT(fn);                                       \
        if (!wmpi_win_is_live(w))                                 \
            return wbind_win_fail(MPI_WIN_NULL, MPI_ERR_WIN, fn); \
    } while (0)

#endif /* WMPI_BINDING_WIN_H */
