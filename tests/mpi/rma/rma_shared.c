/* MPI_Win_allocate_shared and MPI_Win_shared_query: the ranks of one host
 * share real memory. On a communicator of this host's ranks, rank r
 * allocates r * PER_RANK longs (rank 0 none), then:
 *   - every rank's part is where shared_query says, with its size and
 *     disp unit, and the parts are contiguous in rank order (the
 *     standard's default); MPI_PROC_NULL gives rank 1's part, the lowest
 *     with a size > 0;
 *   - each rank fills its part with plain stores; after the standard's
 *     sync-barrier-sync every rank reads every part with plain loads;
 *   - every rank adds 1 to one word of the last rank's part ROUNDS times
 *     with an atomic instruction on the shared memory itself: the total is
 *     exact only if the memory is one and the same;
 *   - MPI_Put and MPI_Accumulate (fence epochs) on the shared window land
 *     in the same memory the loads see;
 *   - the window's flavor is MPI_WIN_FLAVOR_SHARED, its model unified.
 * Weft only: shared_query on a window of another flavor is
 * MPI_ERR_RMA_FLAVOR, and a rank out of range MPI_ERR_RANK.
 */
#include "rma_test.h"

#define PER_RANK 64 /* longs per rank, times the rank */
#define ROUNDS 1000

static int rank, size;
static MPI_Comm host; /* this host's ranks */

static int class_of(int rc)
{
    int c;

    MPI_Error_class(rc, &c);
    return c;
}

static long pattern(int r, int i)
{
    return (long)r * 100000 + i;
}

static long *part_of(MPI_Win win, int r, MPI_Aint *bytes, int *unit)
{
    long *p = NULL;

    MPI_OK(MPI_Win_shared_query(win, r, bytes, unit, &p));
    return p;
}

static void check_layout(MPI_Win win, long *mine)
{
    char *next = NULL;

    for (int r = 0; r < size; r++) {
        MPI_Aint bytes;
        int unit;
        long *p = part_of(win, r, &bytes, &unit);
        CHECK(bytes == (MPI_Aint)(r * PER_RANK * sizeof(long)), "rank %d: %ld bytes", r,
              (long)bytes);
        CHECK(unit == (int)sizeof(long), "rank %d: disp unit %d", r, unit);
        CHECK(r != rank || p == mine, "my part is not where allocate put it");
        CHECK(r == 0 || (char *)p == next, "rank %d's part does not follow rank %d's", r, r - 1);
        next = (char *)p + bytes;
    }
    MPI_Aint bytes;
    int unit;
    long *lowest = part_of(win, MPI_PROC_NULL, &bytes, &unit);
    if (size > 1)
        CHECK(lowest == part_of(win, 1, &bytes, &unit) && bytes > 0,
              "MPI_PROC_NULL is not the lowest non-empty part");
}

static void check_loads(MPI_Win win)
{
    for (int r = 1; r < size; r++) {
        MPI_Aint bytes;
        int unit;
        long *p = part_of(win, r, &bytes, &unit);
        for (int i = 0; i < r * PER_RANK; i++)
            CHECK(p[i] == pattern(r, i), "rank %d's word %d: %ld", r, i, p[i]);
    }
}

/* Atomic instructions on the shared word; the sum proves one memory. */
static void check_atomics(MPI_Win win)
{
    MPI_Aint bytes;
    int unit;
    long *word = part_of(win, size - 1, &bytes, &unit);

    if (rank == size - 1)
        __atomic_store_n(word, 0, __ATOMIC_SEQ_CST);
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(host));
    for (int i = 0; i < ROUNDS; i++)
        __atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
    MPI_OK(MPI_Barrier(host));
    MPI_OK(MPI_Win_sync(win));
    long total = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    CHECK(total == (long)size * ROUNDS, "shared counter %ld, expected %ld", total,
          (long)size * ROUNDS);
    MPI_OK(MPI_Barrier(host));
}

/* The ranks with a part (1..size-1) form a ring: rank r puts into word 1
 * of the next one's part (so each part gets one put; rank 0 puts
 * nothing), and every rank adds its rank to word 2 of the last part;
 * plain loads see both. Needs size > 1. */
static int put_target(int r)
{
    return r % (size - 1) + 1;
}

static void check_rma(MPI_Win win)
{
    long mine = pattern(rank, -1), me = rank;
    MPI_Aint bytes;
    int unit;

    MPI_OK(MPI_Win_fence(0, win));
    if (rank > 0)
        MPI_OK(MPI_Put(&mine, 1, MPI_LONG, put_target(rank), 1, 1, MPI_LONG, win));
    MPI_OK(MPI_Accumulate(&me, 1, MPI_LONG, size - 1, 2, 1, MPI_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_fence(0, win));
    long *last = part_of(win, size - 1, &bytes, &unit);
    CHECK(last[2] == pattern(size - 1, 2) + (long)size * (size - 1) / 2, "accumulated %ld",
          last[2]);
    for (int r = 1; r < size; r++) {
        int from = r == 1 ? size - 1 : r - 1;
        long *p = part_of(win, r, &bytes, &unit);
        CHECK(put_target(from) == r && p[1] == pattern(from, -1),
              "rank %d's word 1 is %ld, not rank %d's put", r, p[1], from);
    }
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
}

static void check_attrs(MPI_Win win)
{
    int *flavor, *model, flag;

    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor %d", flag ? *flavor : -1);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model %d", flag ? *model : -1);
}

#ifdef WEFT_MPI
static void check_errors(MPI_Win shared)
{
    MPI_Win other;
    MPI_Aint bytes;
    int unit;
    long *p, *base;

    MPI_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &other));
    MPI_OK(MPI_Win_set_errhandler(other, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Win_set_errhandler(shared, MPI_ERRORS_RETURN));
    CHECK(class_of(MPI_Win_shared_query(other, 0, &bytes, &unit, &p)) == MPI_ERR_RMA_FLAVOR,
          "shared_query on an allocated window");
    CHECK(class_of(MPI_Win_shared_query(shared, size, &bytes, &unit, &p)) == MPI_ERR_RANK,
          "shared_query of rank %d", size);
    MPI_OK(MPI_Win_free(&other));
}
#endif

int main(int argc, char **argv)
{
    MPI_Win win;
    long *mine = NULL;

    MPI_Init(&argc, &argv);
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
    MPI_Comm_rank(host, &rank);
    MPI_Comm_size(host, &size);
    CHECK(size > 0, "empty host communicator");
    MPI_OK(MPI_Win_allocate_shared((MPI_Aint)(rank * PER_RANK * sizeof(long)), sizeof(long),
                                   MPI_INFO_NULL, host, &mine, &win));
    check_attrs(win);
    check_layout(win, mine);
    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win)); /* loads and stores */
    for (int i = 0; i < rank * PER_RANK; i++)
        mine[i] = pattern(rank, i);
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(host));
    MPI_OK(MPI_Win_sync(win));
    check_loads(win);
    MPI_OK(MPI_Barrier(host));
    if (size > 1)
        check_atomics(win);
    MPI_OK(MPI_Win_unlock_all(win));
    if (size > 1)
        check_rma(win);
#ifdef WEFT_MPI
    check_errors(win);
#endif
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&host));
    if (rank == 0)
        printf("rma_shared: %d ranks share one window's memory\n", size);
    MPI_Finalize();
    return 0;
}
