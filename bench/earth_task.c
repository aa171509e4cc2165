/* The two programs of the EARTH paper's experiments, as divisible tasks:
 * fib(n) by the doubly recursive definition (every non-base call makes
 * two calls), and N-queens by backtracking over bit masks (columns and
 * both diagonals taken). A task splits while it is larger than a grain
 * and computes the rest sequentially, so its cost is that of the paper's
 * recursion and the runtime's work is the shipping and scheduling.
 *
 * Grain: fib splits down to fib(n - FIB_LEVELS) (fib(32): leaves of
 * fib(20) and below, about 400 tasks of about 50 us here); queens splits
 * the first QUEENS_LEVELS rows (queens(12): about 850 tasks). Tasks of
 * tens of microseconds are small enough for 2-8 processing elements to
 * share a 20-100 ms problem evenly and large enough that a lock and an
 * occasional message per task cost a few percent.
 *
 * The answers are checked against an independent computation: fib by
 * iteration, queens by the known counts (OEIS A000170).
 */
#include "earth.h"

#include <stdio.h>

#define FIB_LEVELS 12
#define QUEENS_LEVELS 3

static const char *const names[EARTH_NPROBLEMS] = {"fib", "queens"};

const char *earth_problem_name(earth_problem p)
{
    return p < EARTH_NPROBLEMS ? names[p] : "?";
}

const char *earth_case_name(char *buf, int size, earth_problem p, int n,
                            int ranks, int workers)
{
    snprintf(buf, (size_t)size, "%s%d_r%dw%d", earth_problem_name(p), n,
             ranks, workers);
    return buf;
}

earth_task earth_task_root(earth_problem p, int n)
{
    earth_task t = {.problem = (int32_t)p, .n = n};
    t.grain = n - FIB_LEVELS > 2 ? n - FIB_LEVELS : 2;
    return t;
}

/* ---------------------------------------------------------------- fib */

static uint64_t fib_seq(int n)
{
    return n < 2 ? (uint64_t)n : fib_seq(n - 1) + fib_seq(n - 2);
}

/* Work-first: hand fib(n-2) away, go on with fib(n-1). */
static uint64_t fib_run(earth_task t, earth_push_fn push, void *ctx)
{
    while (t.n > t.grain) {
        earth_task other = t;
        other.n = t.n - 2;
        push(ctx, &other);
        t.n--;
    }
    return fib_seq(t.n);
}

/* ------------------------------------------------------------- queens */

static uint64_t queens_seq(int n, int row, uint32_t cols, uint32_t left,
                           uint32_t right)
{
    uint32_t all = (1u << n) - 1, free = all & ~(cols | left | right);
    uint64_t count = 0;
    if (row == n)
        return 1;
    while (free) {
        uint32_t bit = free & -free;
        free ^= bit;
        count += queens_seq(n, row + 1, cols | bit, (left | bit) << 1,
                            (right | bit) >> 1);
    }
    return count;
}

/* Every placement in this row becomes a task of its own. */
static void queens_split(earth_task t, earth_push_fn push, void *ctx)
{
    uint32_t all = (1u << t.n) - 1;
    uint32_t free = all & ~(t.cols | t.left | t.right);
    while (free) {
        uint32_t bit = free & -free;
        earth_task child = t;
        free ^= bit;
        child.row = t.row + 1;
        child.cols = t.cols | bit;
        child.left = ((t.left | bit) << 1) & all;
        child.right = (t.right | bit) >> 1;
        push(ctx, &child);
    }
}

/* ---------------------------------------------------------- the tasks */

uint64_t earth_task_run(earth_task t, earth_push_fn push, void *ctx)
{
    if (t.problem == EARTH_FIB)
        return fib_run(t, push, ctx);
    if (t.row < QUEENS_LEVELS && t.row < t.n - 1) {
        queens_split(t, push, ctx);
        return 0;
    }
    return queens_seq(t.n, t.row, t.cols, t.left, t.right);
}

uint64_t earth_expected(earth_problem p, int n)
{
    static const uint64_t queens[] = {1, 1, 0, 0, 2, 10, 4, 40, 92, 352,
                                      724, 2680, 14200, 73712, 365596};
    uint64_t a = 0, b = 1;
    if (p == EARTH_QUEENS)
        return n >= 0 && n < (int)(sizeof queens / sizeof *queens)
                   ? queens[n] : 0;
    for (int i = 0; i < n; i++) {
        uint64_t c = a + b;
        a = b;
        b = c;
    }
    return a;
}
