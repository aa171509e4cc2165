/* Generalized active target (post / start / complete / wait) on a ring:
 * each rank exposes its window to its left neighbour and accesses its
 * right neighbour's, ROUNDS epochs in a row, putting a value that changes
 * every epoch; after MPI_Win_wait (or MPI_Win_test in odd epochs) the
 * window must hold the left neighbour's value of that epoch. Then an
 * accumulate epoch with every other rank as origin of rank 0. */
#include "mpi_test_util.h"

#define ROUNDS 20

static MPI_Group group_of(const int *ranks, int n)
{
    MPI_Group world, g;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_OK(MPI_Group_incl(world, n, ranks, &g));
    MPI_Group_free(&world);
    return g;
}

static void wait_or_test(MPI_Win win, int test)
{
    int flag = 0;

    if (!test) {
        MPI_OK(MPI_Win_wait(win));
        return;
    }
    while (!flag)
        MPI_OK(MPI_Win_test(win, &flag));
}

static void ring(MPI_Win win, int *mem, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, v;
    MPI_Group to = group_of(&right, 1), from = group_of(&left, 1);

    for (int e = 0; e < ROUNDS; e++) {
        v = rank * 1000 + e;
        MPI_OK(MPI_Win_post(from, 0, win));
        MPI_OK(MPI_Win_start(to, 0, win));
        MPI_OK(MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_complete(win));
        wait_or_test(win, e % 2);
        CHECK(*mem == left * 1000 + e, "epoch %d: %d", e, *mem);
    }
    MPI_Group_free(&to);
    MPI_Group_free(&from);
}

static void gather_sum(MPI_Win win, int *mem, int rank, int size)
{
    int zero = 0, one = 1, *others = malloc(size * sizeof *others);
    MPI_Group g;

    for (int i = 1; i < size; i++)
        others[i - 1] = i;
    if (rank == 0) {
        *mem = 0;
        g = group_of(others, size - 1);
        MPI_OK(MPI_Win_post(g, 0, win));
        MPI_OK(MPI_Win_wait(win));
        CHECK(*mem == size - 1, "sum %d", *mem);
    } else {
        g = group_of(&zero, 1);
        MPI_OK(MPI_Win_start(g, 0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM,
                              win));
        MPI_OK(MPI_Win_complete(win));
    }
    MPI_Group_free(&g);
    free(others);
}

int main(int argc, char **argv)
{
    int rank, size, *mem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(sizeof *mem, sizeof *mem, MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &win));
    *mem = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    ring(win, mem, rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    gather_sum(win, mem, rank, size);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    if (rank == 0)
        printf("rma_pscw: %d ranks ok\n", size);
    return 0;
}
