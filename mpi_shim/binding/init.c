/* MPI_Init, MPI_Init_thread, MPI_Finalize and the queries about them;
 * MPI_Abort.
 *
 * Design: the engine does the work (engine/core/init.c); these check the call
 * order (MPI allows one MPI_Init and one MPI_Finalize per process) and
 * the thread level. Every level up to MPI_THREAD_MULTIPLE is provided as
 * requested: the engine is always thread-safe, and a level above MULTIPLE
 * is clamped to it. A failing MPI_Init aborts through MPI_COMM_WORLD's
 * handler (fatal by default), with the engine's reason in the message.
 *
 * Rejected: refusing MPI_THREAD_MULTIPLE or lowering the level (the
 * engine is thread-safe at no extra cost for single-threaded programs).
 * Invariants: MPI_Init and MPI_Finalize each succeed at most once.
 * Locking: MPI_Init/MPI_Finalize run while no other thread uses MPI (the
 * standard's rule); the flags they set are then read-only.
 */
#include <stdio.h>

#include "binding/binding.h"
#include "binding/errclass.h"
#include "engine/objects/comm.h"
#include "engine/objects/quarantine.h"

static int init(int required, int *provided, const char *fn)
{
    int level = required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
              : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    int got = level;
    int err;

    if (wmpi_state.initialized || wmpi_state.finalized)
        return wbind_fail(NULL, MPI_ERR_OTHER, fn);
    err = wmpi_init(level, &got);
    if (err < 0)
        return wbind_return(NULL, err, fn);
    if (provided)
        *provided = got;
    wmpi_attr_set_lastusedcode(wbind_errclass_last()); /* MPI_LASTUSEDCODE */
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init(MPI_THREAD_SINGLE, NULL, "MPI_Init");
}
WMPI_ALIAS(Init)

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (!provided)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Init_thread");
    return init(required, provided, "MPI_Init_thread");
}
WMPI_ALIAS(Init_thread)

int PMPI_Finalize(void)
{
    int err;

    WMPI_NEED_INIT("MPI_Finalize");
    /* MPI-3.1 8.7.1: MPI_COMM_SELF's attributes are deleted first, so
     * their delete callbacks can act at finalize time. */
    wmpi_attr_delete_all(MPI_COMM_SELF);
    err = wmpi_finalize();
    if (err)
        return wbind_return(NULL, err, "MPI_Finalize");
    wbind_errhandlers_release();
    wmpi_quarantine_flush(); /* no handle may be used from now on */
    return MPI_SUCCESS;
}
WMPI_ALIAS(Finalize)

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Initialized");
    *flag = wmpi_state.initialized;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Initialized)

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Finalized");
    *flag = wmpi_state.finalized;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Finalized)

int PMPI_Query_thread(int *provided)
{
    WMPI_NEED_INIT("MPI_Query_thread");
    if (!provided)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Query_thread");
    *provided = wmpi_state.thread_level;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    WMPI_NEED_INIT("MPI_Is_thread_main");
    if (!flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Is_thread_main");
    *flag = weft_thread_self() == wmpi_state.main_thread;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Is_thread_main)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[96];

    (void)comm; /* MPI allows aborting the whole job; we always do */
    snprintf(msg, sizeof msg, "MPI_Abort called with error code %d", errorcode);
    wmpi_abort(errorcode, msg);
}
WMPI_ALIAS(Abort)
