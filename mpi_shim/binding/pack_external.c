/* MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size (the
 * portable "external32" representation, MPI-3.1 13.5.2) and
 * MPI_Type_match_size (MPI-3.1 17.1.9).
 *
 * Design: the conversion is the engine's (engine/objects/external32.c); these
 * check arguments the way MPI_Pack / MPI_Unpack do (binding/pack.c): no
 * room in either buffer is MPI_ERR_TRUNCATE with the position unchanged.
 * MPI_Pack_external_size is exact (the standard asks for an upper bound).
 * MPI_Type_match_size answers, like Open MPI, the Fortran named type of
 * that class and size (MPI_INTEGER1/2, MPI_INTEGER, MPI_INTEGER8; MPI_REAL,
 * MPI_REAL8; MPI_COMPLEX, MPI_COMPLEX16), and for 16-byte reals or
 * 32-byte complex values MPI_REAL16 / MPI_COMPLEX32 where long double is
 * binary128, else MPI_LONG_DOUBLE / MPI_C_LONG_DOUBLE_COMPLEX when those
 * have that size.
 *
 * Errors: a datarep other than "external32" is MPI_ERR_ARG (Open MPI 4.1
 * accepts any string); no type of the class and size, or an unknown
 * class, is MPI_ERR_ARG (as Open MPI). Datatypes have no error handler:
 * errors go to MPI_COMM_WORLD's.
 * Locking: none (the caller's buffers; immutable types).
 */
#include <string.h>

#include "binding/binding.h"
#include "engine/objects/datatype.h"

/* 0 or the class for moving `count` elements of dt between the typed
 * buffer and `size` external32 bytes at *position (both directions);
 * *bytes gets the external32 length. */
static int check(const char *datarep, int count, MPI_Datatype dt,
                 const void *typed, const void *packed, MPI_Aint size,
                 const MPI_Aint *position, int64_t *bytes)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return MPI_ERR_ARG;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (!wmpi_datatype_committed(dt))
        return MPI_ERR_TYPE;
    if (!position || size < 0 || *position < 0)
        return MPI_ERR_ARG;
    *bytes = wmpi_external32_size(dt, count);
    if (*bytes < 0)
        return MPI_ERR_COUNT;
    if (*bytes > (int64_t)size - *position)
        return MPI_ERR_TRUNCATE;
    if (*bytes > 0 && (!packed || (!typed && wmpi_datatype_is_predefined(dt))))
        return MPI_ERR_BUFFER; /* derived types may start at MPI_BOTTOM */
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,
                       MPI_Aint *position)
{
    int64_t bytes, done;
    int cls;

    WMPI_NEED_INIT("MPI_Pack_external");
    cls = check(datarep, incount, datatype, inbuf, outbuf, outsize, position,
                &bytes);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Pack_external");
    done = wmpi_external32_pack(datatype, incount, inbuf,
                                (char *)outbuf + *position);
    if (done < 0)
        return wbind_return(NULL, (int)done, "MPI_Pack_external");
    *position += (MPI_Aint)done;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Pack_external)

int PMPI_Unpack_external(const char datarep[], const void *inbuf,
                         MPI_Aint insize, MPI_Aint *position, void *outbuf,
                         int outcount, MPI_Datatype datatype)
{
    int64_t bytes, done;
    int cls;

    WMPI_NEED_INIT("MPI_Unpack_external");
    cls = check(datarep, outcount, datatype, outbuf, inbuf, insize, position,
                &bytes);
    if (cls)
        return wbind_fail(NULL, cls, "MPI_Unpack_external");
    done = wmpi_external32_unpack(datatype, outcount,
                                  (const char *)inbuf + *position, outbuf);
    if (done < 0)
        return wbind_return(NULL, (int)done, "MPI_Unpack_external");
    *position += (MPI_Aint)done;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Unpack_external)

int PMPI_Pack_external_size(const char datarep[], int incount,
                            MPI_Datatype datatype, MPI_Aint *size)
{
    int64_t bytes;

    WMPI_NEED_INIT("MPI_Pack_external_size");
    if (!datarep || strcmp(datarep, "external32") != 0 || !size)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Pack_external_size");
    if (incount < 0)
        return wbind_fail(NULL, MPI_ERR_COUNT, "MPI_Pack_external_size");
    if (!wmpi_datatype_is_valid(datatype))
        return wbind_fail(NULL, MPI_ERR_TYPE, "MPI_Pack_external_size");
    bytes = wmpi_external32_size(datatype, incount);
    if (bytes < 0)
        return wbind_fail(NULL, MPI_ERR_COUNT, "MPI_Pack_external_size");
    *size = (MPI_Aint)bytes;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Pack_external_size)

/* ------------------------------------------------------ Type_match_size */

/* The named type of `typeclass` whose MPI_Type_size is `size`, or
 * MPI_DATATYPE_NULL. */
static MPI_Datatype match(int typeclass, int size)
{
    MPI_Datatype ints[] = { MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER,
                            MPI_INTEGER8 };
    MPI_Datatype reals[] = { MPI_REAL, MPI_REAL8, MPI_REAL16,
                             MPI_LONG_DOUBLE };
    MPI_Datatype complexes[] = { MPI_COMPLEX, MPI_COMPLEX16, MPI_COMPLEX32,
                                 MPI_C_LONG_DOUBLE_COMPLEX };
    MPI_Datatype *list = NULL;
    size_t n = 0;

    if (typeclass == MPI_TYPECLASS_INTEGER)
        list = ints, n = sizeof ints / sizeof ints[0];
    else if (typeclass == MPI_TYPECLASS_REAL)
        list = reals, n = sizeof reals / sizeof reals[0];
    else if (typeclass == MPI_TYPECLASS_COMPLEX)
        list = complexes, n = sizeof complexes / sizeof complexes[0];
    for (size_t i = 0; i < n; i++)
        if (list[i] != MPI_DATATYPE_NULL && (int64_t)list[i]->size == size)
            return list[i];
    return MPI_DATATYPE_NULL;
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    MPI_Datatype dt;

    WMPI_NEED_INIT("MPI_Type_match_size");
    if (!datatype)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_match_size");
    dt = match(typeclass, size);
    if (dt == MPI_DATATYPE_NULL)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Type_match_size");
    *datatype = dt;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Type_match_size)
