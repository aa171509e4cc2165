/* The whole MPI-3.1 C interface links, in C and in C++: this program takes
 * the address of every MPI_ and PMPI_ function of the one list
 * (mpi_shim/include/weft_mpi_functions.h) and of every predefined object
 * and callback mpi.h names, so a missing symbol fails the link. It is built with Weft's wrappers as C11 (mpicc), C99 and C++11
 * (mpicxx), warnings as errors, and run with mpirun -n 1.
 *
 * At run time it checks that functions Weft does not implement (and is
 * not about to: file I/O, process spawning, data representations) return
 * MPI_ERR_UNSUPPORTED_OPERATION under MPI_ERRORS_RETURN and leave MPI
 * working. With the argument "fatal" it calls MPI_Comm_spawn under the
 * default MPI_ERRORS_ARE_FATAL instead, which must end the job with
 * "MPI_Comm_spawn is not supported by Weft yet"
 * (tests/mpi/iface/expect_fatal.cmake checks that).
 *
 * Weft only (not built with Open MPI, which implements these functions).
 * Written in the common subset of C and C++, so without
 * mpi_test_util.h (which is C only).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, what)                                                  \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: %s\n", __FILE__,     \
                    __LINE__, #cond, what);                                \
            fflush(stderr);                                                \
            MPI_Abort(MPI_COMM_WORLD, 3);                                  \
        }                                                                  \
    } while (0)

typedef void (*any_fn)(void);

struct listed_fn {
    const char *name;
    any_fn mpi, pmpi;
};

/* Every listed function, by address: the link needs every symbol. */
#define WMPI_FN(ret, name, params)                                         \
    { "MPI_" #name, (any_fn)MPI_##name, (any_fn)PMPI_##name },
static const struct listed_fn all_functions[] = {
#include <weft_mpi_functions.h>
};
#undef WMPI_FN

static const int n_functions = (int)(sizeof all_functions / sizeof all_functions[0]);

/* Every predefined object and callback mpi.h names (the link needs them
 * too). Predefined handles are address constants: usable in static
 * initialisers, in C and C++. */
static const MPI_Datatype predefined_types[] = {
    MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT,
    MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
    MPI_LONG_LONG_INT, MPI_LONG_LONG, MPI_UNSIGNED_LONG_LONG, MPI_FLOAT,
    MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL, MPI_INT8_T,
    MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
    MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_OFFSET, MPI_COUNT,
    MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
    MPI_C_LONG_DOUBLE_COMPLEX, MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT,
    MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
    MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX,
    MPI_DOUBLE_COMPLEX, MPI_LOGICAL, MPI_CHARACTER, MPI_2INTEGER, MPI_2REAL,
    MPI_2DOUBLE_PRECISION, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
    MPI_INTEGER8, MPI_REAL4, MPI_REAL8, MPI_COMPLEX8, MPI_COMPLEX16,
    MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX, MPI_CXX_DOUBLE_COMPLEX,
    MPI_CXX_LONG_DOUBLE_COMPLEX,
};
static const MPI_Op predefined_ops[] = {
    MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR,
    MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP,
};
static const MPI_Comm predefined_comms[] = { MPI_COMM_WORLD, MPI_COMM_SELF };
static const MPI_Errhandler predefined_errhandlers[] = { MPI_ERRORS_ARE_FATAL,
                                                         MPI_ERRORS_RETURN };
static const MPI_Info info_env = MPI_INFO_ENV;
static const MPI_Group group_empty = MPI_GROUP_EMPTY;
static const any_fn predefined_callbacks[] = {
    (any_fn)MPI_COMM_NULL_COPY_FN, (any_fn)MPI_COMM_DUP_FN,
    (any_fn)MPI_COMM_NULL_DELETE_FN, (any_fn)MPI_TYPE_NULL_COPY_FN,
    (any_fn)MPI_TYPE_DUP_FN, (any_fn)MPI_TYPE_NULL_DELETE_FN,
    (any_fn)MPI_WIN_NULL_COPY_FN, (any_fn)MPI_WIN_DUP_FN,
    (any_fn)MPI_WIN_NULL_DELETE_FN, (any_fn)MPI_NULL_COPY_FN,
    (any_fn)MPI_DUP_FN, (any_fn)MPI_NULL_DELETE_FN,
};

#define ALL_NON_NULL(array, null)                                          \
    for (size_t i = 0; i < sizeof array / sizeof array[0]; i++)           \
        CHECK(array[i] != null, #array)

static void check_addresses(void)
{
    for (int i = 0; i < n_functions; i++) {
        CHECK(all_functions[i].mpi != NULL, all_functions[i].name);
        CHECK(all_functions[i].pmpi != NULL, all_functions[i].name);
    }
    ALL_NON_NULL(predefined_types, MPI_DATATYPE_NULL);
    ALL_NON_NULL(predefined_ops, MPI_OP_NULL);
    ALL_NON_NULL(predefined_comms, MPI_COMM_NULL);
    ALL_NON_NULL(predefined_errhandlers, MPI_ERRHANDLER_NULL);
    ALL_NON_NULL(predefined_callbacks, NULL);
    CHECK(info_env != MPI_INFO_NULL && group_empty != MPI_GROUP_NULL, "objects");
}

static void expect_unsupported(int rc, const char *fn)
{
    int cls = -1;

    if (rc != MPI_ERR_UNSUPPORTED_OPERATION)
        fprintf(stderr, "%s returned %d, not MPI_ERR_UNSUPPORTED_OPERATION\n", fn, rc);
    CHECK(rc == MPI_ERR_UNSUPPORTED_OPERATION, fn);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS, fn);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, fn);
}

static int fake_extent(MPI_Datatype dt, MPI_Aint *extent, void *state)
{
    (void)dt;
    (void)state;
    *extent = 1;
    return MPI_SUCCESS;
}

/* A sample of unsupported functions: with a communicator (its handler),
 * without one (MPI_COMM_WORLD's), and returning a handle through a
 * pointer. All must return the class and change nothing. */
static void check_unsupported(void)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Comm inter = MPI_COMM_NULL;
    char cmd[] = "/bin/true";

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_unsupported(MPI_File_open(MPI_COMM_WORLD, "/nonexistent/weft-iface",
                                     MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                       "MPI_File_open");
    CHECK(fh == MPI_FILE_NULL, "MPI_File_open set a file");
    expect_unsupported(MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                                      MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE),
                       "MPI_Comm_spawn");
    CHECK(inter == MPI_COMM_NULL, "MPI_Comm_spawn set a communicator");
    expect_unsupported(MPI_Register_datarep("weft-iface", MPI_CONVERSION_FN_NULL,
                                            MPI_CONVERSION_FN_NULL, fake_extent,
                                            NULL), "MPI_Register_datarep");
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI works after the stubs");
}

static void call_fatal(void)
{
    MPI_Comm inter = MPI_COMM_NULL;
    char cmd[] = "/bin/true";

    MPI_Comm_spawn(cmd, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                   MPI_ERRCODES_IGNORE);
    fprintf(stderr, "iface: MPI_Comm_spawn returned under MPI_ERRORS_ARE_FATAL\n");
}

int main(int argc, char **argv)
{
    int fatal = argc > 1 && !strcmp(argv[1], "fatal");

    CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS, "MPI_Init");
    if (fatal) {
        call_fatal();
        MPI_Finalize();
        return 0; /* the test fails: the job should have stopped */
    }
    check_addresses();
    check_unsupported();
    printf("iface: %d functions (MPI_ and PMPI_) linked\n", n_functions);
    MPI_Finalize();
    return 0;
}
