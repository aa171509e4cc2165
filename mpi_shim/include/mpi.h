/* mpi.h: the C interface of Weft's MPI library (MPI-3.1 names and
 * semantics) for programs built with Weft's mpicc and linked with
 * libweft_mpi.
 *
 * Handles are pointers to incomplete structs (as Open MPI), not integers
 * (as MPICH): the compiler then catches a communicator passed where a
 * datatype is expected, and the library needs no global handle table (which
 * under M:N threads would need a global lock). Predefined handles are the
 * addresses of objects inside libweft_mpi, so they are address constants:
 * usable in static initialisers, not in `case` labels. Null handles are
 * null pointers.
 *
 * Every MPI_ function has a PMPI_ twin for profiling tools: the PMPI_
 * symbol is the implementation and the MPI_ symbol a weak alias of it, so
 * a tool may define MPI_Send and call PMPI_Send.
 *
 * The whole MPI-3.1 C interface is here: every constant, type and
 * predefined object, and every function (from the one list in
 * weft_mpi_functions.h), so any MPI program compiles and links, in C (C99
 * or later) and C++. A function Weft does not implement yet reports
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler ("MPI_Win_create
 * is not supported by Weft yet"); `mpirun --list-unsupported` names them.
 * Groups of constants one argument takes never share a value.
 *
 * Weft-specific: the library runs MPI over Weft's user-level threads. A
 * blocking call blocks only the calling thread, compute threads keep
 * running, and MPI_THREAD_MULTIPLE is always available. MPI_Init starts
 * Weft's runtime (main becomes a user-level thread) unless the program
 * did so first.
 */
#ifndef WEFT_MPI_H
#define WEFT_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- versions */

#define MPI_VERSION    3
#define MPI_SUBVERSION 1

#define WEFT_MPI 1 /* this mpi.h is Weft's */

/* ------------------------------------------------------------ basic types */

typedef intptr_t  MPI_Aint;   /* holds any address */
typedef long long MPI_Offset; /* file offsets */
typedef long long MPI_Count;  /* large counts */
typedef int       MPI_Fint;   /* Fortran INTEGER */

/* ---------------------------------------------------------------- handles */

typedef struct wmpi_comm       *MPI_Comm;
typedef struct wmpi_group      *MPI_Group;
typedef struct wmpi_datatype   *MPI_Datatype;
typedef struct wmpi_request    *MPI_Request;
typedef struct wmpi_op         *MPI_Op;
typedef struct wmpi_errhandler *MPI_Errhandler;
typedef struct wmpi_info       *MPI_Info;
typedef struct wmpi_message    *MPI_Message;
typedef struct wmpi_win        *MPI_Win;
typedef struct wmpi_file       *MPI_File;

#define MPI_COMM_NULL       ((MPI_Comm)0)
#define MPI_GROUP_NULL      ((MPI_Group)0)
#define MPI_DATATYPE_NULL   ((MPI_Datatype)0)
#define MPI_REQUEST_NULL    ((MPI_Request)0)
#define MPI_OP_NULL         ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_INFO_NULL       ((MPI_Info)0)
#define MPI_MESSAGE_NULL    ((MPI_Message)0)
#define MPI_WIN_NULL        ((MPI_Win)0)
#define MPI_FILE_NULL       ((MPI_File)0)

/* The message MPI_Mprobe/MPI_Improbe return for MPI_PROC_NULL: a sentinel
 * that is never dereferenced (bindings test for it first). */
#define MPI_MESSAGE_NO_PROC ((MPI_Message)(uintptr_t)1)

/* ------------------------------------------------------------------ status */

/* MPI_SOURCE, MPI_TAG and MPI_ERROR are public; the rest is private. */
typedef struct wmpi_status_public {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int wmpi_cancelled;  /* private */
    MPI_Count wmpi_bytes; /* private: bytes received */
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/* The status of the Fortran 2008 bindings, as C sees it (Weft has no
 * Fortran bindings; the types exist so that C code naming them builds). */
typedef struct wmpi_f08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint wmpi_private[3];
} MPI_F08_status;

#define MPI_F_STATUS_IGNORE     ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE   ((MPI_Fint *)0)
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)0)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)0)

/* ------------------------------------------------------- special values */

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ROOT       (-4)
#define MPI_ANY_TAG    (-1)
#define MPI_UNDEFINED  (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_BOTTOM   ((void *)0)
#define MPI_IN_PLACE ((void *)1)

/* Output arrays and argument lists the caller does not supply. */
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME            64
#define MPI_MAX_INFO_KEY               36
#define MPI_MAX_INFO_VAL               256
#define MPI_MAX_PORT_NAME              1024
#define MPI_MAX_DATAREP_STRING         128

/* Bytes of bookkeeping MPI_Bsend needs per message in the attached buffer. */
#define MPI_BSEND_OVERHEAD 96

/* Thread support levels (ordered). */
#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* Results of comparisons (communicators, groups). */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* ------------------------------------------------------------ error classes */

/* Every class has its own value; MPI_Error_string names each. */
#define MPI_SUCCESS                   0
#define MPI_ERR_BUFFER                1
#define MPI_ERR_COUNT                 2
#define MPI_ERR_TYPE                  3
#define MPI_ERR_TAG                   4
#define MPI_ERR_COMM                  5
#define MPI_ERR_RANK                  6
#define MPI_ERR_REQUEST               7
#define MPI_ERR_ROOT                  8
#define MPI_ERR_GROUP                 9
#define MPI_ERR_OP                    10
#define MPI_ERR_TOPOLOGY              11
#define MPI_ERR_DIMS                  12
#define MPI_ERR_ARG                   13
#define MPI_ERR_UNKNOWN               14
#define MPI_ERR_TRUNCATE              15
#define MPI_ERR_OTHER                 16
#define MPI_ERR_INTERN                17
#define MPI_ERR_IN_STATUS             18
#define MPI_ERR_PENDING               19
#define MPI_ERR_ACCESS                20
#define MPI_ERR_AMODE                 21
#define MPI_ERR_ASSERT                22
#define MPI_ERR_BAD_FILE              23
#define MPI_ERR_BASE                  24
#define MPI_ERR_CONVERSION            25
#define MPI_ERR_DISP                  26
#define MPI_ERR_DUP_DATAREP           27
#define MPI_ERR_FILE_EXISTS           28
#define MPI_ERR_FILE_IN_USE           29
#define MPI_ERR_FILE                  30
#define MPI_ERR_INFO_KEY              31
#define MPI_ERR_INFO_NOKEY            32
#define MPI_ERR_INFO_VALUE            33
#define MPI_ERR_INFO                  34
#define MPI_ERR_IO                    35
#define MPI_ERR_KEYVAL                36
#define MPI_ERR_LOCKTYPE              37
#define MPI_ERR_NAME                  38
#define MPI_ERR_NO_MEM                39
#define MPI_ERR_NOT_SAME              40
#define MPI_ERR_NO_SPACE              41
#define MPI_ERR_NO_SUCH_FILE          42
#define MPI_ERR_PORT                  43
#define MPI_ERR_QUOTA                 44
#define MPI_ERR_READ_ONLY             45
#define MPI_ERR_RMA_ATTACH            46
#define MPI_ERR_RMA_CONFLICT          47
#define MPI_ERR_RMA_RANGE             48
#define MPI_ERR_RMA_SHARED            49
#define MPI_ERR_RMA_SYNC              50
#define MPI_ERR_RMA_FLAVOR            51
#define MPI_ERR_SERVICE               52
#define MPI_ERR_SIZE                  53
#define MPI_ERR_SPAWN                 54
#define MPI_ERR_UNSUPPORTED_DATAREP   55
#define MPI_ERR_UNSUPPORTED_OPERATION 56
#define MPI_ERR_WIN                   57
#define MPI_T_ERR_MEMORY              58
#define MPI_T_ERR_NOT_INITIALIZED     59
#define MPI_T_ERR_CANNOT_INIT         60
#define MPI_T_ERR_INVALID_INDEX       61
#define MPI_T_ERR_INVALID_ITEM        62
#define MPI_T_ERR_INVALID_HANDLE      63
#define MPI_T_ERR_OUT_OF_HANDLES      64
#define MPI_T_ERR_OUT_OF_SESSIONS     65
#define MPI_T_ERR_INVALID_SESSION     66
#define MPI_T_ERR_CVAR_SET_NOT_NOW    67
#define MPI_T_ERR_CVAR_SET_NEVER      68
#define MPI_T_ERR_PVAR_NO_STARTSTOP   69
#define MPI_T_ERR_PVAR_NO_WRITE       70
#define MPI_T_ERR_PVAR_NO_ATOMIC      71
#define MPI_T_ERR_INVALID_NAME        72
#define MPI_T_ERR_INVALID             73
#define MPI_ERR_LASTCODE              74

/* --------------------------------------------------- predefined objects */

/* Objects inside libweft_mpi; use the MPI_ names below, never these. */
extern struct wmpi_comm wmpi_comm_world, wmpi_comm_self;
extern struct wmpi_errhandler wmpi_errh_fatal, wmpi_errh_return;
extern struct wmpi_info wmpi_pub_info_env;
extern struct wmpi_group wmpi_pub_group_empty;

#define MPI_COMM_WORLD       ((MPI_Comm)&wmpi_comm_world)
#define MPI_COMM_SELF        ((MPI_Comm)&wmpi_comm_self)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)&wmpi_errh_fatal)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)&wmpi_errh_return)
#define MPI_INFO_ENV         ((MPI_Info)&wmpi_pub_info_env)
#define MPI_GROUP_EMPTY      ((MPI_Group)&wmpi_pub_group_empty)

/* Datatypes: one per C basic type, the pair types of MINLOC/MAXLOC,
 * MPI_BYTE and MPI_PACKED. */
extern struct wmpi_datatype
    wmpi_dt_char, wmpi_dt_signed_char, wmpi_dt_unsigned_char, wmpi_dt_byte,
    wmpi_dt_short, wmpi_dt_unsigned_short, wmpi_dt_int, wmpi_dt_unsigned,
    wmpi_dt_long, wmpi_dt_unsigned_long, wmpi_dt_long_long,
    wmpi_dt_unsigned_long_long, wmpi_dt_float, wmpi_dt_double,
    wmpi_dt_long_double, wmpi_dt_wchar, wmpi_dt_c_bool, wmpi_dt_int8,
    wmpi_dt_int16, wmpi_dt_int32, wmpi_dt_int64, wmpi_dt_uint8,
    wmpi_dt_uint16, wmpi_dt_uint32, wmpi_dt_uint64, wmpi_dt_aint,
    wmpi_dt_offset, wmpi_dt_count, wmpi_dt_c_float_complex,
    wmpi_dt_c_double_complex, wmpi_dt_c_long_double_complex,
    wmpi_dt_packed, wmpi_dt_float_int, wmpi_dt_double_int, wmpi_dt_long_int,
    wmpi_dt_2int, wmpi_dt_short_int, wmpi_dt_long_double_int;

#define MPI_CHAR                  ((MPI_Datatype)&wmpi_dt_char)
#define MPI_SIGNED_CHAR           ((MPI_Datatype)&wmpi_dt_signed_char)
#define MPI_UNSIGNED_CHAR         ((MPI_Datatype)&wmpi_dt_unsigned_char)
#define MPI_BYTE                  ((MPI_Datatype)&wmpi_dt_byte)
#define MPI_SHORT                 ((MPI_Datatype)&wmpi_dt_short)
#define MPI_UNSIGNED_SHORT        ((MPI_Datatype)&wmpi_dt_unsigned_short)
#define MPI_INT                   ((MPI_Datatype)&wmpi_dt_int)
#define MPI_UNSIGNED              ((MPI_Datatype)&wmpi_dt_unsigned)
#define MPI_LONG                  ((MPI_Datatype)&wmpi_dt_long)
#define MPI_UNSIGNED_LONG         ((MPI_Datatype)&wmpi_dt_unsigned_long)
#define MPI_LONG_LONG_INT         ((MPI_Datatype)&wmpi_dt_long_long)
#define MPI_LONG_LONG             MPI_LONG_LONG_INT /* synonym */
#define MPI_UNSIGNED_LONG_LONG    ((MPI_Datatype)&wmpi_dt_unsigned_long_long)
#define MPI_FLOAT                 ((MPI_Datatype)&wmpi_dt_float)
#define MPI_DOUBLE                ((MPI_Datatype)&wmpi_dt_double)
#define MPI_LONG_DOUBLE           ((MPI_Datatype)&wmpi_dt_long_double)
#define MPI_WCHAR                 ((MPI_Datatype)&wmpi_dt_wchar)
#define MPI_C_BOOL                ((MPI_Datatype)&wmpi_dt_c_bool)
#define MPI_INT8_T                ((MPI_Datatype)&wmpi_dt_int8)
#define MPI_INT16_T               ((MPI_Datatype)&wmpi_dt_int16)
#define MPI_INT32_T               ((MPI_Datatype)&wmpi_dt_int32)
#define MPI_INT64_T               ((MPI_Datatype)&wmpi_dt_int64)
#define MPI_UINT8_T               ((MPI_Datatype)&wmpi_dt_uint8)
#define MPI_UINT16_T              ((MPI_Datatype)&wmpi_dt_uint16)
#define MPI_UINT32_T              ((MPI_Datatype)&wmpi_dt_uint32)
#define MPI_UINT64_T              ((MPI_Datatype)&wmpi_dt_uint64)
#define MPI_AINT                  ((MPI_Datatype)&wmpi_dt_aint)
#define MPI_OFFSET                ((MPI_Datatype)&wmpi_dt_offset)
#define MPI_COUNT                 ((MPI_Datatype)&wmpi_dt_count)
#define MPI_C_FLOAT_COMPLEX       ((MPI_Datatype)&wmpi_dt_c_float_complex)
#define MPI_C_COMPLEX             MPI_C_FLOAT_COMPLEX /* synonym */
#define MPI_C_DOUBLE_COMPLEX      ((MPI_Datatype)&wmpi_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)&wmpi_dt_c_long_double_complex)
#define MPI_PACKED                ((MPI_Datatype)&wmpi_dt_packed)
#define MPI_FLOAT_INT             ((MPI_Datatype)&wmpi_dt_float_int)
#define MPI_DOUBLE_INT            ((MPI_Datatype)&wmpi_dt_double_int)
#define MPI_LONG_INT              ((MPI_Datatype)&wmpi_dt_long_int)
#define MPI_2INT                  ((MPI_Datatype)&wmpi_dt_2int)
#define MPI_SHORT_INT             ((MPI_Datatype)&wmpi_dt_short_int)
#define MPI_LONG_DOUBLE_INT       ((MPI_Datatype)&wmpi_dt_long_double_int)

/* Fortran datatypes (for C code exchanging data with Fortran, and for
 * libraries that name them): INTEGER and LOGICAL are C ints, REAL a float,
 * DOUBLE PRECISION a double. The optional sized types a platform lacks
 * (MPI-3.1 §3.2.2) are MPI_DATATYPE_NULL: INTEGER16, REAL2, COMPLEX4, and
 * REAL16/COMPLEX32 unless long double is IEEE quad precision. */
extern struct wmpi_datatype
    wmpi_dt_integer, wmpi_dt_real, wmpi_dt_double_precision, wmpi_dt_complex,
    wmpi_dt_double_complex, wmpi_dt_logical, wmpi_dt_character,
    wmpi_dt_2integer, wmpi_dt_2real, wmpi_dt_2double_precision,
    wmpi_dt_integer1, wmpi_dt_integer2, wmpi_dt_integer4, wmpi_dt_integer8,
    wmpi_dt_real4, wmpi_dt_real8, wmpi_dt_real16, wmpi_dt_complex8,
    wmpi_dt_complex16, wmpi_dt_complex32;

#define MPI_INTEGER               ((MPI_Datatype)&wmpi_dt_integer)
#define MPI_REAL                  ((MPI_Datatype)&wmpi_dt_real)
#define MPI_DOUBLE_PRECISION      ((MPI_Datatype)&wmpi_dt_double_precision)
#define MPI_COMPLEX               ((MPI_Datatype)&wmpi_dt_complex)
#define MPI_DOUBLE_COMPLEX        ((MPI_Datatype)&wmpi_dt_double_complex)
#define MPI_LOGICAL               ((MPI_Datatype)&wmpi_dt_logical)
#define MPI_CHARACTER             ((MPI_Datatype)&wmpi_dt_character)
#define MPI_2INTEGER              ((MPI_Datatype)&wmpi_dt_2integer)
#define MPI_2REAL                 ((MPI_Datatype)&wmpi_dt_2real)
#define MPI_2DOUBLE_PRECISION     ((MPI_Datatype)&wmpi_dt_2double_precision)
#define MPI_INTEGER1              ((MPI_Datatype)&wmpi_dt_integer1)
#define MPI_INTEGER2              ((MPI_Datatype)&wmpi_dt_integer2)
#define MPI_INTEGER4              ((MPI_Datatype)&wmpi_dt_integer4)
#define MPI_INTEGER8              ((MPI_Datatype)&wmpi_dt_integer8)
#define MPI_INTEGER16             MPI_DATATYPE_NULL
#define MPI_REAL2                 MPI_DATATYPE_NULL
#define MPI_REAL4                 ((MPI_Datatype)&wmpi_dt_real4)
#define MPI_REAL8                 ((MPI_Datatype)&wmpi_dt_real8)
#define MPI_COMPLEX4              MPI_DATATYPE_NULL
#define MPI_COMPLEX8              ((MPI_Datatype)&wmpi_dt_complex8)
#define MPI_COMPLEX16             ((MPI_Datatype)&wmpi_dt_complex16)
#if defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
#define MPI_REAL16                ((MPI_Datatype)&wmpi_dt_real16)
#define MPI_COMPLEX32             ((MPI_Datatype)&wmpi_dt_complex32)
#else
#define MPI_REAL16                MPI_DATATYPE_NULL
#define MPI_COMPLEX32             MPI_DATATYPE_NULL
#endif

/* C++ datatypes, usable from C too: bool and std::complex<T> have the
 * layout of C's _Bool and T _Complex. */
extern struct wmpi_datatype
    wmpi_dt_cxx_bool, wmpi_dt_cxx_float_complex, wmpi_dt_cxx_double_complex,
    wmpi_dt_cxx_long_double_complex;

#define MPI_CXX_BOOL                ((MPI_Datatype)&wmpi_dt_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX       ((MPI_Datatype)&wmpi_dt_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX      ((MPI_Datatype)&wmpi_dt_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)&wmpi_dt_cxx_long_double_complex)

/* Reduction operations (used by the collectives). */
extern struct wmpi_op
    wmpi_op_max, wmpi_op_min, wmpi_op_sum, wmpi_op_prod, wmpi_op_land,
    wmpi_op_band, wmpi_op_lor, wmpi_op_bor, wmpi_op_lxor, wmpi_op_bxor,
    wmpi_op_maxloc, wmpi_op_minloc, wmpi_op_replace, wmpi_op_no_op;

#define MPI_MAX     ((MPI_Op)&wmpi_op_max)
#define MPI_MIN     ((MPI_Op)&wmpi_op_min)
#define MPI_SUM     ((MPI_Op)&wmpi_op_sum)
#define MPI_PROD    ((MPI_Op)&wmpi_op_prod)
#define MPI_LAND    ((MPI_Op)&wmpi_op_land)
#define MPI_BAND    ((MPI_Op)&wmpi_op_band)
#define MPI_LOR     ((MPI_Op)&wmpi_op_lor)
#define MPI_BOR     ((MPI_Op)&wmpi_op_bor)
#define MPI_LXOR    ((MPI_Op)&wmpi_op_lxor)
#define MPI_BXOR    ((MPI_Op)&wmpi_op_bxor)
#define MPI_MAXLOC  ((MPI_Op)&wmpi_op_maxloc)
#define MPI_MINLOC  ((MPI_Op)&wmpi_op_minloc)
#define MPI_REPLACE ((MPI_Op)&wmpi_op_replace)
#define MPI_NO_OP   ((MPI_Op)&wmpi_op_no_op)

/* -------------------------------------------------- user function types */

/* Reductions (MPI_Op_create). */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len,
                               MPI_Datatype *datatype);

/* Error handlers. The _fn names are the deprecated MPI-2 spellings;
 * MPI_Handler_function is MPI-1's (removed in MPI-3.0, kept for old code). */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);
typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errcode, ...);
typedef void MPI_File_errhandler_function(MPI_File *file, int *errcode, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_Win_errhandler_function  MPI_Win_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef void MPI_Handler_function(MPI_Comm *comm, int *errcode, ...);

/* Attribute caching: copy callbacks (run on dup) and delete callbacks (run
 * on free and delete). MPI_Copy_function/MPI_Delete_function are the
 * deprecated MPI-1 forms for communicators. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval,
                                       void *extra_state, void *attribute_val_in,
                                       void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval,
                                         void *attribute_val, void *extra_state);
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out,
                              int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val,
                                void *extra_state);

/* Generalized requests (MPI_Grequest_start). */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* User data representations (MPI_Register_datarep). */
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *extent,
                                        void *extra_state);
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype,
                                            int count, void *filebuf,
                                            MPI_Offset position,
                                            void *extra_state);

/* --------------------------------------------------- predefined callbacks */

/* Functions inside libweft_mpi; use the MPI_ names below. A NULL_COPY
 * function sets *flag = 0 (the attribute is not copied), a DUP function
 * copies the attribute value, a NULL_DELETE function does nothing. */
MPI_Comm_copy_attr_function   wmpi_pub_comm_null_copy_fn, wmpi_pub_comm_dup_fn;
MPI_Comm_delete_attr_function wmpi_pub_comm_null_delete_fn;
MPI_Type_copy_attr_function   wmpi_pub_type_null_copy_fn, wmpi_pub_type_dup_fn;
MPI_Type_delete_attr_function wmpi_pub_type_null_delete_fn;
MPI_Win_copy_attr_function    wmpi_pub_win_null_copy_fn, wmpi_pub_win_dup_fn;
MPI_Win_delete_attr_function  wmpi_pub_win_null_delete_fn;
MPI_Copy_function             wmpi_pub_null_copy_fn, wmpi_pub_dup_fn;
MPI_Delete_function           wmpi_pub_null_delete_fn;

#define MPI_COMM_NULL_COPY_FN   wmpi_pub_comm_null_copy_fn
#define MPI_COMM_DUP_FN         wmpi_pub_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN wmpi_pub_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN   wmpi_pub_type_null_copy_fn
#define MPI_TYPE_DUP_FN         wmpi_pub_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN wmpi_pub_type_null_delete_fn
#define MPI_WIN_NULL_COPY_FN    wmpi_pub_win_null_copy_fn
#define MPI_WIN_DUP_FN          wmpi_pub_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN  wmpi_pub_win_null_delete_fn
#define MPI_NULL_COPY_FN        wmpi_pub_null_copy_fn
#define MPI_DUP_FN              wmpi_pub_dup_fn
#define MPI_NULL_DELETE_FN      wmpi_pub_null_delete_fn

/* MPI_Register_datarep: no conversion (the data is in native form). */
#define MPI_CONVERSION_FN_NULL  ((MPI_Datarep_conversion_function *)0)

/* ------------------------------------------------ attribute keyvals */

/* Predefined keyvals (communicator attributes on MPI_COMM_WORLD, window
 * attributes on every window); user keyvals start at 64. */
#define MPI_TAG_UB            1
#define MPI_HOST              2
#define MPI_IO                3
#define MPI_WTIME_IS_GLOBAL   4
#define MPI_APPNUM            5
#define MPI_UNIVERSE_SIZE     6
#define MPI_LASTUSEDCODE      7
#define MPI_WIN_BASE          8
#define MPI_WIN_SIZE          9
#define MPI_WIN_DISP_UNIT     10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL         12

/* ------------------------------------------------------------- topologies */

/* Each group of constants below has its own range of values, so one
 * passed where another group's is expected never looks valid. */

/* MPI_Topo_test results (MPI_UNDEFINED: no topology). */
#define MPI_GRAPH      101
#define MPI_CART       102
#define MPI_DIST_GRAPH 103

/* Sentinel weight arrays of the distributed graph constructors: never
 * dereferenced, distinct from any real array and from NULL. */
#define MPI_UNWEIGHTED    ((int *)(uintptr_t)2)
#define MPI_WEIGHTS_EMPTY ((int *)(uintptr_t)3)

/* MPI_Comm_split_type: ranks that can share memory (one host). */
#define MPI_COMM_TYPE_SHARED 201

/* -------------------------------------------------- datatype constructors */

/* What MPI_Type_get_envelope reports a type was made by. */
#define MPI_COMBINER_NAMED          301
#define MPI_COMBINER_DUP            302
#define MPI_COMBINER_CONTIGUOUS     303
#define MPI_COMBINER_VECTOR         304
#define MPI_COMBINER_HVECTOR        305
#define MPI_COMBINER_INDEXED        306
#define MPI_COMBINER_HINDEXED       307
#define MPI_COMBINER_INDEXED_BLOCK  308
#define MPI_COMBINER_HINDEXED_BLOCK 309
#define MPI_COMBINER_STRUCT         310
#define MPI_COMBINER_SUBARRAY       311
#define MPI_COMBINER_DARRAY         312
#define MPI_COMBINER_F90_REAL       313
#define MPI_COMBINER_F90_COMPLEX    314
#define MPI_COMBINER_F90_INTEGER    315
#define MPI_COMBINER_RESIZED        316

/* Array storage order (subarray, darray). */
#define MPI_ORDER_C       401
#define MPI_ORDER_FORTRAN 402

/* MPI_Type_create_darray distributions; DFLT_DARG is the default
 * distribution argument (a negative value, as real ones are >= 1). */
#define MPI_DISTRIBUTE_BLOCK     501
#define MPI_DISTRIBUTE_CYCLIC    502
#define MPI_DISTRIBUTE_NONE      503
#define MPI_DISTRIBUTE_DFLT_DARG (-501)

/* MPI_Type_match_size classes. */
#define MPI_TYPECLASS_INTEGER 601
#define MPI_TYPECLASS_REAL    602
#define MPI_TYPECLASS_COMPLEX 603

/* --------------------------------------------------- one-sided (RMA) */

/* MPI_Win_lock lock types. */
#define MPI_LOCK_EXCLUSIVE 701
#define MPI_LOCK_SHARED    702

/* MPI_WIN_CREATE_FLAVOR attribute values. */
#define MPI_WIN_FLAVOR_CREATE   801
#define MPI_WIN_FLAVOR_ALLOCATE 802
#define MPI_WIN_FLAVOR_DYNAMIC  803
#define MPI_WIN_FLAVOR_SHARED   804

/* MPI_WIN_MODEL attribute values. */
#define MPI_WIN_SEPARATE 901
#define MPI_WIN_UNIFIED  902

/* Synchronisation assertions (bit flags, disjoint from the file modes). */
#define MPI_MODE_NOCHECK   0x0400
#define MPI_MODE_NOSTORE   0x0800
#define MPI_MODE_NOPUT     0x1000
#define MPI_MODE_NOPRECEDE 0x2000
#define MPI_MODE_NOSUCCEED 0x4000

/* ------------------------------------------------------------- file I/O */

/* MPI_File_open access modes (bit flags). */
#define MPI_MODE_RDONLY          0x0001
#define MPI_MODE_RDWR            0x0002
#define MPI_MODE_WRONLY          0x0004
#define MPI_MODE_CREATE          0x0008
#define MPI_MODE_EXCL            0x0010
#define MPI_MODE_DELETE_ON_CLOSE 0x0020
#define MPI_MODE_UNIQUE_OPEN     0x0040
#define MPI_MODE_SEQUENTIAL      0x0080
#define MPI_MODE_APPEND          0x0100

/* MPI_File_seek whence values. */
#define MPI_SEEK_SET 1001
#define MPI_SEEK_CUR 1002
#define MPI_SEEK_END 1003

/* MPI_File_set_view displacement for sequential-access files. */
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1001)

/* ------------------------------------------------------ tools interface */

typedef struct wmpi_t_enum          *MPI_T_enum;
typedef struct wmpi_t_cvar_handle   *MPI_T_cvar_handle;
typedef struct wmpi_t_pvar_handle   *MPI_T_pvar_handle;
typedef struct wmpi_t_pvar_session  *MPI_T_pvar_session;

#define MPI_T_ENUM_NULL          ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL   ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL   ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL  ((MPI_T_pvar_session)0)
/* MPI_T_pvar_start/stop/reset on every handle of a session. */
#define MPI_T_PVAR_ALL_HANDLES   ((MPI_T_pvar_handle)(uintptr_t)1)

enum {
    MPI_T_VERBOSITY_USER_BASIC = 1101,
    MPI_T_VERBOSITY_USER_DETAIL,
    MPI_T_VERBOSITY_USER_ALL,
    MPI_T_VERBOSITY_TUNER_BASIC,
    MPI_T_VERBOSITY_TUNER_DETAIL,
    MPI_T_VERBOSITY_TUNER_ALL,
    MPI_T_VERBOSITY_MPIDEV_BASIC,
    MPI_T_VERBOSITY_MPIDEV_DETAIL,
    MPI_T_VERBOSITY_MPIDEV_ALL
};

enum {
    MPI_T_BIND_NO_OBJECT = 1201,
    MPI_T_BIND_MPI_COMM,
    MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER,
    MPI_T_BIND_MPI_FILE,
    MPI_T_BIND_MPI_GROUP,
    MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST,
    MPI_T_BIND_MPI_WIN,
    MPI_T_BIND_MPI_MESSAGE,
    MPI_T_BIND_MPI_INFO
};

enum {
    MPI_T_SCOPE_CONSTANT = 1301,
    MPI_T_SCOPE_READONLY,
    MPI_T_SCOPE_LOCAL,
    MPI_T_SCOPE_GROUP,
    MPI_T_SCOPE_GROUP_EQ,
    MPI_T_SCOPE_ALL,
    MPI_T_SCOPE_ALL_EQ
};

enum {
    MPI_T_PVAR_CLASS_STATE = 1401,
    MPI_T_PVAR_CLASS_LEVEL,
    MPI_T_PVAR_CLASS_SIZE,
    MPI_T_PVAR_CLASS_PERCENTAGE,
    MPI_T_PVAR_CLASS_HIGHWATERMARK,
    MPI_T_PVAR_CLASS_LOWWATERMARK,
    MPI_T_PVAR_CLASS_COUNTER,
    MPI_T_PVAR_CLASS_AGGREGATE,
    MPI_T_PVAR_CLASS_TIMER,
    MPI_T_PVAR_CLASS_GENERIC
};

/* ------------------------------------------------------------ functions */

/* Every MPI-3.1 C function, from the one list in weft_mpi_functions.h:
 * each expands to MPI_<name> and its profiling twin PMPI_<name>. Those
 * Weft does not implement yet exist too; they report
 * MPI_ERR_UNSUPPORTED_OPERATION through the error handler (`mpirun
 * --list-unsupported` names them). */
#define WMPI_FN(ret, name, params) ret MPI_##name params; ret PMPI_##name params;
#include "weft_mpi_functions.h"
#undef WMPI_FN

#ifdef __cplusplus
}
#endif
#endif /* WEFT_MPI_H */
