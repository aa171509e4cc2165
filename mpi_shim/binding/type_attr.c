/* Datatype attribute bindings: MPI_Type_create_keyval, _free_keyval,
 * _set_attr, _get_attr, _delete_attr (MPI-3.1 6.7.4).
 *
 * Design: the same engine as communicator attributes (engine/objects/attr.c),
 * with keyvals of the datatype kind; the copy callbacks run on
 * MPI_Type_dup and the delete callbacks on MPI_Type_free (binding/type.c).
 * Predefined datatypes may cache attributes too (the standard does not
 * forbid it; Open MPI allows it). MPI_Type_get_attr's attribute_val is a
 * void ** in disguise: it receives the stored pointer.
 *
 * Errors: datatypes have no error handler, so errors go to
 * MPI_COMM_WORLD's. MPI_DATATYPE_NULL is MPI_ERR_TYPE; an unknown or
 * freed keyval, or a keyval of another kind of object (a communicator
 * keyval), is MPI_ERR_KEYVAL (Open MPI 4.1 says MPI_ERR_ARG for the
 * latter; the standard names MPI_ERR_KEYVAL); deleting an attribute that
 * is not set is MPI_ERR_OTHER, as for communicators; a callback's error
 * code is returned as it is.
 * Locking: none here (engine/objects/attr.c).
 */
#include "binding/binding.h"
#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"

static int type_attr_return(int err, const char *fn)
{
    if (err == WEFT_EINVAL)
        return wbind_fail(NULL, MPI_ERR_KEYVAL, fn);
    if (err == -ENOENT)
        return wbind_fail(NULL, MPI_ERR_OTHER, fn);
    return wbind_return(NULL, err, fn);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn,
                            int *type_keyval, void *extra_state)
{
    WMPI_NEED_INIT("MPI_Type_create_keyval");
    if (!type_keyval)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_create_keyval");
    return wbind_return(NULL,
                       wmpi_type_keyval_create(type_copy_attr_fn,
                                               type_delete_attr_fn,
                                               extra_state, type_keyval),
                       "MPI_Type_create_keyval");
}
WMPI_ALIAS(Type_create_keyval)

int PMPI_Type_free_keyval(int *type_keyval)
{
    WMPI_NEED_INIT("MPI_Type_free_keyval");
    if (!type_keyval)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_free_keyval");
    if (wmpi_type_keyval_free(*type_keyval))
        return wbind_fail(NULL, MPI_ERR_KEYVAL, "MPI_Type_free_keyval");
    *type_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_free_keyval)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val)
{
    WMPI_NEED_INIT("MPI_Type_set_attr");
    if (!wmpi_datatype_is_valid(datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Type_set_attr");
    return type_attr_return(wmpi_type_attr_set(datatype, type_keyval,
                                               attribute_val),
                            "MPI_Type_set_attr");
}
WMPI_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval,
                       void *attribute_val, int *flag)
{
    WMPI_NEED_INIT("MPI_Type_get_attr");
    if (!wmpi_datatype_is_valid(datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Type_get_attr");
    if (!attribute_val || !flag)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_get_attr");
    return type_attr_return(wmpi_type_attr_get(datatype, type_keyval,
                                               (void **)attribute_val, flag),
                            "MPI_Type_get_attr");
}
WMPI_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    WMPI_NEED_INIT("MPI_Type_delete_attr");
    if (!wmpi_datatype_is_valid(datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Type_delete_attr");
    return type_attr_return(wmpi_type_attr_delete(datatype, type_keyval),
                            "MPI_Type_delete_attr");
}
WMPI_ALIAS(Type_delete_attr)
