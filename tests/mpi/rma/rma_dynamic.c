/* A dynamic window: each rank attaches a buffer, publishes its address
 * (MPI_Get_address, gathered), and every rank puts into its right
 * neighbour's buffer at that address under lock_all; after a flush and a
 * barrier each buffer holds its left neighbour's data. Then the buffer is
 * detached, and detaching it again is MPI_ERR_RMA_ATTACH. */
#include "mpi_test_util.h"

#define N 64

int main(int argc, char **argv)
{
    int rank, size, buf[N], src[N], right, left, *flavor, flag, rc, cls;
    MPI_Aint mine, *addr;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    right = (rank + 1) % size;
    left = (rank + size - 1) % size;
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "flavor");
    MPI_OK(MPI_Win_attach(win, buf, sizeof buf));
    MPI_OK(MPI_Get_address(buf, &mine));
    addr = malloc(size * sizeof *addr);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        buf[i] = -1;
        src[i] = rank * 100 + i;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put(src, N, MPI_INT, right, addr[right], N, MPI_INT, win));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_unlock_all(win));
    for (int i = 0; i < N; i++)
        CHECK(buf[i] == left * 100 + i, "buf[%d] = %d", i, buf[i]);
    MPI_OK(MPI_Win_detach(win, buf));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    rc = MPI_Win_detach(win, buf);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_ATTACH, "second detach: class %d", cls);
    MPI_OK(MPI_Win_free(&win));
    free(addr);
    MPI_Finalize();
    if (rank == 0)
        printf("rma_dynamic: %d ranks ok\n", size);
    return 0;
}
