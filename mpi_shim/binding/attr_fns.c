/* The predefined attribute callbacks that mpi.h names MPI_COMM_NULL_COPY_FN,
 * MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, their datatype and window
 * twins, and the MPI-1 MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN.
 *
 * Design: MPI-3.1 6.7.2 defines them as functions (so they are real
 * functions here, exported under wmpi_pub_ names): a NULL_COPY function
 * sets *flag = 0 (the attribute is not copied), a DUP function copies the
 * attribute value and sets *flag = 1, a NULL_DELETE function does
 * nothing. All return MPI_SUCCESS.
 * Rejected: NULL function pointers as the macros' values (Open MPI and
 * MPICH export functions; programs may call or compare them).
 * Locking: none (no state).
 */
#include "binding/binding.h"

static int null_copy(int *flag)
{
    *flag = 0;
    return MPI_SUCCESS;
}

static int dup_value(void *in, void *out, int *flag)
{
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

int wmpi_pub_comm_null_copy_fn(MPI_Comm c, int k, void *extra, void *in,
                               void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out;
    return null_copy(flag);
}

int wmpi_pub_comm_dup_fn(MPI_Comm c, int k, void *extra, void *in, void *out,
                         int *flag)
{
    (void)c, (void)k, (void)extra;
    return dup_value(in, out, flag);
}

int wmpi_pub_comm_null_delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

int wmpi_pub_type_null_copy_fn(MPI_Datatype t, int k, void *extra, void *in,
                               void *out, int *flag)
{
    (void)t, (void)k, (void)extra, (void)in, (void)out;
    return null_copy(flag);
}

int wmpi_pub_type_dup_fn(MPI_Datatype t, int k, void *extra, void *in,
                         void *out, int *flag)
{
    (void)t, (void)k, (void)extra;
    return dup_value(in, out, flag);
}

int wmpi_pub_type_null_delete_fn(MPI_Datatype t, int k, void *val, void *extra)
{
    (void)t, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

int wmpi_pub_win_null_copy_fn(MPI_Win w, int k, void *extra, void *in,
                              void *out, int *flag)
{
    (void)w, (void)k, (void)extra, (void)in, (void)out;
    return null_copy(flag);
}

int wmpi_pub_win_dup_fn(MPI_Win w, int k, void *extra, void *in, void *out,
                        int *flag)
{
    (void)w, (void)k, (void)extra;
    return dup_value(in, out, flag);
}

int wmpi_pub_win_null_delete_fn(MPI_Win w, int k, void *val, void *extra)
{
    (void)w, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}

int wmpi_pub_null_copy_fn(MPI_Comm c, int k, void *extra, void *in, void *out,
                          int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out;
    return null_copy(flag);
}

int wmpi_pub_dup_fn(MPI_Comm c, int k, void *extra, void *in, void *out,
                    int *flag)
{
    (void)c, (void)k, (void)extra;
    return dup_value(in, out, flag);
}

int wmpi_pub_null_delete_fn(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    return MPI_SUCCESS;
}
