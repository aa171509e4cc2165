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

#define MPI_COMM_NULL       ((MPI_Comm)0)
#define MPI_GROUP_NULL      ((MPI_Group)0)
#define MPI_DATATYPE_NULL   ((MPI_Datatype)0)
#define MPI_REQUEST_NULL    ((MPI_Request)0)
#define MPI_OP_NULL         ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_INFO_NULL       ((MPI_Info)0)
#define MPI_MESSAGE_NULL    ((MPI_Message)0)

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

/* ------------------------------------------------------- special values */

#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL  (-2)
#define MPI_ROOT       (-4)
#define MPI_ANY_TAG    (-1)
#define MPI_UNDEFINED  (-32766)
#define MPI_KEYVAL_INVALID (-1)

#define MPI_BOTTOM   ((void *)0)
#define MPI_IN_PLACE ((void *)1)

#define MPI_MAX_PROCESSOR_NAME         256
#define MPI_MAX_ERROR_STRING           256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME            64
#define MPI_MAX_INFO_KEY               36
#define MPI_MAX_INFO_VAL               256
#define MPI_MAX_PORT_NAME              1024

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

#define MPI_COMM_WORLD       ((MPI_Comm)&wmpi_comm_world)
#define MPI_COMM_SELF        ((MPI_Comm)&wmpi_comm_self)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)&wmpi_errh_fatal)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)&wmpi_errh_return)

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

typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errcode, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn; /* MPI-2 name */

/* ------------------------------------------------------------ functions */

/* Declares MPI_<name> and its profiling twin PMPI_<name>. */
#define WMPI_API(ret, name, params) ret MPI_##name params; ret PMPI_##name params;

/* Environment */
WMPI_API(int, Init, (int *argc, char ***argv))
WMPI_API(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
WMPI_API(int, Finalize, (void))
WMPI_API(int, Initialized, (int *flag))
WMPI_API(int, Finalized, (int *flag))
WMPI_API(int, Query_thread, (int *provided))
WMPI_API(int, Is_thread_main, (int *flag))
WMPI_API(int, Abort, (MPI_Comm comm, int errorcode))
WMPI_API(int, Get_version, (int *version, int *subversion))
WMPI_API(int, Get_library_version, (char *version, int *resultlen))
WMPI_API(int, Get_processor_name, (char *name, int *resultlen))
WMPI_API(double, Wtime, (void))
WMPI_API(double, Wtick, (void))
WMPI_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
WMPI_API(int, Free_mem, (void *base))
WMPI_API(int, Pcontrol, (const int level, ...))

/* Errors */
WMPI_API(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
WMPI_API(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
WMPI_API(int, Comm_create_errhandler,
         (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler))
WMPI_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
WMPI_API(int, Errhandler_free, (MPI_Errhandler *errhandler))
WMPI_API(int, Error_string, (int errorcode, char *string, int *resultlen))
WMPI_API(int, Error_class, (int errorcode, int *errorclass))

/* Communicators */
WMPI_API(int, Comm_rank, (MPI_Comm comm, int *rank))
WMPI_API(int, Comm_size, (MPI_Comm comm, int *size))

/* Datatypes */
WMPI_API(int, Type_size, (MPI_Datatype datatype, int *size))
WMPI_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))

/* Point-to-point: blocking */
WMPI_API(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest,
                     int tag, MPI_Comm comm))
WMPI_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm))
WMPI_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm))
WMPI_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm))
WMPI_API(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source,
                     int tag, MPI_Comm comm, MPI_Status *status))
WMPI_API(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         int dest, int sendtag, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status))
WMPI_API(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype,
                                 int dest, int sendtag, int source, int recvtag,
                                 MPI_Comm comm, MPI_Status *status))
WMPI_API(int, Buffer_attach, (void *buffer, int size))
WMPI_API(int, Buffer_detach, (void *buffer_addr, int *size))

/* Point-to-point: nonblocking */
WMPI_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                      int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                       int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                       int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest,
                       int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source,
                      int tag, MPI_Comm comm, MPI_Request *request))

/* Point-to-point: persistent */
WMPI_API(int, Send_init, (const void *buf, int count, MPI_Datatype datatype,
                          int dest, int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype,
                           int dest, int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype,
                           int dest, int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype,
                           int dest, int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source,
                          int tag, MPI_Comm comm, MPI_Request *request))
WMPI_API(int, Start, (MPI_Request *request))
WMPI_API(int, Startall, (int count, MPI_Request array_of_requests[]))

/* Probe */
WMPI_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
WMPI_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag,
                       MPI_Status *status))

/* Completion */
WMPI_API(int, Wait, (MPI_Request *request, MPI_Status *status))
WMPI_API(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
WMPI_API(int, Waitall, (int count, MPI_Request array_of_requests[],
                        MPI_Status array_of_statuses[]))
WMPI_API(int, Testall, (int count, MPI_Request array_of_requests[], int *flag,
                        MPI_Status array_of_statuses[]))
WMPI_API(int, Waitany, (int count, MPI_Request array_of_requests[], int *index,
                        MPI_Status *status))
WMPI_API(int, Testany, (int count, MPI_Request array_of_requests[], int *index,
                        int *flag, MPI_Status *status))
WMPI_API(int, Waitsome, (int incount, MPI_Request array_of_requests[],
                         int *outcount, int array_of_indices[],
                         MPI_Status array_of_statuses[]))
WMPI_API(int, Testsome, (int incount, MPI_Request array_of_requests[],
                         int *outcount, int array_of_indices[],
                         MPI_Status array_of_statuses[]))
WMPI_API(int, Request_free, (MPI_Request *request))
WMPI_API(int, Request_get_status, (MPI_Request request, int *flag,
                                   MPI_Status *status))
WMPI_API(int, Cancel, (MPI_Request *request))
WMPI_API(int, Test_cancelled, (const MPI_Status *status, int *flag))
WMPI_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype,
                          int *count))
WMPI_API(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype,
                             int *count))
WMPI_API(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype,
                               MPI_Count *count))

/* Collectives */
WMPI_API(int, Barrier, (MPI_Comm comm))

#undef WMPI_API

#ifdef __cplusplus
}
#endif
#endif /* WEFT_MPI_H */
