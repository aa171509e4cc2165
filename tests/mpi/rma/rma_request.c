/* Request-based operations in a lock_all epoch: MPI_Rput to the right
 * neighbour, MPI_Rget from the left one, MPI_Raccumulate and
 * MPI_Rget_accumulate on rank 0. A completed MPI_Rget request means the
 * data is in the buffer (checked before any flush); the window's flush and
 * unlock still complete everything; MPI_Rput to MPI_PROC_NULL gives a
 * request that completes at once. */
#include "mpi_test_util.h"

#define N 256

static void neighbours(MPI_Win win, int *mem, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[N], got[N];
    MPI_Request r[2];

    for (int i = 0; i < N; i++)
        src[i] = rank * 1000 + i;
    MPI_OK(MPI_Rput(src, N, MPI_INT, right, N, N, MPI_INT, win, &r[0]));
    MPI_OK(MPI_Rget(got, N, MPI_INT, left, 0, N, MPI_INT, win, &r[1]));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "requests");
    for (int i = 0; i < N; i++)
        CHECK(got[i] == left * 7 + i, "got[%d] = %d", i, got[i]);
    MPI_OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_sync(win));
    for (int i = 0; i < N; i++)
        CHECK(mem[N + i] == left * 1000 + i, "mem[%d] = %d", N + i, mem[N + i]);
}

static void on_rank0(MPI_Win win, int rank, int size)
{
    int one = 1, before = -1, sum = -1, dummy = 0;
    MPI_Request r;

    MPI_OK(MPI_Raccumulate(&one, 1, MPI_INT, 0, 2 * N, 1, MPI_INT, MPI_SUM,
                           win, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Rget_accumulate(&one, 1, MPI_INT, &before, 1, MPI_INT, 0,
                               2 * N + 1, 1, MPI_INT, MPI_SUM, win, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(before >= 0 && before < size, "fetched %d", before);
    MPI_OK(MPI_Win_flush(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Rget_accumulate(&dummy, 1, MPI_INT, &sum, 1, MPI_INT, 0, 2 * N,
                               1, MPI_INT, MPI_NO_OP, win, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(sum == size, "sum %d on rank %d", sum, rank);
}

int main(int argc, char **argv)
{
    int rank, size, *mem, v = 0;
    MPI_Win win;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate((2 * N + 2) * sizeof(int), sizeof(int),
                            MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    for (int i = 0; i < 2 * N + 2; i++)
        mem[i] = i < N ? rank * 7 + i : 0;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Rput(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    neighbours(win, mem, rank, size);
    on_rank0(win, rank, size);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    if (rank == 0)
        printf("rma_request: %d ranks ok\n", size);
    return 0;
}
