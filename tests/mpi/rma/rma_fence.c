/* Put and get under MPI_Win_fence: every rank puts a pattern into its
 * right neighbour's window (a contiguous block and a strided one through a
 * vector origin type), gets its left neighbour's block back, and checks
 * the data after each fence; also the window's attributes and group, on
 * windows made by MPI_Win_create and MPI_Win_allocate. Then a strided
 * target (a vector target type) and 1 MiB transfers (the rendezvous path). */
#include "mpi_test_util.h"

#define N 1000

static void check_attrs(MPI_Win win, void *base, int flavor)
{
    void *got_base;
    MPI_Aint *size;
    int *unit, *fl, *model, flag;
    MPI_Group g, wg;
    int cmp;

    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &got_base, &flag));
    CHECK(flag && got_base == base, "base %p, expected %p", got_base, base);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag));
    CHECK(flag && *size == (MPI_Aint)(2 * N * sizeof(int)), "size");
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag));
    CHECK(flag && *unit == (int)sizeof(int), "disp unit %d", *unit);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag));
    CHECK(flag && *fl == flavor, "flavor %d", *fl);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && (*model == MPI_WIN_UNIFIED || *model == MPI_WIN_SEPARATE),
          "model %d", *model);
    MPI_OK(MPI_Win_get_group(win, &g));
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_compare(g, wg, &cmp));
    CHECK(cmp == MPI_IDENT, "window group differs from world's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

/* win[0..N) gets the left neighbour's put; win[N..2N) this rank's own
 * values, which the right neighbour gets. */
static void exchange(MPI_Win win, int *mem, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int src[2 * N], got[N];
    MPI_Datatype every_other;

    for (int i = 0; i < N; i++) {
        mem[N + i] = rank * 100000 + i;
        src[2 * i] = rank * 1000 + i;
        src[2 * i + 1] = -1;
    }
    MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, 1, every_other, right, 0, N, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < N; i++)
        CHECK(mem[i] == left * 1000 + i, "mem[%d] = %d after put", i, mem[i]);
    MPI_OK(MPI_Get(got, N, MPI_INT, left, N, N, MPI_INT, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < N; i++)
        CHECK(got[i] == left * 100000 + i, "got[%d] = %d", i, got[i]);
    MPI_Type_free(&every_other);
}

#define BIG (1 << 20)

/* Put every other int of the right neighbour's window through a vector
 * target type, then get 1 MiB of the left neighbour's whole. */
static void strided_and_large(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int n = BIG / (int)sizeof(int), *mem, *src = malloc(BIG), *got = malloc(BIG);
    MPI_Datatype odd;
    MPI_Win win;

    MPI_OK(MPI_Win_allocate(BIG, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &mem, &win));
    for (int i = 0; i < n; i++) {
        mem[i] = -1;
        src[i] = rank * 10000000 + i;
    }
    MPI_OK(MPI_Type_vector(n / 2, 1, 2, MPI_INT, &odd));
    MPI_OK(MPI_Type_commit(&odd));
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src, n / 2, MPI_INT, right, 1, 1, odd, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < n; i++)
        CHECK(mem[i] == (i % 2 ? left * 10000000 + i / 2 : -1),
              "strided put: mem[%d] = %d", i, mem[i]);
    MPI_OK(MPI_Get(got, n, MPI_INT, left, 0, n, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < n; i++)
        CHECK(got[i] == (i % 2 ? ((left + size - 1) % size) * 10000000 + i / 2
                               : -1), "large get: got[%d] = %d", i, got[i]);
    MPI_Type_free(&odd);
    MPI_OK(MPI_Win_free(&win));
    free(src);
    free(got);
}

static int is_weft(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;

    MPI_Get_library_version(v, &len);
    return strstr(v, "Weft") != NULL;
}

/* MPI_Win_create, allowed to fail for another MPI (then MPI_WIN_NULL). */
static MPI_Win create_window(int *mem)
{
    MPI_Win win = MPI_WIN_NULL;
    int rc, all;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_create(mem, 2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(rc == MPI_SUCCESS || !is_weft(), "MPI_Win_create returned %d", rc);
    all = rc == MPI_SUCCESS;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK(all || rc != MPI_SUCCESS, "MPI_Win_create failed on another rank");
    return all ? win : MPI_WIN_NULL;
}

int main(int argc, char **argv)
{
    int rank, size, *mem, *amem;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    mem = calloc(2 * N, sizeof *mem);
    win = create_window(mem);
    if (win != MPI_WIN_NULL) {
        check_attrs(win, mem, MPI_WIN_FLAVOR_CREATE);
        exchange(win, mem, rank, size);
        MPI_OK(MPI_Win_free(&win));
        CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle");
    } else if (rank == 0) {
        printf("rma_fence: MPI_Win_create unavailable here, skipped\n");
    }
    free(mem);

    MPI_OK(MPI_Win_allocate(2 * N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &amem, &win));
    check_attrs(win, amem, MPI_WIN_FLAVOR_ALLOCATE);
    exchange(win, amem, rank, size);
    MPI_OK(MPI_Win_free(&win));
    strided_and_large(rank, size);

    MPI_Finalize();
    if (rank == 0)
        printf("rma_fence: %d ranks ok\n", size);
    return 0;
}
