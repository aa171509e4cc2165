/* Every bad argument of the one-sided calls returns its error class under
 * MPI_ERRORS_RETURN (on the window, and on MPI_COMM_WORLD for calls with
 * no valid window), and the window still works afterwards. Weft only: the
 * standard leaves some of these checks (range, epochs) optional, and Open
 * MPI skips them. */
#include "mpi_test_util.h"

#define EXPECT(call, cls)                                                  \
    do {                                                                   \
        int rc_ = (call), c_ = -1;                                         \
        MPI_Error_class(rc_, &c_);                                         \
        CHECK(c_ == (cls), "%s gave class %d, expected %s (%d)", #call,    \
              c_, #cls, cls);                                              \
    } while (0)

static void bad_windows(void)
{
    int mem[4];
    MPI_Win win = MPI_WIN_NULL;

    EXPECT(MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win),
           MPI_ERR_SIZE);
    EXPECT(MPI_Win_create(mem, sizeof mem, 0, MPI_INFO_NULL, MPI_COMM_WORLD,
                          &win), MPI_ERR_DISP);
    EXPECT(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_NULL,
                          &win), MPI_ERR_COMM);
    EXPECT(MPI_Put(mem, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL),
           MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_free(&win), MPI_ERR_WIN);
}

static void bad_operations(MPI_Win win, int size)
{
    int v = 1, r;
    double d = 1, dr;

    EXPECT(MPI_Put(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(&v, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, win),
           MPI_ERR_TYPE);
    EXPECT(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Get(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_DISP);
    EXPECT(MPI_Get(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_DOUBLE, win), MPI_ERR_TYPE);
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win),
           MPI_ERR_OP);
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_MAXLOC, win),
           MPI_ERR_OP);
    EXPECT(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win),
           MPI_ERR_OP);
    EXPECT(MPI_Compare_and_swap(&d, &d, &dr, MPI_DOUBLE, 0, 0, win),
           MPI_ERR_TYPE);
    EXPECT(MPI_Fetch_and_op(&v, &r, MPI_INT, 0, 0, MPI_OP_NULL, win),
           MPI_ERR_OP);
    EXPECT(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win),
           MPI_SUCCESS);
}

static void bad_epochs(MPI_Win win)
{
    int v = 7;
    MPI_Request req;

    EXPECT(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Rput(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, &req),
           MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Rget(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, NULL),
           MPI_ERR_REQUEST);
    EXPECT(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_post(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
    EXPECT(MPI_Win_lock(12345, 0, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0x1, win), MPI_ERR_ASSERT);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    MPI_OK(MPI_Win_unlock(0, win));
}

static int handler_calls, handler_code;

static void count_errors(MPI_Win *win, int *code, ...)
{
    (void)win;
    handler_calls++;
    handler_code = *code;
}

/* A user handler sees the window's errors and MPI_Win_call_errhandler. */
static void user_handler(MPI_Win win)
{
    MPI_Errhandler h, got;
    MPI_Info info;
    int v = 0, nkeys = -1;

    MPI_OK(MPI_Win_create_errhandler(count_errors, &h));
    MPI_OK(MPI_Win_set_errhandler(win, h));
    MPI_OK(MPI_Errhandler_free(&h));
    EXPECT(MPI_Put(&v, 1, MPI_INT, -5, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_RANK,
          "handler called %d times, code %d", handler_calls, handler_code);
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "call_errhandler");
    MPI_OK(MPI_Win_get_errhandler(win, &got));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Errhandler_free(&got)); /* the last reference */
    MPI_OK(MPI_Win_get_info(win, &info));
    MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys >= 0, "nkeys %d", nkeys);
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    int rank, size, *mem, got = -1, len, flag;
    MPI_Win win;
    MPI_Errhandler h;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bad_windows();

    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &win));
    mem[0] = 100 + rank;
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_get_errhandler(win, &h));
    CHECK(h == MPI_ERRORS_RETURN, "window handler not kept");
    MPI_OK(MPI_Win_set_name(win, "halo"));
    MPI_OK(MPI_Win_get_name(win, name, &len));
    CHECK(len == 4 && !strcmp(name, "halo"), "name '%s'", name);
    EXPECT(MPI_Win_get_attr(win, MPI_KEYVAL_INVALID, &mem, &flag), MPI_ERR_KEYVAL);
    bad_epochs(win);
    user_handler(win);
    MPI_OK(MPI_Win_fence(0, win));
    bad_operations(win, size);
    MPI_OK(MPI_Get(&got, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK(got == 100 + (rank + 1) % size, "got %d after the errors", got);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    if (rank == 0)
        printf("rma_badargs: %d ranks ok\n", size);
    return 0;
}
