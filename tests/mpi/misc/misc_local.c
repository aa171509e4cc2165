/* Local calls: status setters (MPI_Status_set_elements(_x),
 * MPI_Status_set_cancelled), MPI_Dims_create over a table of cases,
 * error handlers under their MPI-1 and MPI-2 names and
 * MPI_Comm_call_errhandler, user error classes, codes and strings
 * (MPI_Add_error_*, MPI_LASTUSEDCODE), MPI_Pcontrol. */
#include "mpi_test_util.h"

static void status_setters(void)
{
    MPI_Status st;
    MPI_Count cx;
    int n, flag;

    memset(&st, 0, sizeof st);
    MPI_OK(MPI_Status_set_elements(&st, MPI_INT, 3));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 3, "count %d", n);
    MPI_OK(MPI_Get_elements(&st, MPI_BYTE, &n));
    CHECK(n == 3 * (int)sizeof(int), "elements in bytes %d", n);
    MPI_OK(MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)5));
    MPI_OK(MPI_Get_elements_x(&st, MPI_DOUBLE, &cx));
    CHECK(cx == 5, "elements_x %lld", (long long)cx);
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == 5 * (int)sizeof(double), "bytes %d", n);
    MPI_OK(MPI_Status_set_elements(&st, MPI_INT, 0));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 0, "count %d", n);
    MPI_OK(MPI_Status_set_cancelled(&st, 1));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "not cancelled");
    MPI_OK(MPI_Status_set_cancelled(&st, 0));
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "still cancelled");
    CHECK(MPI_Status_set_elements(&st, MPI_INT, -1) == MPI_ERR_COUNT, "negative count");
}

typedef struct dims_case {
    int nnodes, ndims, in[4], out[4];
} dims_case;

static void dims(void)
{
    /* Cases where every balanced answer agrees (Open MPI's greedy split
     * included). */
    static const dims_case table[] = {
        { 6, 2, { 0, 0 }, { 3, 2 } },         { 7, 2, { 0, 0 }, { 7, 1 } },
        { 6, 3, { 0, 3, 0 }, { 2, 3, 1 } },   { 12, 3, { 0, 3, 0 }, { 2, 3, 2 } },
        { 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },   { 12, 2, { 0, 0 }, { 4, 3 } },
        { 16, 3, { 0, 0, 0 }, { 4, 2, 2 } },  { 24, 3, { 0, 0, 0 }, { 4, 3, 2 } },
        { 30, 3, { 0, 0, 0 }, { 5, 3, 2 } },  { 64, 3, { 0, 0, 0 }, { 4, 4, 4 } },
        { 100, 2, { 0, 0 }, { 10, 10 } },     { 48, 4, { 0, 0, 0, 0 }, { 4, 3, 2, 2 } },
        { 12, 2, { 4, 3 }, { 4, 3 } },        { 60, 4, { 0, 5, 0, 0 }, { 3, 5, 2, 2 } },
        { 72, 3, { 0, 0, 0 }, { 6, 4, 3 } },  { 1024, 3, { 0, 0, 0 }, { 16, 8, 8 } },
    };
    static const dims_case bad[] = {
        { 12, 3, { 0, 5, 0 }, { 0 } }, /* 5 does not divide 12 */
        { 12, 3, { 0, -1, 0 }, { 0 } },
        { 12, 2, { 2, 3 }, { 0 } },    /* all fixed, product 6 */
        { -1, 2, { 0, 0 }, { 0 } },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        int d[4];
        memcpy(d, table[i].in, sizeof d);
        MPI_OK(MPI_Dims_create(table[i].nnodes, table[i].ndims, d));
        for (int k = 0; k < table[i].ndims; k++)
            CHECK(d[k] == table[i].out[k], "case %zu (%d in %d): dims[%d] = %d, want %d", i,
                  table[i].nnodes, table[i].ndims, k, d[k], table[i].out[k]);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int d[4];
        memcpy(d, bad[i].in, sizeof d);
        CHECK(MPI_Dims_create(bad[i].nnodes, bad[i].ndims, d) == MPI_ERR_DIMS,
              "bad case %zu accepted", i);
    }
    int d[2] = { 0, 0 };
    MPI_OK(MPI_Dims_create(72, 2, d));
    CHECK(d[0] * d[1] == 72 && d[0] >= d[1], "72 in 2: %d x %d", d[0], d[1]);
#ifdef WEFT_MPI /* as close as possible; Open MPI's greedy split says 12 x 6 */
    CHECK(d[0] == 9 && d[1] == 8, "72 in 2: %d x %d", d[0], d[1]);
#endif
}

/* ------------------------------------------------------------ handlers */

static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

static void errhandlers(void)
{
    MPI_Errhandler h1, h2, got;
    MPI_Comm dup = MPI_COMM_SELF;
    int rc;

#ifdef WEFT_MPI /* the MPI-1 names; Open MPI 4.1 hides them by default */
    MPI_OK(MPI_Errhandler_create(handler, &h1));
    MPI_OK(MPI_Errhandler_set(dup, h1));
    MPI_OK(MPI_Errhandler_get(dup, &got));
#else
    MPI_OK(MPI_Comm_create_errhandler(handler, &h1));
    MPI_OK(MPI_Comm_set_errhandler(dup, h1));
    MPI_OK(MPI_Comm_get_errhandler(dup, &got));
#endif
    MPI_OK(MPI_Comm_create_errhandler(handler, &h2));
    CHECK(got == h1, "MPI_Errhandler_get gave another handler");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_TAG));
    CHECK(calls == 1 && last_code == MPI_ERR_TAG && last_comm == dup, "handler: %d %d", calls,
          last_code);
    rc = MPI_Send(NULL, -1, MPI_INT, 0, 0, dup); /* a real error reaches it too */
    CHECK(rc == MPI_ERR_COUNT && calls == 2 && last_code == MPI_ERR_COUNT, "rc %d calls %d", rc,
          calls);
    MPI_OK(MPI_Comm_set_errhandler(dup, h2));
    MPI_OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == h2, "MPI_Comm_get_errhandler gave another handler");
    MPI_OK(MPI_Errhandler_free(&got));
    MPI_OK(MPI_Errhandler_free(&h1));
    MPI_OK(MPI_Errhandler_free(&h2)); /* still set on dup: stays usable */
    CHECK(h1 == MPI_ERRHANDLER_NULL && h2 == MPI_ERRHANDLER_NULL, "handles not cleared");
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_RANK));
    CHECK(calls == 3 && last_code == MPI_ERR_RANK, "handler after free: %d", calls);
    MPI_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_call_errhandler(dup, MPI_ERR_RANK)); /* returns: no effect */
    CHECK(calls == 3, "a replaced handler ran");
}

static void error_classes(void)
{
    char s[MPI_MAX_ERROR_STRING];
    int cls, code, code2, got, len, flag, *last;

    MPI_OK(MPI_Add_error_class(&cls));
    CHECK(cls > MPI_ERR_LASTCODE, "new class %d", cls);
    MPI_OK(MPI_Add_error_code(cls, &code));
    MPI_OK(MPI_Add_error_code(MPI_ERR_OTHER, &code2));
    CHECK(code != cls && code2 != code && code2 != cls, "codes %d %d %d", cls, code, code2);
    MPI_OK(MPI_Error_class(code, &got));
    CHECK(got == cls, "class of %d is %d, want %d", code, got, cls);
#ifdef WEFT_MPI /* classes are codes of themselves; Open MPI 4.1 says MPI_ERR_UNKNOWN */
    MPI_OK(MPI_Error_class(cls, &got));
    CHECK(got == cls, "class of class %d is %d", cls, got);
#endif
    MPI_OK(MPI_Error_class(code2, &got));
    CHECK(got == MPI_ERR_OTHER, "class of %d is %d", code2, got);
    MPI_OK(MPI_Add_error_string(code, "the frobnicator jammed"));
    MPI_OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "the frobnicator jammed") == 0 && len == (int)strlen(s), "string '%s'", s);
    MPI_OK(MPI_Add_error_string(code, "replaced"));
    MPI_OK(MPI_Error_string(code, s, &len));
    CHECK(strcmp(s, "replaced") == 0, "string '%s'", s);
    CHECK(MPI_Add_error_string(MPI_ERR_ARG, "x") != MPI_SUCCESS, "predefined string changed");
    CHECK(MPI_Add_error_code(code + 1000, &got) != MPI_SUCCESS, "code of a missing class");
    CHECK(MPI_Error_class(code2 + 1000, &got) != MPI_SUCCESS, "class of a missing code");
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
    CHECK(flag && *last >= code2, "MPI_LASTUSEDCODE %d, codes up to %d", flag ? *last : -1,
          code2);
    /* a user code travels through a user handler unchanged */
    MPI_Errhandler h;
    MPI_OK(MPI_Comm_create_errhandler(handler, &h));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, h));
    MPI_OK(MPI_Errhandler_free(&h));
    MPI_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, code));
    CHECK(last_code == code, "handler got %d, want %d", last_code, code);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
}

int main(int argc, char **argv)
{
    int rank;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Pcontrol(1));
    MPI_OK(MPI_Pcontrol(0, "any", 3));
    status_setters();
    dims();
    errhandlers();
    error_classes();
    MPI_Finalize();
    if (rank == 0)
        printf("misc_local: ok\n");
    return 0;
}
