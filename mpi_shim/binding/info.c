/* Info objects: MPI_Info_create, _set, _get, _get_valuelen, _get_nkeys,
 * _get_nthkey, _delete, _dup, _free; MPI_INFO_ENV; the hints of
 * communicators (MPI_Comm_set_info, MPI_Comm_get_info).
 *
 * Design: parameter checks here, storage in the engine (engine/objects/info.c).
 * Keys are at most MPI_MAX_INFO_KEY - 1 characters and not empty, values
 * at most MPI_MAX_INFO_VAL - 1 (the C strings with their NUL fit the
 * MPI_MAX_* buffers), else MPI_ERR_INFO_KEY / MPI_ERR_INFO_VALUE, as Open
 * MPI checks; a null, freed or zeroed handle is MPI_ERR_INFO (the live
 * mark, wmpi_info_is_live; calls that allow MPI_INFO_NULL check with
 * wbind_check_info, binding.h); a missing key for
 * MPI_Info_delete is MPI_ERR_INFO_NOKEY; an n out of range for
 * MPI_Info_get_nthkey is MPI_ERR_ARG. Errors of info calls concern no
 * communicator: they go to MPI_COMM_WORLD's handler (MPI-3.1 8.3).
 * MPI_INFO_ENV is filled on its first use after MPI_Init (every binding
 * passes its handle through env_ready()).
 *
 * An empty value is MPI_ERR_INFO_VALUE (as in Open MPI). MPI_INFO_ENV
 * may be changed like any object (Open MPI allows it too), but not freed
 * (MPI_ERR_INFO).
 *
 * Rejected: stripping leading and trailing blanks from keys (MPI says so
 * for Fortran only; C keys are taken as given).
 * Invariants: a handle given back is valid until MPI_Info_free.
 * Locking: each info object locks itself; comm_info_lock guards the
 * communicators' info pointers.
 */
#include <string.h>

#include "binding/binding.h"
#include "engine/objects/info.h"

static MPI_Info env_ready(MPI_Info info)
{
    if (info == MPI_INFO_ENV)
        wmpi_info_env_fill(wmpi_comm_world.size, wmpi_state.thread_level);
    return info;
}

/* 0 or the class for a key argument. */
static int check_key(const char *key)
{
    size_t n = key ? strnlen(key, MPI_MAX_INFO_KEY) : 0;

    if (!key)
        return MPI_ERR_ARG;
    return n == 0 || n >= MPI_MAX_INFO_KEY ? MPI_ERR_INFO_KEY : 0;
}

/* The checks every call on an existing object and a key makes. */
static int check_info_key(MPI_Info info, const char *key)
{
    return !wmpi_info_is_live(info) ? MPI_ERR_INFO : check_key(key);
}

int PMPI_Info_create(MPI_Info *info)
{
    WMPI_NEED_INIT("MPI_Info_create");
    if (!info)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Info_create");
    return wbind_return(NULL, wmpi_info_create(info), "MPI_Info_create");
}
WMPI_ALIAS(Info_create)

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    int cls;

    WMPI_NEED_INIT("MPI_Info_set");
    cls = check_info_key(info, key);
    if (!cls && !value)
        cls = MPI_ERR_ARG;
    if (!cls && (!*value || strnlen(value, MPI_MAX_INFO_VAL) >= MPI_MAX_INFO_VAL))
        cls = MPI_ERR_INFO_VALUE;
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Info_set");
    return wbind_return(NULL, wmpi_info_set(env_ready(info), key, value), "MPI_Info_set");
}
WMPI_ALIAS(Info_set)

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    int cls;

    WMPI_NEED_INIT("MPI_Info_delete");
    cls = check_info_key(info, key);
    if (!cls && wmpi_info_delete(env_ready(info), key) < 0)
        cls = MPI_ERR_INFO_NOKEY;
    return cls ? wbind_fail(NULL, cls, "MPI_Info_delete") : MPI_SUCCESS;
}
WMPI_ALIAS(Info_delete)

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
                  int *flag)
{
    int cls;

    WMPI_NEED_INIT("MPI_Info_get");
    cls = check_info_key(info, key);
    if (!cls && (valuelen < 0 || !value || !flag))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Info_get");
    wmpi_info_get(env_ready(info), key, valuelen, value, flag);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Info_get)

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
                           int *flag)
{
    int cls;

    WMPI_NEED_INIT("MPI_Info_get_valuelen");
    cls = check_info_key(info, key);
    if (!cls && (!valuelen || !flag))
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Info_get_valuelen");
    wmpi_info_get_valuelen(env_ready(info), key, valuelen, flag);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    WMPI_NEED_INIT("MPI_Info_get_nkeys");
    if (!wmpi_info_is_live(info))
        return wbind_fail(NULL, MPI_ERR_INFO, "MPI_Info_get_nkeys");
    if (!nkeys)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys");
    *nkeys = wmpi_info_nkeys(env_ready(info));
    return MPI_SUCCESS;
}
WMPI_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    WMPI_NEED_INIT("MPI_Info_get_nthkey");
    if (!wmpi_info_is_live(info))
        return wbind_fail(NULL, MPI_ERR_INFO, "MPI_Info_get_nthkey");
    if (!key || wmpi_info_nthkey(env_ready(info), n, key, MPI_MAX_INFO_KEY) < 0)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey");
    return MPI_SUCCESS;
}
WMPI_ALIAS(Info_get_nthkey)

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    WMPI_NEED_INIT("MPI_Info_dup");
    if (!wmpi_info_is_live(info))
        return wbind_fail(NULL, MPI_ERR_INFO, "MPI_Info_dup");
    if (!newinfo)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Info_dup");
    return wbind_return(NULL, wmpi_info_dup(env_ready(info), newinfo), "MPI_Info_dup");
}
WMPI_ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info *info)
{
    WMPI_NEED_INIT("MPI_Info_free");
    if (!info)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Info_free");
    if (!wmpi_info_is_live(*info) || *info == MPI_INFO_ENV)
        return wbind_fail(NULL, MPI_ERR_INFO, "MPI_Info_free");
    wmpi_info_release(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Info_free)

/* ------------------------------------------------- communicator hints */

/* Weft acts on no communicator hint, but keeps what the program set and
 * gives it back (MPI-3.1 6.4.4 lets MPI_Comm_get_info return only the hints
 * used; Open MPI 4.1 returns only those it knows, MPICH what was set: we
 * follow MPICH, so libraries can read back their own hints). The stored
 * object is a private copy; a lock makes a swap and a concurrent read
 * safe (the copy is made outside it). */
static wmpi_lock comm_info_lock = WMPI_LOCK_INITIALIZER;

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    MPI_Info copy, old;
    int err;

    WMPI_NEED_INIT("MPI_Comm_set_info");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_set_info");
    if (!wmpi_info_is_live(info))
        return wbind_fail(comm, MPI_ERR_INFO, "MPI_Comm_set_info");
    err = wmpi_info_dup(env_ready(info), &copy);
    if (err)
        return wbind_return(comm, err, "MPI_Comm_set_info");
    wmpi_lock_take(&comm_info_lock);
    old = comm->info;
    comm->info = copy;
    wmpi_lock_release(&comm_info_lock);
    wmpi_info_release(old);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    int err;

    WMPI_NEED_INIT("MPI_Comm_get_info");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_get_info");
    if (!info_used)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_get_info");
    wmpi_lock_take(&comm_info_lock);
    err = comm->info ? wmpi_info_dup(comm->info, info_used) : wmpi_info_create(info_used);
    wmpi_lock_release(&comm_info_lock);
    return wbind_return(comm, err, "MPI_Comm_get_info");
}
WMPI_ALIAS(Comm_get_info)
