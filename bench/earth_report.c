/* bench/earth's report: speed-ups from the merged times, one table per
 * problem (time and speed-up of each variant per point, and Weft's time
 * over MPI+pthreads'), the paper's figures for comparison, the goal lines,
 * `result:` lines and the CSV that plot_earth.gp draws.
 *
 * The paper's figures, as its text gives them (the plots themselves are
 * not in the text): fib(32) on Ecgtheow, 16 dual-processor nodes, speed-up
 * 15 with RTS 2.0 and two execution modules per node (32 processors, 0.47
 * per processor) and 10.5 with RTS 1.2; N-queens(12): no figure, only
 * that RTS 2.0's curve tapers off at 8 nodes. The goals scale the first
 * to two processors and ask for more: 1.8 on two cores.
 */
#include <stdio.h>
#include <string.h>

#include "earth_driver.h"

#define GOAL_SPEEDUP 1.8

static int pes(earth_config c)
{
    return c.ranks * c.workers;
}

static const bench_row *find_in(const bench_table *t, earth_problem p,
                                earth_config c, earth_variant v, int n)
{
    char name[BENCH_NAME_MAX];
    earth_case_name(name, sizeof name, p, n, c.ranks, c.workers);
    return bench_table_find(t, name, earth_variant_name(v));
}

const bench_row *earth_find_time(const earth_results *r, earth_problem p,
                                 earth_config c, earth_variant v)
{
    return find_in(&r->times, p, c, v, r->n[p]);
}

static const bench_row *find_speedup(const earth_results *r, earth_problem p,
                                     earth_config c, earth_variant v)
{
    return find_in(&r->speedups, p, c, v, r->n[p]);
}

void earth_compute_speedups(earth_results *r)
{
    const earth_config base = {1, 1};
    for (int p = 0; p < EARTH_NPROBLEMS; p++)
        for (int v = 0; v < EARTH_NVARIANTS; v++) {
            const bench_row *b = earth_find_time(r, (earth_problem)p, base,
                                                 (earth_variant)v);
            for (int i = 0; i < r->nconfigs && b; i++) {
                const bench_row *t = earth_find_time(r, (earth_problem)p,
                                                     r->configs[i],
                                                     (earth_variant)v);
                if (!t || t->st.min <= 0)
                    continue;
                bench_stats s = {b->st.median / t->st.median,
                                 b->st.median / t->st.max,
                                 b->st.median / t->st.min};
                bench_table_add(&r->speedups, t->case_name, t->variant,
                                "speedup", s, "x");
            }
        }
}

/* ------------------------------------------------------------ tables */

static double ratio(const bench_row *a, const bench_row *b)
{
    return a && b && b->st.median > 0 ? a->st.median / b->st.median : -1;
}

static void print_point(const earth_results *r, earth_problem p,
                        earth_config c)
{
    printf("  %3d  %2d x %d ", pes(c), c.ranks, c.workers);
    for (int v = 0; v < EARTH_NVARIANTS; v++) {
        const bench_row *s = find_speedup(r, p, c, (earth_variant)v);
        bench_print_range_cell(stdout, 22,
                               earth_find_time(r, p, c, (earth_variant)v),
                               "n/a");
        bench_print_ratio_cell(stdout, 8, s ? s->st.median : -1);
    }
    bench_print_ratio_cell(stdout, 10,
                           ratio(earth_find_time(r, p, c, EARTH_WEFT),
                                 earth_find_time(r, p, c, EARTH_OMPI)));
    printf("\n");
}

static void print_problem(const earth_results *r, earth_problem p)
{
    printf("\n%s(%d): time per run in ms, median [min-max]; speed-up = the "
           "variant's own 1x1 median / this median\n",
           earth_problem_name(p), r->n[p]);
    printf("  %3s  %6s %22s %8s %22s %8s %10s\n", "PEs", "r x w",
           earth_variant_name(EARTH_WEFT), "speed-up",
           earth_variant_name(EARTH_OMPI), "speed-up", "weft/ompi");
    for (int i = 0; i < r->nconfigs; i++)
        print_point(r, p, r->configs[i]);
}

static void print_paper(void)
{
    printf("\npaper (EARTH RTS on Ecgtheow, 16 dual-processor nodes): "
           "fib(32) speed-up 15 with RTS 2.0 and 2 execution modules per "
           "node (32 processors: 0.47 per processor), 10.5 with RTS 1.2; "
           "N-queens(12): no figure in the text (RTS 2.0 tapers off at 8 "
           "nodes)\n");
}

/* ------------------------------------------------------------- goals */

/* The variant's fastest point on two processing elements, or NULL. */
static const bench_row *best_two(const earth_results *r, earth_problem p,
                                 earth_variant v, earth_config *at)
{
    const bench_row *best = NULL;
    for (int i = 0; i < r->nconfigs; i++) {
        const bench_row *t = earth_find_time(r, p, r->configs[i], v);
        if (pes(r->configs[i]) == 2 && t &&
            (!best || t->st.median < best->st.median)) {
            best = t;
            *at = r->configs[i];
        }
    }
    return best;
}

static void goal_speedup(const earth_results *r, earth_problem p)
{
    earth_config at = {0, 0};
    const bench_row *t = best_two(r, p, EARTH_WEFT, &at);
    const bench_row *s = t ? find_speedup(r, p, at, EARTH_WEFT) : NULL;
    if (!s) {
        printf("goal %s: Weft speed-up on 2 cores >= %.1f: n/a\n",
               earth_problem_name(p), GOAL_SPEEDUP);
        return;
    }
    printf("goal %s: Weft speed-up on 2 cores (best point %dx%d) %.2f >= "
           "%.1f  %s\n", earth_problem_name(p), at.ranks, at.workers,
           s->st.median, GOAL_SPEEDUP,
           s->st.median >= GOAL_SPEEDUP ? "PASS" : "MISS");
}

static void goal_versus(const earth_results *r, earth_problem p)
{
    earth_config aw = {0, 0}, ao = {0, 0};
    const bench_row *w = best_two(r, p, EARTH_WEFT, &aw);
    const bench_row *o = best_two(r, p, EARTH_OMPI, &ao);
    if (!w || !o) {
        printf("goal %s: Weft time / MPI+pthreads time on 2 cores <= 1: "
               "n/a\n", earth_problem_name(p));
        return;
    }
    double x = w->st.median / o->st.median;
    printf("goal %s: Weft time (%dx%d) / MPI+pthreads time (%dx%d) on 2 "
           "cores %.2f <= 1  %s\n", earth_problem_name(p), aw.ranks,
           aw.workers, ao.ranks, ao.workers, x, x <= 1 ? "PASS" : "MISS");
}

void earth_report_print(const earth_results *r)
{
    for (int p = 0; p < EARTH_NPROBLEMS; p++)
        print_problem(r, (earth_problem)p);
    print_paper();
    printf("\nsteals (per run, summed over ranks; one launch each):\n");
    for (int v = 0; v < EARTH_NVARIANTS; v++)
        bench_table_print_notes(&r->notes[v], stdout);
    printf("\n");
    for (int p = 0; p < EARTH_NPROBLEMS; p++) {
        goal_speedup(r, (earth_problem)p);
        goal_versus(r, (earth_problem)p);
    }
    printf("(goals are read from medians on a shared, noisy machine: "
           "PASS/MISS, never a failure)\n");
    bench_table_print_results(&r->times, EARTH_BENCH, stdout);
    bench_table_print_results(&r->speedups, EARTH_BENCH, stdout);
}

/* --------------------------------------------------------------- CSV */

static void csv_row(FILE *f, const bench_row *row, earth_problem p,
                    earth_config c)
{
    if (row)
        fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%s,%s,%d,%d,%d\n",
                EARTH_BENCH, row->case_name, row->variant, row->metric,
                row->st.median, row->st.min, row->st.max, row->unit,
                earth_problem_name(p), pes(c), c.ranks, c.workers);
}

/* Rows of one curve are contiguous (plot_earth.gp draws lines through
 * them): per problem, variant and metric, the points of one worker per
 * rank first, by ranks, then the others. */
static void csv_curve(FILE *f, const earth_results *r, earth_problem p,
                      earth_variant v, int speedup)
{
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < r->nconfigs; i++) {
            earth_config c = r->configs[i];
            if ((c.workers == 1) != (pass == 0))
                continue;
            csv_row(f, speedup ? find_speedup(r, p, c, v)
                               : earth_find_time(r, p, c, v), p, c);
        }
}

int earth_report_csv(const earth_results *r, const char *path)
{
    FILE *f = bench_open_csv(EARTH_BENCH, path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,problem,pes,"
            "ranks,workers\n");
    for (int p = 0; p < EARTH_NPROBLEMS; p++)
        for (int v = 0; v < EARTH_NVARIANTS; v++)
            for (int m = 0; m < 2; m++)
                csv_curve(f, r, (earth_problem)p, (earth_variant)v, m);
    return fclose(f) == 0 ? 0 : -1;
}
