/* The MPI tool information interface (MPI-3.1 chapter 14, MPI_T_*), with
 * no variables yet: Weft exports no control variables, no performance
 * variables and no categories.
 *
 * Design: a tool (a profiler, a tuning library) calls MPI_T_init_thread,
 * asks how many variables exist, and reads them; with none it learns
 * there is nothing to read and carries on. That is a correct MPI_T, so
 * these are real bindings rather than the generated "not supported"
 * stubs, which would go through MPI error handlers (MPI_T functions never
 * do: they return their error code, and may be called before MPI_Init
 * and after MPI_Finalize). Calls that name a variable, category or enum
 * get MPI_T_ERR_INVALID_INDEX / _NAME / _HANDLE, as no index is valid.
 * Performance-variable sessions exist (a tool opens one before asking
 * for handles); they hold nothing.
 *
 * Rejected: exporting Weft's I/O server statistics as pvars now (worth
 * doing with the benchmarks' figures; not needed for programs to run).
 *
 * Invariants: init_count = MPI_T_init_thread calls minus MPI_T_finalize
 * calls, never negative.
 * Locking: init_count is atomic; sessions are the caller's.
 */
#include <stdlib.h>

#include "binding/binding.h"

struct wmpi_t_pvar_session {
    int unused; /* sessions hold nothing: there are no pvars */
};

static int init_count;

/* MPI_T_ERR_NOT_INITIALIZED unless between init_thread and finalize. */
static int need_init(void)
{
    return __atomic_load_n(&init_count, __ATOMIC_ACQUIRE) > 0
               ? MPI_SUCCESS : MPI_T_ERR_NOT_INITIALIZED;
}

/* For calls that name something by index or handle: none is valid. */
static int none_valid(int err)
{
    int rc = need_init();

    return rc ? rc : err;
}

static int zero(int *out)
{
    int rc = need_init();

    if (rc)
        return rc;
    if (!out)
        return MPI_ERR_ARG;
    *out = 0;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ set-up */

int PMPI_T_init_thread(int required, int *provided)
{
    if (!provided || required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return MPI_ERR_ARG;
    __atomic_add_fetch(&init_count, 1, __ATOMIC_ACQ_REL);
    *provided = MPI_THREAD_MULTIPLE; /* every MPI_T call is thread-safe */
    return MPI_SUCCESS;
}
WMPI_ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
    int n = __atomic_load_n(&init_count, __ATOMIC_ACQUIRE);

    do {
        if (n <= 0)
            return MPI_T_ERR_NOT_INITIALIZED;
    } while (!__atomic_compare_exchange_n(&init_count, &n, n - 1, 0,
                                          __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    return MPI_SUCCESS;
}
WMPI_ALIAS(T_finalize)

/* ------------------------------------------------- control variables */

int PMPI_T_cvar_get_num(int *num_cvar) { return zero(num_cvar); }
WMPI_ALIAS(T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len,
                         int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    (void)cvar_index, (void)name, (void)name_len, (void)verbosity;
    (void)datatype, (void)enumtype, (void)desc, (void)desc_len, (void)bind;
    (void)scope;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    (void)name, (void)cvar_index;
    return none_valid(MPI_T_ERR_INVALID_NAME);
}
WMPI_ALIAS(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
                             MPI_T_cvar_handle *handle, int *count)
{
    (void)cvar_index, (void)obj_handle, (void)handle, (void)count;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    (void)handle;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    (void)handle, (void)buf;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)handle, (void)buf;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_cvar_write)

/* ------------------------------------------------------------- enums */

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                         int *name_len)
{
    (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_enum_get_item)

/* --------------------------------------------- performance variables */

int PMPI_T_pvar_get_num(int *num_pvar) { return zero(num_pvar); }
WMPI_ALIAS(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len,
                         int *verbosity, int *var_class, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *readonly, int *continuous, int *atomic)
{
    (void)pvar_index, (void)name, (void)name_len, (void)verbosity;
    (void)var_class, (void)datatype, (void)enumtype, (void)desc;
    (void)desc_len, (void)bind, (void)readonly, (void)continuous, (void)atomic;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    (void)name, (void)var_class, (void)pvar_index;
    return none_valid(MPI_T_ERR_INVALID_NAME);
}
WMPI_ALIAS(T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    int rc = need_init();

    if (rc)
        return rc;
    if (!session)
        return MPI_ERR_ARG;
    *session = calloc(1, sizeof **session);
    return *session ? MPI_SUCCESS : MPI_T_ERR_MEMORY;
}
WMPI_ALIAS(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    int rc = need_init();

    if (rc)
        return rc;
    if (!session || *session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index,
                             void *obj_handle, MPI_T_pvar_handle *handle,
                             int *count)
{
    (void)session, (void)pvar_index, (void)obj_handle, (void)handle, (void)count;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    (void)session, (void)handle;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_pvar_handle_free)

/* Start, stop and reset accept MPI_T_PVAR_ALL_HANDLES: all of none. */
static int every_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = need_init();

    if (rc)
        return rc;
    if (session == MPI_T_PVAR_SESSION_NULL)
        return MPI_T_ERR_INVALID_SESSION;
    return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return every_handle(session, handle);
}
WMPI_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return every_handle(session, handle);
}
WMPI_ALIAS(T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return every_handle(session, handle);
}
WMPI_ALIAS(T_pvar_reset)

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)session, (void)handle, (void)buf;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_pvar_read)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                          void *buf)
{
    (void)session, (void)handle, (void)buf;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_pvar_readreset)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
                      const void *buf)
{
    (void)session, (void)handle, (void)buf;
    return none_valid(MPI_T_ERR_INVALID_HANDLE);
}
WMPI_ALIAS(T_pvar_write)

/* -------------------------------------------------------- categories */

int PMPI_T_category_get_num(int *num_cat) { return zero(num_cat); }
WMPI_ALIAS(T_category_get_num)

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars,
                             int *num_categories)
{
    (void)cat_index, (void)name, (void)name_len, (void)desc, (void)desc_len;
    (void)num_cvars, (void)num_pvars, (void)num_categories;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_category_get_info)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    (void)name, (void)cat_index;
    return none_valid(MPI_T_ERR_INVALID_NAME);
}
WMPI_ALIAS(T_category_get_index)

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    (void)cat_index, (void)len, (void)indices;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    (void)cat_index, (void)len, (void)indices;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    (void)cat_index, (void)len, (void)indices;
    return none_valid(MPI_T_ERR_INVALID_INDEX);
}
WMPI_ALIAS(T_category_get_categories)

/* The categories never change: the stamp stays 0. */
int PMPI_T_category_changed(int *stamp) { return zero(stamp); }
WMPI_ALIAS(T_category_changed)
