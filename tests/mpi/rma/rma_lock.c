/* Exclusive locks exclude: every rank, ROUNDS times, takes an exclusive
 * lock on rank 0, reads a counter, waits for the read (flush), writes the
 * counter + 1 and unlocks. A non-atomic read-modify-write loses no
 * increment only if no two ranks hold the lock at once. Then shared
 * locks: every rank reads the final count under one. */
#include "mpi_test_util.h"

#define ROUNDS 30

int main(int argc, char **argv)
{
    int rank, size, *mem, v;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(sizeof *mem, sizeof *mem, MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &win));
    *mem = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(0, win));
        v++;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(0, win));
    CHECK(v == size * ROUNDS, "counter %d, expected %d", v, size * ROUNDS);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    if (rank == 0)
        printf("rma_lock: %d ranks ok\n", size);
    return 0;
}
