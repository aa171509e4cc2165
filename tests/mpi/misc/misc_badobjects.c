/* Erroneous handles of the objects besides communicators, requests,
 * datatypes and groups (misc_badhandle.c has those) fail with their class
 * instead of faulting or hanging: under MPI_ERRORS_RETURN, on every rank,
 *   a user op freed, or zeroed memory, in reductions,
 *     MPI_Reduce_local, MPI_Accumulate, MPI_Op_free:    MPI_ERR_OP;
 *   an info object freed, or zeroed memory:             MPI_ERR_INFO
 *     (MPI_INFO_NULL stays allowed where MPI allows it);
 *   an error handler released, or zeroed memory:        MPI_ERR_ARG;
 *   a window freed, or zeroed memory:                   MPI_ERR_WIN;
 *   a message received already, or zeroed memory:       MPI_ERR_REQUEST;
 *   a keyval freed or never created:                    MPI_ERR_KEYVAL,
 * and afterwards a collective and a self message still work. Objects
 * freed while still in use behave as MPI requires: a user op freed during
 * a non-blocking reduction still reduces, an error handler freed while a
 * communicator uses it is still called.
 *
 * With the argument "fatal", an MPI_Allreduce with a freed op under
 * MPI_ERRORS_ARE_FATAL ends the job (misc/CMakeLists.txt checks its
 * status and message).
 *
 * Weft only: Open MPI 4.1 faults on most of these handles. Every rank runs
 * the same checks; the collective ones fail on every rank before any
 * message moves.
 */
#include "mpi_test_util.h"

static _Alignas(64) unsigned char zero[4096]; /* what a zeroed handle points to */

static void expect(int rc, int want, const char *what)
{
    int cls = -1;

    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void zero_untouched(void)
{
    for (size_t i = 0; i < sizeof zero; i++)
        CHECK(zero[i] == 0, "a refused call wrote to the zeroed handle");
}

/* A collective and a message to oneself still work after the refusals. */
static void still_works(const char *after)
{
    int me, size, sum = 0, x = 42, y = 0;

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2, "after %s: allreduce gave %d", after, sum);
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, me, 5, &y, 1, MPI_INT, me, 5,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(y == 42, "after %s: self message gave %d", after, y);
}

/* ------------------------------------------------------------------ ops */

static void add_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void bad_op_calls(MPI_Op op, const char *kind)
{
    int x = 1, y = 0, commute;
    MPI_Request r;
    char what[96];

#define OP_EXPECT(call)                                                    \
    do {                                                                   \
        snprintf(what, sizeof what, "%s with %s", #call, kind);            \
        expect(call, MPI_ERR_OP, what);                                    \
    } while (0)
    OP_EXPECT(MPI_Allreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD));
    OP_EXPECT(MPI_Reduce(&x, &y, 1, MPI_INT, op, 0, MPI_COMM_WORLD));
    OP_EXPECT(MPI_Scan(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD));
    OP_EXPECT(MPI_Iallreduce(&x, &y, 1, MPI_INT, op, MPI_COMM_WORLD, &r));
    OP_EXPECT(MPI_Reduce_local(&x, &y, 1, MPI_INT, op));
    OP_EXPECT(MPI_Op_commutative(op, &commute));
    OP_EXPECT(MPI_Op_free(&op));
#undef OP_EXPECT
    CHECK(y == 0, "a refused reduction with %s wrote %d", kind, y);
}

/* A user op freed while a non-blocking reduction uses it: the reduction
 * still completes with it (MPI-3.1 5.9.5); the handle is dead at once. */
static void op_freed_while_pending(void)
{
    MPI_Op op, copy;
    MPI_Request r;
    int me, size, y = 0;

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Op_create(add_ints, 1, &op));
    MPI_OK(MPI_Iallreduce(&me, &y, 1, MPI_INT, op, MPI_COMM_WORLD, &r));
    copy = op;
    MPI_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free left the handle set");
    expect(MPI_Reduce_local(&me, &y, 1, MPI_INT, copy), MPI_ERR_OP,
           "MPI_Reduce_local with an op freed while in use");
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(y == size * (size - 1) / 2, "the pending reduction gave %d", y);
}

static void bad_ops(void)
{
    MPI_Op op, copy;

    MPI_OK(MPI_Op_create(add_ints, 1, &op));
    copy = op;
    MPI_OK(MPI_Op_free(&op));
    bad_op_calls(copy, "a freed op");
    bad_op_calls((MPI_Op)(void *)zero, "an op of zeroed memory");
    bad_op_calls((MPI_Op)1, "(MPI_Op)1");
    zero_untouched();
    op_freed_while_pending();
    still_works("bad ops");
}

/* ----------------------------------------------------------------- info */

static void bad_info_calls(MPI_Info info, const char *kind)
{
    MPI_Info dup;
    MPI_Comm c;
    MPI_Win w;
    void *mem;
    char val[8], what[96];
    int n, flag;

#define INFO_EXPECT(call)                                                  \
    do {                                                                   \
        snprintf(what, sizeof what, "%s with %s", #call, kind);            \
        expect(call, MPI_ERR_INFO, what);                                  \
    } while (0)
    INFO_EXPECT(MPI_Info_set(info, "key", "value"));
    INFO_EXPECT(MPI_Info_get(info, "key", sizeof val - 1, val, &flag));
    INFO_EXPECT(MPI_Info_get_nkeys(info, &n));
    INFO_EXPECT(MPI_Info_delete(info, "key"));
    INFO_EXPECT(MPI_Info_dup(info, &dup));
    INFO_EXPECT(MPI_Comm_set_info(MPI_COMM_WORLD, info));
    INFO_EXPECT(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    INFO_EXPECT(MPI_Alloc_mem(16, info, &mem));
    INFO_EXPECT(MPI_Win_allocate(16, 1, info, MPI_COMM_WORLD, &mem, &w));
    INFO_EXPECT(MPI_Info_free(&info));
#undef INFO_EXPECT
}

/* MPI_INFO_NULL where MPI allows it, and MPI_INFO_ENV, still work. */
static void null_info_allowed(void)
{
    MPI_Comm c;
    void *mem;
    int n = -1;

    MPI_OK(MPI_Alloc_mem(16, MPI_INFO_NULL, &mem));
    MPI_OK(MPI_Free_mem(mem));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &c));
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
    CHECK(n > 0, "MPI_INFO_ENV has %d keys", n);
    expect(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO,
           "MPI_Info_get_nkeys(MPI_INFO_NULL)");
}

static void bad_infos(void)
{
    MPI_Info info, copy;

    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "key", "value"));
    copy = info;
    MPI_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "MPI_Info_free left the handle set");
    bad_info_calls(copy, "a freed info");
    bad_info_calls((MPI_Info)(void *)zero, "an info of zeroed memory");
    zero_untouched();
    null_info_allowed();
    still_works("bad info objects");
}

/* -------------------------------------------------------- error handlers */

static int handler_calls;

static void count_calls(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    handler_calls++;
}

static void bad_errh_calls(MPI_Errhandler h, const char *kind)
{
    char what[96];

    snprintf(what, sizeof what, "MPI_Comm_set_errhandler with %s", kind);
    expect(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h), MPI_ERR_ARG, what);
    snprintf(what, sizeof what, "MPI_Errhandler_free with %s", kind);
    expect(MPI_Errhandler_free(&h), MPI_ERR_ARG, what);
}

/* A handler freed while a communicator uses it: the communicator keeps
 * it (MPI-3.1 8.3.4) and still calls it. */
static void errh_freed_while_used(void)
{
    MPI_Errhandler h;
    MPI_Comm d;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_create_errhandler(count_calls, &h));
    MPI_OK(MPI_Comm_set_errhandler(d, h));
    MPI_OK(MPI_Errhandler_free(&h));
    CHECK(h == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free left the handle set");
    handler_calls = 0;
    MPI_OK(MPI_Comm_call_errhandler(d, MPI_ERR_OTHER));
    CHECK(handler_calls == 1, "a handler freed while in use: %d calls", handler_calls);
    MPI_OK(MPI_Comm_free(&d));
}

static void bad_errhandlers(void)
{
    MPI_Errhandler h, copy;

    MPI_OK(MPI_Comm_create_errhandler(count_calls, &h));
    copy = h;
    MPI_OK(MPI_Errhandler_free(&h));
    bad_errh_calls(copy, "a released handler");
    bad_errh_calls((MPI_Errhandler)(void *)zero, "a handler of zeroed memory");
    zero_untouched();
    errh_freed_while_used();
    still_works("bad error handlers");
}

/* -------------------------------------------------------------- windows */

static void bad_win_calls(MPI_Win w, const char *kind)
{
    int x = 1, flag;
    void *v;
    char what[96];

#define WIN_EXPECT(call)                                                   \
    do {                                                                   \
        snprintf(what, sizeof what, "%s with %s", #call, kind);            \
        expect(call, MPI_ERR_WIN, what);                                   \
    } while (0)
    WIN_EXPECT(MPI_Win_fence(0, w));
    WIN_EXPECT(MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, w));
    WIN_EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    WIN_EXPECT(MPI_Win_get_attr(w, MPI_WIN_BASE, &v, &flag));
    WIN_EXPECT(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    WIN_EXPECT(MPI_Win_free(&w));
#undef WIN_EXPECT
}

/* A live window refuses a dead op and a dead handler. */
static void live_window_dead_args(void)
{
    int mem = 0, x = 1;
    MPI_Win w;
    MPI_Op op, copy;

    MPI_OK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL,
                          MPI_COMM_WORLD, &w));
    MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Op_create(add_ints, 1, &op));
    copy = op;
    MPI_OK(MPI_Op_free(&op));
    MPI_OK(MPI_Win_fence(0, w));
    expect(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, copy, w),
           MPI_ERR_OP, "MPI_Accumulate with a freed op");
    expect(MPI_Accumulate(&x, 1, MPI_INT, 0, 0, 1, MPI_INT,
                          (MPI_Op)(void *)zero, w),
           MPI_ERR_OP, "MPI_Accumulate with an op of zeroed memory");
    expect(MPI_Win_set_errhandler(w, (MPI_Errhandler)(void *)zero), MPI_ERR_ARG,
           "MPI_Win_set_errhandler with a handler of zeroed memory");
    MPI_OK(MPI_Win_fence(0, w));
    MPI_OK(MPI_Win_free(&w));
}

static void bad_windows(void)
{
    int mem = 0;
    MPI_Win w, copy;

    MPI_OK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL,
                          MPI_COMM_WORLD, &w));
    copy = w;
    MPI_OK(MPI_Win_free(&w));
    CHECK(w == MPI_WIN_NULL, "MPI_Win_free left the handle set");
    bad_win_calls(copy, "a freed window");
    bad_win_calls((MPI_Win)(void *)zero, "a window of zeroed memory");
    zero_untouched();
    live_window_dead_args();
    still_works("bad windows");
}

/* ------------------------------------------------------------- messages */

static void bad_message_calls(MPI_Message m, const char *kind)
{
    MPI_Request r;
    int y = 0;
    char what[96];

    snprintf(what, sizeof what, "MPI_Mrecv with %s", kind);
    expect(MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, what);
    snprintf(what, sizeof what, "MPI_Imrecv with %s", kind);
    expect(MPI_Imrecv(&y, 1, MPI_INT, &m, &r), MPI_ERR_REQUEST, what);
    CHECK(y == 0, "a refused receive with %s wrote %d", kind, y);
}

static void bad_messages(void)
{
    MPI_Message m, copy;
    int x = 7, y = 0;

    MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 6, MPI_COMM_SELF));
    MPI_OK(MPI_Mprobe(0, 6, MPI_COMM_SELF, &m, MPI_STATUS_IGNORE));
    copy = m;
    MPI_OK(MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    CHECK(y == 7 && m == MPI_MESSAGE_NULL, "matched receive: %d", y);
    bad_message_calls(copy, "a message received already");
    bad_message_calls((MPI_Message)(void *)zero, "a message of zeroed memory");
    bad_message_calls(MPI_MESSAGE_NULL, "MPI_MESSAGE_NULL");
    zero_untouched();
    still_works("bad messages");
}

/* -------------------------------------------------------------- keyvals */

static void bad_keyval_calls(int key, const char *kind)
{
    void *v;
    int flag, mem = 0;
    MPI_Win w;
    char what[96];

#define KEY_EXPECT(call)                                                   \
    do {                                                                   \
        snprintf(what, sizeof what, "%s with %s", #call, kind);            \
        expect(call, MPI_ERR_KEYVAL, what);                                \
    } while (0)
    KEY_EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &flag));
    KEY_EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, &flag));
    KEY_EXPECT(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    KEY_EXPECT(MPI_Type_set_attr(MPI_INT, key, &flag));
    KEY_EXPECT(MPI_Type_get_attr(MPI_INT, key, &v, &flag));
    KEY_EXPECT(MPI_Type_delete_attr(MPI_INT, key));
    MPI_OK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL,
                          MPI_COMM_WORLD, &w));
    MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    KEY_EXPECT(MPI_Win_set_attr(w, key, &flag));
    KEY_EXPECT(MPI_Win_get_attr(w, key, &v, &flag));
    KEY_EXPECT(MPI_Win_delete_attr(w, key));
    MPI_OK(MPI_Win_free(&w));
    KEY_EXPECT(MPI_Comm_free_keyval(&key));
#undef KEY_EXPECT
}

static void bad_keyvals(void)
{
    int key, copy;

    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                  &key, NULL));
    copy = key;
    MPI_OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "MPI_Comm_free_keyval left the handle set");
    bad_keyval_calls(copy, "a freed keyval");
    bad_keyval_calls(987654, "a keyval never created");
    bad_keyval_calls(MPI_KEYVAL_INVALID, "MPI_KEYVAL_INVALID");
    /* a new keyval does not take the number freed just now */
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                  &key, NULL));
    CHECK(key != copy, "a freed keyval number came back at once");
    MPI_OK(MPI_Comm_free_keyval(&key));
    still_works("bad keyvals");
}

/* -------------------------------------------------------------- main */

static void fatal_case(void)
{
    MPI_Op op, copy;
    int x = 1, y = 0;

    MPI_OK(MPI_Op_create(add_ints, 1, &op));
    copy = op;
    MPI_OK(MPI_Op_free(&op));
    MPI_Allreduce(&x, &y, 1, MPI_INT, copy, MPI_COMM_WORLD); /* ends the job */
    fprintf(stderr, "MPI_Allreduce with a freed op returned\n");
    exit(1);
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    if (argc > 1 && strcmp(argv[1], "fatal") == 0)
        fatal_case();
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    bad_ops();
    bad_infos();
    bad_errhandlers();
    bad_windows();
    bad_messages();
    bad_keyvals();
    MPI_OK(MPI_Finalize());
    return 0;
}
