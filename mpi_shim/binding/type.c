/* Datatype queries and life: MPI_Type_size(_x), get_extent(_x),
 * get_true_extent(_x), commit, free, dup, set_name/get_name,
 * get_envelope and get_contents.
 *
 * Design: predefined and derived types answer the same engine queries
 * (engine/objects/datatype.h); these bindings check arguments and convert
 * widths (int results that do not fit become MPI_UNDEFINED, as MPI-3.1 4.1.5
 * says for MPI_Type_size). MPI_Type_free drops the handle's reference: a
 * pending operation or a type built on it keeps the type alive. Freeing a
 * predefined type is MPI_ERR_TYPE, as in Open MPI; committing one is a no-op.
 * MPI_Type_dup copies the attributes through their copy callbacks and
 * MPI_Type_free runs the delete callbacks first (engine/objects/attr.c; a
 * callback's error leaves the type as it was). Datatypes have no error handler
 * of their own, so errors go to MPI_COMM_WORLD's.
 *
 * Rejected: copying the name on MPI_Type_dup (Open MPI names the copy
 * "Dup <name>"; MPI says nothing, and an empty name is the default of
 * every new type).
 * Invariants: get_contents returns derived types with a new reference
 * (the user frees them, MPI-3.1 4.1.13); predefined ones as they are.
 * Locking: none here.
 */
#include <limits.h>
#include <string.h>

#include "binding/binding.h"
#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"

_Static_assert(MPI_MAX_OBJECT_NAME == WMPI_MAX_TYPE_NAME, "type names");

#define NEED_TYPE(dt, fn)                                                  \
    do {                                                                   \
        WMPI_NEED_INIT(fn);                                                \
        if (!wmpi_datatype_is_valid(dt))                                   \
            return wbind_fail(NULL, MPI_ERR_TYPE, fn);                      \
    } while (0)

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    NEED_TYPE(datatype, "MPI_Type_size");
    if (!size)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_size");
    *size = datatype->size > INT_MAX ? MPI_UNDEFINED : (int)datatype->size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    NEED_TYPE(datatype, "MPI_Type_size_x");
    if (!size)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_size_x");
    *size = (MPI_Count)datatype->size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_size_x)

/* ------------------------------------------------------------- extents */

static int bounds(MPI_Datatype dt, const void *a, const void *b,
                  wmpi_bounds *out, const char *fn)
{
    NEED_TYPE(dt, fn);
    if (!a || !b)
        return wbind_fail(NULL, MPI_ERR_ARG, fn);
    wmpi_datatype_bounds(dt, out);
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    wmpi_bounds b;
    int cls = bounds(datatype, lb, extent, &b, "MPI_Type_get_extent");

    if (cls == MPI_SUCCESS) {
        *lb = (MPI_Aint)b.lb;
        *extent = (MPI_Aint)b.extent;
    }
    return cls;
}
WMPI_ALIAS(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb,
                           MPI_Count *extent)
{
    wmpi_bounds b;
    int cls = bounds(datatype, lb, extent, &b, "MPI_Type_get_extent_x");

    if (cls == MPI_SUCCESS) {
        *lb = (MPI_Count)b.lb;
        *extent = (MPI_Count)b.extent;
    }
    return cls;
}
WMPI_ALIAS(Type_get_extent_x)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                              MPI_Aint *true_extent)
{
    wmpi_bounds b;
    int cls = bounds(datatype, true_lb, true_extent, &b,
                     "MPI_Type_get_true_extent");

    if (cls == MPI_SUCCESS) {
        *true_lb = (MPI_Aint)b.true_lb;
        *true_extent = (MPI_Aint)b.true_extent;
    }
    return cls;
}
WMPI_ALIAS(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                MPI_Count *true_extent)
{
    wmpi_bounds b;
    int cls = bounds(datatype, true_lb, true_extent, &b,
                     "MPI_Type_get_true_extent_x");

    if (cls == MPI_SUCCESS) {
        *true_lb = (MPI_Count)b.true_lb;
        *true_extent = (MPI_Count)b.true_extent;
    }
    return cls;
}
WMPI_ALIAS(Type_get_true_extent_x)

/* ---------------------------------------------------------------- life */

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    WMPI_NEED_INIT("MPI_Type_commit");
    if (!datatype)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_commit");
    if (!wmpi_datatype_is_valid(*datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Type_commit");
    wmpi_datatype_commit(*datatype);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    int err;

    WMPI_NEED_INIT("MPI_Type_free");
    if (!datatype)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_free");
    if (!wmpi_datatype_is_valid(*datatype) || wmpi_datatype_is_predefined(*datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Type_free");
    err = wmpi_type_attr_delete_all(*datatype); /* delete callbacks */
    if (err) /* the type stays, as MPI_Comm_free leaves a communicator */
        return wbind_return(NULL, err, "MPI_Type_free");
    wmpi_datatype_release(*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_free)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    wmpi_type_args a = { WMPI_COMBINER_DUP, 0, 0, 1, NULL, NULL, &oldtype };
    int err;

    NEED_TYPE(oldtype, "MPI_Type_dup");
    if (!newtype)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_dup");
    err = wmpi_datatype_create(&a, newtype);
    if (!err && wmpi_datatype_committed(oldtype))
        wmpi_datatype_commit(*newtype); /* a dup is committed if old was */
    if (!err && (err = wmpi_type_attr_copy_all(oldtype, *newtype)) != 0) {
        wmpi_type_attr_delete_all(*newtype); /* as MPI_Comm_dup does */
        wmpi_datatype_release(*newtype);     /* discards what is left */
        *newtype = MPI_DATATYPE_NULL;
    }
    return wbind_return(NULL, err, "MPI_Type_dup");
}
WMPI_ALIAS(Type_dup)

/* --------------------------------------------------------------- names */

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    NEED_TYPE(datatype, "MPI_Type_set_name");
    if (!type_name)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_set_name");
    return wbind_return(NULL, wmpi_datatype_set_name(datatype, type_name),
                       "MPI_Type_set_name");
}
WMPI_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    NEED_TYPE(datatype, "MPI_Type_get_name");
    if (!type_name || !resultlen)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_get_name");
    wmpi_datatype_get_name(datatype, type_name, resultlen);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_get_name)

/* ------------------------------------------------- envelope, contents */

static const int combiners[] = {
    [WMPI_COMBINER_NAMED] = MPI_COMBINER_NAMED,
    [WMPI_COMBINER_DUP] = MPI_COMBINER_DUP,
    [WMPI_COMBINER_CONTIGUOUS] = MPI_COMBINER_CONTIGUOUS,
    [WMPI_COMBINER_VECTOR] = MPI_COMBINER_VECTOR,
    [WMPI_COMBINER_HVECTOR] = MPI_COMBINER_HVECTOR,
    [WMPI_COMBINER_INDEXED] = MPI_COMBINER_INDEXED,
    [WMPI_COMBINER_HINDEXED] = MPI_COMBINER_HINDEXED,
    [WMPI_COMBINER_INDEXED_BLOCK] = MPI_COMBINER_INDEXED_BLOCK,
    [WMPI_COMBINER_HINDEXED_BLOCK] = MPI_COMBINER_HINDEXED_BLOCK,
    [WMPI_COMBINER_STRUCT] = MPI_COMBINER_STRUCT,
    [WMPI_COMBINER_SUBARRAY] = MPI_COMBINER_SUBARRAY,
    [WMPI_COMBINER_DARRAY] = MPI_COMBINER_DARRAY,
    [WMPI_COMBINER_RESIZED] = MPI_COMBINER_RESIZED,
};

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                           int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    wmpi_type_args a;

    NEED_TYPE(datatype, "MPI_Type_get_envelope");
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_get_envelope");
    wmpi_datatype_args(datatype, &a);
    *num_integers = a.ni;
    *num_addresses = a.na;
    *num_datatypes = a.nt;
    *combiner = combiners[a.combiner];
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_get_envelope)

/* darray's engine constants back to MPI's (type_create.c maps them in) */
static void darray_out(int *ints)
{
    int n = ints[2];
    static const int dist[] = { [WMPI_DISTRIBUTE_BLOCK] = MPI_DISTRIBUTE_BLOCK,
                                [WMPI_DISTRIBUTE_CYCLIC] = MPI_DISTRIBUTE_CYCLIC,
                                [WMPI_DISTRIBUTE_NONE] = MPI_DISTRIBUTE_NONE };

    for (int i = 0; i < n; i++) {
        ints[3 + n + i] = dist[ints[3 + n + i]];
        if (ints[3 + 2 * n + i] == WMPI_DISTRIBUTE_DFLT_DARG)
            ints[3 + 2 * n + i] = MPI_DISTRIBUTE_DFLT_DARG;
    }
}

static void contents_out(const wmpi_type_args *a, int *ints, MPI_Aint *aints,
                         MPI_Datatype *types)
{
    int c = a->combiner;

    if (a->ni)
        memcpy(ints, a->ints, (size_t)a->ni * sizeof *ints);
    if (c == WMPI_COMBINER_SUBARRAY || c == WMPI_COMBINER_DARRAY) /* order */
        ints[a->ni - 1] = ints[a->ni - 1] == WMPI_ORDER_C ? MPI_ORDER_C
                                                          : MPI_ORDER_FORTRAN;
    if (c == WMPI_COMBINER_DARRAY)
        darray_out(ints);
    for (int i = 0; i < a->na; i++)
        aints[i] = (MPI_Aint)a->aints[i];
    for (int i = 0; i < a->nt; i++) {
        types[i] = a->types[i];
        wmpi_datatype_retain(types[i]); /* the user frees what we return */
    }
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
                           int max_addresses, int max_datatypes,
                           int array_of_integers[],
                           MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    wmpi_type_args a;

    NEED_TYPE(datatype, "MPI_Type_get_contents");
    wmpi_datatype_args(datatype, &a);
    if (a.combiner == WMPI_COMBINER_NAMED) /* erroneous for named types */
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Type_get_contents");
    if (max_integers < a.ni || max_addresses < a.na || max_datatypes < a.nt ||
        (a.ni && !array_of_integers) || (a.na && !array_of_addresses) ||
        (a.nt && !array_of_datatypes))
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_get_contents");
    contents_out(&a, array_of_integers, array_of_addresses, array_of_datatypes);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_get_contents)
