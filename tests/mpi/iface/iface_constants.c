/* MPI-3.1's constants, predefined datatypes and handle conversions, as
 * any MPI must provide them (run under Weft and Open MPI alike):
 * - each group of constants that one argument takes has distinct values
 *   (error classes, comparison results, topologies, combiners, orders,
 *   distributions, type classes, lock types, window flavors and models,
 *   seek modes, tool-interface enums, attribute keyvals); mode flags are
 *   single, distinct bits, so they can be or'ed;
 * - the Fortran and C++ predefined datatypes have their language's sizes
 *   (this ABI: INTEGER and LOGICAL are C ints); optional ones may be
 *   MPI_DATATYPE_NULL;
 * - MINLOC/MAXLOC work on the Fortran pair types (MPI_2REAL...);
 * - MPI_<Kind>_c2f / _f2c round-trip every handle kind, null handles
 *   included, and MPI_Status_c2f / _f2c round-trip the public fields;
 * - a process mpirun started has no parent (MPI_Comm_get_parent).
 */
#include <stdbool.h>

#include "mpi_test_util.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void distinct(const char *what, const int *v, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            CHECK(v[i] != v[j], "%s: entries %d and %d are both %d", what, i, j, v[i]);
}

static void single_bits(const char *what, const int *v, int n)
{
    int seen = 0;

    for (int i = 0; i < n; i++) {
        CHECK(v[i] > 0 && (v[i] & (v[i] - 1)) == 0, "%s: entry %d (%d) is not one bit",
              what, i, v[i]);
        CHECK(!(seen & v[i]), "%s: entry %d reuses a bit", what, i);
        seen |= v[i];
    }
}

static void check_constants(void)
{
    int classes[MPI_ERR_LASTCODE + 1];
    const int cmp[] = { MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL };
    const int topo[] = { MPI_GRAPH, MPI_CART, MPI_DIST_GRAPH, MPI_UNDEFINED };
    const int comb[] = {
        MPI_COMBINER_NAMED, MPI_COMBINER_DUP, MPI_COMBINER_CONTIGUOUS,
        MPI_COMBINER_VECTOR, MPI_COMBINER_HVECTOR, MPI_COMBINER_INDEXED,
        MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK,
        MPI_COMBINER_HINDEXED_BLOCK, MPI_COMBINER_STRUCT, MPI_COMBINER_SUBARRAY,
        MPI_COMBINER_DARRAY, MPI_COMBINER_F90_REAL, MPI_COMBINER_F90_COMPLEX,
        MPI_COMBINER_F90_INTEGER, MPI_COMBINER_RESIZED,
    };
    const int order[] = { MPI_ORDER_C, MPI_ORDER_FORTRAN };
    const int distrib[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                            MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_DFLT_DARG };
    const int tclass[] = { MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL,
                           MPI_TYPECLASS_COMPLEX };
    const int lock[] = { MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED };
    const int flavor[] = { MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                           MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED };
    const int model[] = { MPI_WIN_SEPARATE, MPI_WIN_UNIFIED };
    const int seek[] = { MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END };
    const int keyvals[] = {
        MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM,
        MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_WIN_BASE, MPI_WIN_SIZE,
        MPI_WIN_DISP_UNIT, MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL,
        MPI_KEYVAL_INVALID,
    };
    const int ranks[] = { MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT };
    const int threads[] = { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED,
                            MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
    const int file_modes[] = {
        MPI_MODE_RDONLY, MPI_MODE_RDWR, MPI_MODE_WRONLY, MPI_MODE_CREATE,
        MPI_MODE_EXCL, MPI_MODE_DELETE_ON_CLOSE, MPI_MODE_UNIQUE_OPEN,
        MPI_MODE_SEQUENTIAL, MPI_MODE_APPEND,
    };
    const int rma_modes[] = { MPI_MODE_NOCHECK, MPI_MODE_NOSTORE, MPI_MODE_NOPUT,
                              MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED };
    const int verbosity[] = {
        MPI_T_VERBOSITY_USER_BASIC, MPI_T_VERBOSITY_USER_DETAIL,
        MPI_T_VERBOSITY_USER_ALL, MPI_T_VERBOSITY_TUNER_BASIC,
        MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
        MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL,
        MPI_T_VERBOSITY_MPIDEV_ALL,
    };
    const int bind[] = {
        MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
        MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP,
        MPI_T_BIND_MPI_OP, MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN,
        MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO,
    };
    const int scope[] = { MPI_T_SCOPE_CONSTANT, MPI_T_SCOPE_READONLY,
                          MPI_T_SCOPE_LOCAL, MPI_T_SCOPE_GROUP,
                          MPI_T_SCOPE_GROUP_EQ, MPI_T_SCOPE_ALL,
                          MPI_T_SCOPE_ALL_EQ };
    const int pvar_class[] = {
        MPI_T_PVAR_CLASS_STATE, MPI_T_PVAR_CLASS_LEVEL, MPI_T_PVAR_CLASS_SIZE,
        MPI_T_PVAR_CLASS_PERCENTAGE, MPI_T_PVAR_CLASS_HIGHWATERMARK,
        MPI_T_PVAR_CLASS_LOWWATERMARK, MPI_T_PVAR_CLASS_COUNTER,
        MPI_T_PVAR_CLASS_AGGREGATE, MPI_T_PVAR_CLASS_TIMER,
        MPI_T_PVAR_CLASS_GENERIC,
    };

    for (int i = 0; i <= MPI_ERR_LASTCODE; i++)
        classes[i] = i; /* the classes 0..LASTCODE exist and name themselves */
    CHECK(MPI_SUCCESS == 0, "MPI_SUCCESS");
    CHECK(MPI_ERR_UNSUPPORTED_OPERATION > 0 &&
          MPI_ERR_UNSUPPORTED_OPERATION <= MPI_ERR_LASTCODE, "class range");
    distinct("error classes", classes, N(classes));
    distinct("comparisons", cmp, N(cmp));
    distinct("topologies", topo, N(topo));
    distinct("combiners", comb, N(comb));
    distinct("orders", order, N(order));
    distinct("distributions", distrib, N(distrib));
    distinct("type classes", tclass, N(tclass));
    distinct("lock types", lock, N(lock));
    distinct("window flavors", flavor, N(flavor));
    distinct("window models", model, N(model));
    distinct("seek modes", seek, N(seek));
    distinct("keyvals", keyvals, N(keyvals));
    distinct("special ranks", ranks, N(ranks));
    distinct("verbosity", verbosity, N(verbosity));
    distinct("binding", bind, N(bind));
    distinct("scope", scope, N(scope));
    distinct("pvar class", pvar_class, N(pvar_class));
    single_bits("file modes", file_modes, N(file_modes));
    single_bits("RMA assertions", rma_modes, N(rma_modes));
    for (int i = 1; i < N(threads); i++)
        CHECK(threads[i - 1] < threads[i], "thread levels are ordered");
    CHECK(MPI_UNWEIGHTED != MPI_WEIGHTS_EMPTY && MPI_UNWEIGHTED != NULL &&
          MPI_WEIGHTS_EMPTY != NULL, "weight sentinels");
    CHECK(MPI_MAX_DATAREP_STRING >= 64, "MPI_MAX_DATAREP_STRING");
    CHECK(MPI_MESSAGE_NO_PROC != MPI_MESSAGE_NULL, "MPI_MESSAGE_NO_PROC");
}

/* MPI_Type_size of t is want (types a platform may lack: NULL allowed). */
static void size_is(MPI_Datatype t, int want, bool optional, const char *name)
{
    int size = -1;

    if (optional && t == MPI_DATATYPE_NULL)
        return;
    CHECK(t != MPI_DATATYPE_NULL, "%s is MPI_DATATYPE_NULL", name);
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size == want, "%s: size %d, expected %d", name, size, want);
}
#define SIZE_IS(t, want) size_is(t, (int)(want), false, #t)
#define OPTIONAL_SIZE_IS(t, want) size_is(t, (int)(want), true, #t)

static void check_datatypes(void)
{
    SIZE_IS(MPI_INTEGER, sizeof(int));
    SIZE_IS(MPI_REAL, sizeof(float));
    SIZE_IS(MPI_DOUBLE_PRECISION, sizeof(double));
    SIZE_IS(MPI_COMPLEX, 2 * sizeof(float));
    SIZE_IS(MPI_DOUBLE_COMPLEX, 2 * sizeof(double));
    SIZE_IS(MPI_LOGICAL, sizeof(int));
    SIZE_IS(MPI_CHARACTER, 1);
    SIZE_IS(MPI_2INTEGER, 2 * sizeof(int));
    SIZE_IS(MPI_2REAL, 2 * sizeof(float));
    SIZE_IS(MPI_2DOUBLE_PRECISION, 2 * sizeof(double));
    SIZE_IS(MPI_INTEGER1, 1);
    SIZE_IS(MPI_INTEGER2, 2);
    SIZE_IS(MPI_INTEGER4, 4);
    SIZE_IS(MPI_INTEGER8, 8);
    SIZE_IS(MPI_REAL4, 4);
    SIZE_IS(MPI_REAL8, 8);
    SIZE_IS(MPI_COMPLEX8, 8);
    SIZE_IS(MPI_COMPLEX16, 16);
    /* Optional types an MPI may not define at all (Open MPI 4.1 lacks
     * these three); Weft defines them as MPI_DATATYPE_NULL. */
#ifdef MPI_INTEGER16
    OPTIONAL_SIZE_IS(MPI_INTEGER16, 16);
#endif
#ifdef MPI_REAL2
    OPTIONAL_SIZE_IS(MPI_REAL2, 2);
#endif
#ifdef MPI_COMPLEX4
    OPTIONAL_SIZE_IS(MPI_COMPLEX4, 4);
#endif
    OPTIONAL_SIZE_IS(MPI_REAL16, 16);
    OPTIONAL_SIZE_IS(MPI_COMPLEX32, 32);
    SIZE_IS(MPI_CXX_BOOL, sizeof(bool));
    SIZE_IS(MPI_CXX_FLOAT_COMPLEX, 2 * sizeof(float));
    SIZE_IS(MPI_CXX_DOUBLE_COMPLEX, 2 * sizeof(double));
    SIZE_IS(MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double));
}

/* MINLOC/MAXLOC on the Fortran pair types: (value, index) with the index
 * in the value's type for 2REAL / 2DOUBLE_PRECISION; ties keep the lower
 * index. */
static void check_fortran_pairs(void)
{
    float r_in[4] = { 3, 1, 1, 2 }, r_io[4] = { 2, 5, 1, 0 };
    double d_in[4] = { 3, 1, 7, 2 }, d_io[4] = { 2, 5, 7, 4 };
    int i_in[4] = { 3, 1, -1, 2 }, i_io[4] = { 2, 5, -1, 0 };

    MPI_OK(MPI_Reduce_local(r_in, r_io, 2, MPI_2REAL, MPI_MINLOC));
    CHECK(r_io[0] == 2 && r_io[1] == 5 && r_io[2] == 1 && r_io[3] == 0,
          "2REAL MINLOC: %g %g %g %g", r_io[0], r_io[1], r_io[2], r_io[3]);
    MPI_OK(MPI_Reduce_local(d_in, d_io, 2, MPI_2DOUBLE_PRECISION, MPI_MAXLOC));
    CHECK(d_io[0] == 3 && d_io[1] == 1 && d_io[2] == 7 && d_io[3] == 2,
          "2DOUBLE_PRECISION MAXLOC: %g %g %g %g", d_io[0], d_io[1], d_io[2], d_io[3]);
    MPI_OK(MPI_Reduce_local(i_in, i_io, 2, MPI_2INTEGER, MPI_MINLOC));
    CHECK(i_io[0] == 2 && i_io[1] == 5 && i_io[2] == -1 && i_io[3] == 0,
          "2INTEGER MINLOC: %d %d %d %d", i_io[0], i_io[1], i_io[2], i_io[3]);
}

/* A process started by the launcher has no parent. */
static void check_no_parent(void)
{
    MPI_Comm parent = MPI_COMM_WORLD;

    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent is not MPI_COMM_NULL");
}

static void check_conversions(void)
{
    MPI_Status st, back;
    MPI_Fint f[64]; /* more than any MPI's Fortran status */

    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "comm");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)) == MPI_COMM_SELF, "comm");
    CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) != MPI_Comm_c2f(MPI_COMM_SELF), "comm");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL, "comm null");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INT)) == MPI_INT, "type");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INTEGER)) == MPI_INTEGER, "type");
    CHECK(MPI_Type_c2f(MPI_INT) != MPI_Type_c2f(MPI_DOUBLE), "type");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DATATYPE_NULL)) == MPI_DATATYPE_NULL, "type null");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM, "op");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_OP_NULL)) == MPI_OP_NULL, "op null");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)) ==
          MPI_ERRORS_RETURN, "errhandler");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL,
          "request null");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "info null");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_NULL)) == MPI_GROUP_NULL, "group null");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win null");
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "file null");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NULL)) == MPI_MESSAGE_NULL,
          "message null");

    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 77;
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    MPI_OK(MPI_Status_c2f(&st, f));
    memset(&back, 0xff, sizeof back);
    MPI_OK(MPI_Status_f2c(f, &back));
    CHECK(back.MPI_SOURCE == 3 && back.MPI_TAG == 77 &&
          back.MPI_ERROR == MPI_ERR_TRUNCATE, "status round trip");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_constants();
    check_datatypes();
    check_fortran_pairs();
    check_conversions();
    check_no_parent();
    MPI_Finalize();
    return 0;
}
