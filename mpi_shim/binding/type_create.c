/* Datatype constructors: MPI_Type_contiguous, vector, create_hvector,
 * indexed, create_hindexed, create_indexed_block, create_hindexed_block,
 * create_struct, create_resized, create_subarray, create_darray.
 *
 * Design: each binding checks its arguments (with Open MPI's classes: a
 * negative count is MPI_ERR_COUNT, a negative block length or a bad array
 * MPI_ERR_ARG, a null type MPI_ERR_TYPE), then marshals them into the argument
 * list MPI_Type_get_contents will report (engine/objects/datatype.h) and lets
 * wmpi_datatype_create build the type. The engine repeats the value checks it
 * needs, so nothing slips through a binding.
 *
 * Rejected: one engine function per constructor (eleven near-identical
 * interfaces, plus a second copy of the arguments for get_contents).
 * Invariants: MPI_Aint is int64_t wide, so address arrays pass as they are.
 * Locking: none here (the engine's constructors are thread-safe).
 */
#include <stdlib.h>
#include <string.h>

#include "binding/binding.h"
#include "engine/objects/datatype.h"

_Static_assert(sizeof(MPI_Aint) == sizeof(int64_t), "MPI_Aint is 64-bit");

static int create(int comb, int ni, const int *ints, int na,
                  const MPI_Aint *aints, int nt, const MPI_Datatype *types,
                  MPI_Datatype *newtype, const char *fn)
{
    wmpi_type_args a = { comb, ni, na, nt, ints, (const int64_t *)aints,
                         (wmpi_datatype *const *)types };
    int err = wmpi_datatype_create(&a, newtype);

    return err ? wbind_return(NULL, err, fn) : MPI_SUCCESS;
}

/* The checks every constructor of one old type shares. */
static int check_old(int count, MPI_Datatype oldtype, const MPI_Datatype *newtype)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!wmpi_datatype_is_valid(oldtype))
        return MPI_ERR_TYPE;
    return newtype ? MPI_SUCCESS : MPI_ERR_ARG;
}

/* The ints get_contents reports for the indexed family and struct:
 * { count, bl[count] or bl[0] if `same`, idisp[count] if given }. */
static int *block_ints(int count, const int *bl, int same, const int *idisp,
                       int *ni)
{
    size_t n = (size_t)count, len = 1 + (same ? 1 : n) + (idisp ? n : 0);
    int *v = malloc(len * sizeof *v), *p = v;

    if (!v)
        return NULL;
    *p++ = count;
    if (same) {
        *p++ = bl[0];
    } else if (n) {
        memcpy(p, bl, n * sizeof *p);
        p += n;
    }
    if (idisp && n)
        memcpy(p, idisp, n * sizeof *p);
    *ni = (int)len;
    return v;
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int cls;

    WMPI_NEED_INIT("MPI_Type_contiguous");
    cls = check_old(count, oldtype, newtype);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Type_contiguous");
    return create(WMPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &oldtype,
                  newtype, "MPI_Type_contiguous");
}
WMPI_ALIAS(Type_contiguous)

/* The two vector constructors: the stride in extents (`istride`) or in
 * bytes (`astride`). */
static int vector(int comb, int count, int blocklength, const int *istride,
                  const MPI_Aint *astride, MPI_Datatype oldtype,
                  MPI_Datatype *newtype, const char *fn)
{
    int cls = check_old(count, oldtype, newtype),
        ints[3] = { count, blocklength, istride ? *istride : 0 };

    if (!cls && blocklength < 0)
        cls = MPI_ERR_ARG;
    if (cls)
        return wbind_fail(NULL, cls, fn);
    return create(comb, istride ? 3 : 2, ints, astride ? 1 : 0, astride, 1,
                  &oldtype, newtype, fn);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    WMPI_NEED_INIT("MPI_Type_vector");
    return vector(WMPI_COMBINER_VECTOR, count, blocklength, &stride, NULL,
                  oldtype, newtype, "MPI_Type_vector");
}
WMPI_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    WMPI_NEED_INIT("MPI_Type_create_hvector");
    return vector(WMPI_COMBINER_HVECTOR, count, blocklength, NULL, &stride,
                  oldtype, newtype, "MPI_Type_create_hvector");
}
WMPI_ALIAS(Type_create_hvector)

static int check_blocks(int count, const int *bl, int same)
{
    for (int i = 0; i < (same ? 1 : count); i++)
        if (bl[i] < 0)
            return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

/* The four indexed constructors: block lengths `bl` (one if `same`),
 * displacements in extents (`idisp`) or bytes (`adisp`). */
static int indexed(int comb, int count, const int *bl, int same,
                   const int *idisp, const MPI_Aint *adisp,
                   MPI_Datatype oldtype, MPI_Datatype *newtype, const char *fn)
{
    int cls = check_old(count, oldtype, newtype), err, ni, *ints;

    if (!cls && count > 0 && (!bl || (!idisp && !adisp)))
        cls = MPI_ERR_ARG;
    if (!cls && count > 0)
        cls = check_blocks(count, bl, same);
    if (cls)
        return wbind_fail(NULL, cls, fn);
    ints = block_ints(count, bl, same, idisp, &ni);
    if (!ints)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, fn);
    err = create(comb, ni, ints, adisp ? count : 0, adisp, 1, &oldtype,
                 newtype, fn);
    free(ints);
    return err;
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    WMPI_NEED_INIT("MPI_Type_indexed");
    return indexed(WMPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                   array_of_displacements, NULL, oldtype, newtype,
                   "MPI_Type_indexed");
}
WMPI_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    WMPI_NEED_INIT("MPI_Type_create_hindexed");
    return indexed(WMPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                   NULL, array_of_displacements, oldtype, newtype,
                   "MPI_Type_create_hindexed");
}
WMPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
                                   const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    WMPI_NEED_INIT("MPI_Type_create_indexed_block");
    return indexed(WMPI_COMBINER_INDEXED_BLOCK, count, &blocklength, 1,
                   array_of_displacements, NULL, oldtype, newtype,
                   "MPI_Type_create_indexed_block");
}
WMPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    WMPI_NEED_INIT("MPI_Type_create_hindexed_block");
    return indexed(WMPI_COMBINER_HINDEXED_BLOCK, count, &blocklength, 1,
                   NULL, array_of_displacements, oldtype, newtype,
                   "MPI_Type_create_hindexed_block");
}
WMPI_ALIAS(Type_create_hindexed_block)

static int check_struct(int count, const int *bl, const MPI_Aint *disp,
                        const MPI_Datatype *types, const MPI_Datatype *newtype)
{
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!newtype || (count > 0 && (!bl || !disp || !types)))
        return MPI_ERR_ARG;
    for (int i = 0; i < count; i++) {
        if (!wmpi_datatype_is_valid(types[i]))
            return MPI_ERR_TYPE;
        if (bl[i] < 0)
            return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[],
                            MPI_Datatype *newtype)
{
    int cls, err, ni, *ints;

    WMPI_NEED_INIT("MPI_Type_create_struct");
    cls = check_struct(count, array_of_blocklengths, array_of_displacements,
                       array_of_types, newtype);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Type_create_struct");
    ints = block_ints(count, array_of_blocklengths, 0, NULL, &ni);
    if (!ints)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Type_create_struct");
    err = create(WMPI_COMBINER_STRUCT, ni, ints, count,
                 array_of_displacements, count, array_of_types, newtype,
                 "MPI_Type_create_struct");
    free(ints);
    return err;
}
WMPI_ALIAS(Type_create_struct)

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    MPI_Aint aints[2] = { lb, extent };
    int cls;

    WMPI_NEED_INIT("MPI_Type_create_resized");
    cls = check_old(0, oldtype, newtype); /* any extent: < 0 reverses */
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Type_create_resized");
    return create(WMPI_COMBINER_RESIZED, 0, NULL, 2, aints, 1, &oldtype,
                  newtype, "MPI_Type_create_resized");
}
WMPI_ALIAS(Type_create_resized)

static int check_subarray(int ndims, const int *sizes, const int *subsizes,
                          const int *starts, int order)
{
    if (ndims < 0)
        return MPI_ERR_COUNT;
    if (ndims == 0 || !sizes || !subsizes || !starts)
        return MPI_ERR_ARG;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return MPI_ERR_ARG;
    for (int i = 0; i < ndims; i++)
        if (sizes[i] < 1 || subsizes[i] < 1 || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                              const int array_of_subsizes[],
                              const int array_of_starts[], int order,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int cls, err, *ints;
    size_t n = (size_t)(ndims > 0 ? ndims : 0);

    WMPI_NEED_INIT("MPI_Type_create_subarray");
    cls = check_subarray(ndims, array_of_sizes, array_of_subsizes,
                         array_of_starts, order);
    if (!cls)
        cls = check_old(0, oldtype, newtype);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Type_create_subarray");
    ints = malloc((2 + 3 * n) * sizeof *ints);
    if (!ints)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Type_create_subarray");
    ints[0] = ndims;
    memcpy(ints + 1, array_of_sizes, n * sizeof *ints);
    memcpy(ints + 1 + n, array_of_subsizes, n * sizeof *ints);
    memcpy(ints + 1 + 2 * n, array_of_starts, n * sizeof *ints);
    ints[1 + 3 * n] = order == MPI_ORDER_C ? WMPI_ORDER_C : WMPI_ORDER_FORTRAN;
    err = create(WMPI_COMBINER_SUBARRAY, (int)(2 + 3 * n), ints, 0, NULL, 1,
                 &oldtype, newtype, "MPI_Type_create_subarray");
    free(ints);
    return err;
}
WMPI_ALIAS(Type_create_subarray)

static int check_darray(int size, int rank, int ndims, const int *gsizes,
                        const int *distribs, const int *dargs,
                        const int *psizes, int order)
{
    if (ndims < 0)
        return MPI_ERR_COUNT;
    if (size < 1 || rank < 0 || rank >= size)
        return MPI_ERR_ARG;
    if (ndims == 0 || !gsizes || !distribs || !dargs || !psizes)
        return MPI_ERR_ARG;
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return MPI_ERR_ARG;
    for (int i = 0; i < ndims; i++)
        if (distribs[i] != MPI_DISTRIBUTE_BLOCK &&
            distribs[i] != MPI_DISTRIBUTE_CYCLIC &&
            distribs[i] != MPI_DISTRIBUTE_NONE)
            return MPI_ERR_ARG;
    return MPI_SUCCESS; /* the engine checks the values */
}

/* MPI's distribution constant -> the engine's (type.c maps back). */
static int dist_in(int d)
{
    return d == MPI_DISTRIBUTE_BLOCK    ? WMPI_DISTRIBUTE_BLOCK
           : d == MPI_DISTRIBUTE_CYCLIC ? WMPI_DISTRIBUTE_CYCLIC
                                        : WMPI_DISTRIBUTE_NONE;
}

static int *darray_ints(int size, int rank, int n, const int *gsizes,
                        const int *distribs, const int *dargs,
                        const int *psizes, int order)
{
    int *v = malloc((4 + 4 * (size_t)n) * sizeof *v);

    if (!v)
        return NULL;
    v[0] = size;
    v[1] = rank;
    v[2] = n;
    for (int i = 0; i < n; i++) {
        v[3 + i] = gsizes[i];
        v[3 + n + i] = dist_in(distribs[i]);
        v[3 + 2 * n + i] = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG
                               ? WMPI_DISTRIBUTE_DFLT_DARG : dargs[i];
        v[3 + 3 * n + i] = psizes[i];
    }
    v[3 + 4 * n] = order == MPI_ORDER_C ? WMPI_ORDER_C : WMPI_ORDER_FORTRAN;
    return v;
}

int PMPI_Type_create_darray(int size, int rank, int ndims,
                            const int array_of_gsizes[],
                            const int array_of_distribs[],
                            const int array_of_dargs[],
                            const int array_of_psizes[], int order,
                            MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int cls, err, *ints;

    WMPI_NEED_INIT("MPI_Type_create_darray");
    cls = check_darray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                       array_of_dargs, array_of_psizes, order);
    if (!cls)
        cls = check_old(0, oldtype, newtype);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Type_create_darray");
    ints = darray_ints(size, rank, ndims, array_of_gsizes, array_of_distribs,
                       array_of_dargs, array_of_psizes, order);
    if (!ints)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Type_create_darray");
    err = create(WMPI_COMBINER_DARRAY, 4 + 4 * ndims, ints, 0, NULL, 1,
                 &oldtype, newtype, "MPI_Type_create_darray");
    free(ints);
    return err;
}
WMPI_ALIAS(Type_create_darray)
