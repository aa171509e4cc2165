/* Attribute bindings: MPI_Comm_create_keyval, _free_keyval, _set_attr,
 * _get_attr, _delete_attr, and their deprecated MPI-1 forms
 * MPI_Keyval_create/free and MPI_Attr_put/get/delete.
 *
 * Design: the MPI-1 forms have the same callback signatures and value
 * semantics as the MPI-2 ones for communicators, so both call the same engine
 * functions (engine/objects/attr.c). MPI_Comm_get_attr's attribute_val is a
 * void ** in disguise: it receives the stored pointer (for predefined keyvals,
 * a pointer to an int, as MPI-3.1 6.7.5 says).
 *
 * Errors: an unknown, freed or predefined-where-not-allowed keyval is
 * MPI_ERR_KEYVAL (Open MPI 4.1 says MPI_ERR_OTHER for some of these; the
 * standard names MPI_ERR_KEYVAL), deleting an attribute that is not set is
 * MPI_ERR_OTHER (as Open MPI), and a callback's own error code is returned
 * as it is, through the communicator's handler.
 * Locking: none here (engine/objects/attr.c).
 */
#include "binding/comm.h"
#include "binding/errclass.h"

_Static_assert(MPI_TAG_UB == WMPI_KEY_TAG_UB && MPI_LASTUSEDCODE == WMPI_KEY_LASTUSEDCODE,
               "predefined keyvals");

static int attr_return(MPI_Comm comm, int err, const char *fn)
{
    if (err == WEFT_EINVAL)
        return wbind_fail(comm, MPI_ERR_KEYVAL, fn);
    if (err == -ENOENT)
        return wbind_fail(comm, MPI_ERR_OTHER, fn);
    return wbind_return(comm, err, fn);
}

/* ------------------------------------------------------------- keyvals */

static int keyval_create(MPI_Comm_copy_attr_function *copy,
                         MPI_Comm_delete_attr_function *del, int *keyval,
                         void *extra, const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!keyval)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    return wbind_return(NULL, wmpi_keyval_create(copy, del, extra, keyval), fn);
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                            int *comm_keyval, void *extra_state)
{
    return keyval_create(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                         extra_state, "MPI_Comm_create_keyval");
}
WMPI_ALIAS(Comm_create_keyval)

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                       int *keyval, void *extra_state)
{
    return keyval_create(copy_fn, delete_fn, keyval, extra_state,
                         "MPI_Keyval_create");
}
WMPI_ALIAS(Keyval_create)

static int keyval_free(int *keyval, const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!keyval)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    if (wmpi_keyval_free(*keyval))
        return wbind_fail(NULL, MPI_ERR_KEYVAL, fn);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return keyval_free(comm_keyval, "MPI_Comm_free_keyval");
}
WMPI_ALIAS(Comm_free_keyval)

int PMPI_Keyval_free(int *keyval)
{
    return keyval_free(keyval, "MPI_Keyval_free");
}
WMPI_ALIAS(Keyval_free)

/* ---------------------------------------------------------- attributes */

static int attr_set(MPI_Comm comm, int keyval, void *val, const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, fn);
    return attr_return(comm, wmpi_attr_set(comm, keyval, val), fn);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return attr_set(comm, comm_keyval, attribute_val, "MPI_Comm_set_attr");
}
WMPI_ALIAS(Comm_set_attr)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return attr_set(comm, keyval, attribute_val, "MPI_Attr_put");
}
WMPI_ALIAS(Attr_put)

static int attr_get(MPI_Comm comm, int keyval, void *val, int *flag,
                    const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, fn);
    if (!val || !flag)
        return wbind_fail(comm, MPI_ERR_ARG, fn);
    if (keyval == MPI_LASTUSEDCODE) /* the error codes live in the bindings */
        wmpi_attr_set_lastusedcode(wbind_errclass_last());
    return attr_return(comm, wmpi_attr_get(comm, keyval, (void **)val, flag), fn);
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val,
                       int *flag)
{
    return attr_get(comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
}
WMPI_ALIAS(Comm_get_attr)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return attr_get(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}
WMPI_ALIAS(Attr_get)

static int attr_delete(MPI_Comm comm, int keyval, const char *fn)
{
    WMPI_NEED_INIT(fn);
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, fn);
    return attr_return(comm, wmpi_attr_delete(comm, keyval), fn);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return attr_delete(comm, comm_keyval, "MPI_Comm_delete_attr");
}
WMPI_ALIAS(Comm_delete_attr)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return attr_delete(comm, keyval, "MPI_Attr_delete");
}
WMPI_ALIAS(Attr_delete)
