/* bench/earth: the fib and N-queens programs of the EARTH paper run as
 * MPI jobs, their pieces and the lines the MPI program prints for the
 * driver. See earth.c (the driver) and earth_mpi.c (the MPI program).
 */
#ifndef BENCH_EARTH_H
#define BENCH_EARTH_H

#include <stdint.h>

#define EARTH_BENCH "earth"

typedef enum earth_problem { EARTH_FIB, EARTH_QUEENS, EARTH_NPROBLEMS } earth_problem;

/* A subtree of a problem's recursion: the unit of work a rank runs,
 * queues and ships to another rank. Plain data, sent as MPI_BYTE. */
typedef struct earth_task {
    int32_t problem; /* earth_problem */
    int32_t n;       /* fib: its argument; queens: the board size */
    int32_t grain;   /* fib: the largest argument computed sequentially */
    int32_t row;     /* queens: rows already holding a queen */
    uint32_t cols;   /* queens: columns taken */
    uint32_t left;   /* queens: squares of this row attacked diagonally */
    uint32_t right;  /*   from the left and from the right */
} earth_task;

/* The task standing for the whole problem. */
earth_task earth_task_root(earth_problem p, int n);

/* Run t: split off subtasks (handed to push, which queues them for any
 * thread or rank) while t is larger than the grain, then compute the
 * rest sequentially; returns what the rest adds to the answer (fib: the
 * sum of its leaves; queens: the solutions found). */
typedef void (*earth_push_fn)(void *ctx, const earth_task *t);
uint64_t earth_task_run(earth_task t, earth_push_fn push, void *ctx);

/* The answer the program must find, computed by an independent method
 * (fib: iteration; queens: a table of the known counts); 0 if unknown. */
uint64_t earth_expected(earth_problem p, int n);

/* "fib" or "queens". */
const char *earth_problem_name(earth_problem p);

/* The case of a table row: "<problem><n>_r<ranks>w<workers>", in buf. */
const char *earth_case_name(char *buf, int size, earth_problem p, int n,
                            int ranks, int workers);

#endif /* BENCH_EARTH_H */
