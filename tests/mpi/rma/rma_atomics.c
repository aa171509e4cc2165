/* Accumulates and atomics to one target (rank 0) under MPI_Win_lock_all:
 *  - MPI_Accumulate(MPI_SUM) of rank + 1 from every rank, ROUNDS times:
 *    the sum is exact;
 *  - MPI_Fetch_and_op(MPI_SUM, 1) on a counter, ROUNDS times per rank:
 *    the values fetched over all ranks are 0 .. size * ROUNDS - 1, each
 *    once;
 *  - MPI_Compare_and_swap as a spin lock around a non-atomic get-then-put
 *    increment: no increment is lost;
 *  - MPI_Get_accumulate(MPI_NO_OP) reads the final values;
 *  - MPI_MAXLOC on MPI_DOUBLE_INT and MPI_MINLOC on MPI_SHORT_INT (a pair
 *    with a hole) from every rank, on a window of its own.
 * The window holds three long longs: sum, counter, (lock, value) pair. */
#include <stddef.h>

#include "rma_test.h"

#define ROUNDS 40
enum { SUM, COUNTER, LOCK, VALUE, NSLOTS };

static long long read_slot(MPI_Win win, int slot)
{
    long long v = -1, dummy = 0;

    MPI_OK(MPI_Get_accumulate(&dummy, 1, MPI_LONG_LONG, &v, 1, MPI_LONG_LONG,
                              0, slot, 1, MPI_LONG_LONG, MPI_NO_OP, win));
    MPI_OK(MPI_Win_flush(0, win));
    return v;
}

static void accumulate(MPI_Win win, int rank)
{
    long long mine = rank + 1;

    for (int i = 0; i < ROUNDS; i++)
        MPI_OK(MPI_Accumulate(&mine, 1, MPI_LONG_LONG, 0, SUM, 1,
                              MPI_LONG_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_flush_all(win));
}

static void fetch_counter(MPI_Win win, long long *got)
{
    long long one = 1;

    for (int i = 0; i < ROUNDS; i++) {
        MPI_OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG_LONG, 0, COUNTER,
                                MPI_SUM, win));
        MPI_OK(MPI_Win_flush(0, win));
    }
}

static void locked_increment(MPI_Win win, int rank)
{
    long long me = rank + 1, zero = 0, old, v;

    do {
        MPI_OK(MPI_Compare_and_swap(&me, &zero, &old, MPI_LONG_LONG, 0, LOCK,
                                    win));
        MPI_OK(MPI_Win_flush(0, win));
    } while (old != 0);
    MPI_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, VALUE, 1, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_flush(0, win));
    v++;
    MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, VALUE, 1, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_flush(0, win));
    MPI_OK(MPI_Compare_and_swap(&zero, &me, &old, MPI_LONG_LONG, 0, LOCK, win));
    MPI_OK(MPI_Win_flush(0, win));
    CHECK(old == me, "lock word %lld while rank %d held it", old, rank);
}

struct pairs {
    struct { double v; int i; } d;
    struct { short v; int i; } s;
};

static void pairs(int rank, int size)
{
    struct pairs *mem, got;
    struct { double v; int i; } d = { 1.5 * (rank % 3), rank };
    struct { short v; int i; } sh = { (short)(rank % 2), rank };
    MPI_Win win;

    MPI_OK(MPI_Win_allocate(sizeof *mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                            &mem, &win));
    mem->d.v = -1;
    mem->d.i = -1;
    mem->s.v = 100;
    mem->s.i = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Accumulate(&d, 1, MPI_DOUBLE_INT, 0, offsetof(struct pairs, d),
                          1, MPI_DOUBLE_INT, MPI_MAXLOC, win));
    MPI_OK(MPI_Accumulate(&sh, 1, MPI_SHORT_INT, 0, offsetof(struct pairs, s),
                          1, MPI_SHORT_INT, MPI_MINLOC, win));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Get(&got.d, 1, MPI_DOUBLE_INT, 0, offsetof(struct pairs, d), 1,
                   MPI_DOUBLE_INT, win));
    MPI_OK(MPI_Get(&got.s, 1, MPI_SHORT_INT, 0, offsetof(struct pairs, s), 1,
                   MPI_SHORT_INT, win));
    MPI_OK(MPI_Win_unlock_all(win));
    /* max of 1.5 * (r % 3): first at r = 2 (ties take the lowest index) */
    CHECK(got.d.v == 1.5 * (size > 2 ? 2 : size - 1) &&
          got.d.i == (size > 2 ? 2 : size - 1), "maxloc (%g, %d)", got.d.v,
          got.d.i);
    CHECK(got.s.v == 0 && got.s.i == 0, "minloc (%d, %d)", got.s.v, got.s.i);
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    int rank, size;
    long long *mem, got[ROUNDS], *all = NULL;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(NSLOTS * sizeof(long long), sizeof(long long),
                            MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    memset(mem, 0, NSLOTS * sizeof(long long));
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_OK(MPI_Win_lock_all(0, win));
    accumulate(win, rank);
    fetch_counter(win, got);
    for (int i = 0; i < ROUNDS / 4; i++)
        locked_increment(win, rank);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's updates completed */
    CHECK(read_slot(win, SUM) == (long long)ROUNDS * size * (size + 1) / 2,
          "sum %lld", read_slot(win, SUM));
    CHECK(read_slot(win, VALUE) == (long long)size * (ROUNDS / 4),
          "value %lld after locked increments", read_slot(win, VALUE));
    CHECK(read_slot(win, LOCK) == 0, "lock word left set");
    MPI_OK(MPI_Win_unlock_all(win));

    if (rank == 0)
        all = malloc((size_t)size * ROUNDS * sizeof *all);
    MPI_Gather(got, ROUNDS, MPI_LONG_LONG, all, ROUNDS, MPI_LONG_LONG, 0,
               MPI_COMM_WORLD);
    if (rank == 0)
        rma_check_distinct(all, size * ROUNDS);
    free(all);
    MPI_OK(MPI_Win_free(&win));
    pairs(rank, size);
    MPI_Finalize();
    if (rank == 0)
        printf("rma_atomics: %d ranks ok\n", size);
    return 0;
}
