/* bench/rma, the report: part 1's table (latency and bandwidth per
 * variant), part 2's table (get p50/p99/max per N and variant, and the
 * stalls), the goal lines, the `result:` lines and the CSV (see rma.c for
 * the experiment and the goals).
 *
 * Every figure is the median over the repeats of that repeat's figure,
 * shown as "median [min-max]"; ratios are ratios of those medians. Part
 * 2's percentiles come from the repeats whose gets all completed in time;
 * a repeat with a stalled get counts in the `stalled` column instead,
 * with how long that get took.
 */
#include "rma.h"

#include <stdio.h>
#include <string.h>

#define GOAL_LAT_RATIO 1.5 /* weft / openmpi latency, at most */
#define GOAL_BW_RATIO  0.9 /* weft / openmpi bandwidth, at least */
#define GOAL_P99_RATIO 3.0 /* weft p99 at N / at N = 1, at most */
#define CELL_W 22

enum { P_P50, P_P99, P_MAX, P_STALL, P_NMETRICS };
static const char *const prog_metrics[P_NMETRICS] = {"get_p50", "get_p99",
                                                     "get_max",
                                                     "stalled_get"};

/* ------------------------------------------------------------ cells */

static int perf_stat(const rma_results *r, int v, int c, bench_stats *st)
{
    const rma_perf_cell *cell = &r->perf[v][c];
    double x[BENCH_REPEATS_MAX];
    if (cell->nruns == 0)
        return -1;
    memcpy(x, cell->values, sizeof *x * (size_t)cell->nruns);
    *st = bench_stats_of(x, cell->nruns);
    return 0;
}

static double prog_value(const rma_prog_run *run, int m)
{
    return m == P_P50 ? run->p50_us : m == P_P99 ? run->p99_us
         : m == P_MAX ? run->max_us : run->stalled_ms;
}

/* Metric m over the repeats that stalled (P_STALL) or did not (the
 * others); 0, or -1 if there are none. */
static int prog_stat(const rma_results *r, int v, int i, int m,
                     bench_stats *st)
{
    const rma_prog_cell *cell = &r->prog[v][i];
    double x[BENCH_REPEATS_MAX];
    int n = 0;
    for (int k = 0; k < cell->nruns; k++) {
        const rma_prog_run *run = &cell->runs[k];
        int stalled = run->stalled_ms > 0;
        if (stalled == (m == P_STALL) && (stalled || run->count > 0))
            x[n++] = prog_value(run, m);
    }
    if (n == 0)
        return -1;
    *st = bench_stats_of(x, n);
    return 0;
}

/* Repeats with a stalled get; *waited: those whose get waited for the
 * target's compute phase to end. */
static int stalled_runs_waited(const rma_results *r, int v, int i,
                               int *waited)
{
    int n = 0;
    *waited = 0;
    for (int k = 0; k < r->prog[v][i].nruns; k++) {
        n += r->prog[v][i].runs[k].stalled_ms > 0;
        *waited += r->prog[v][i].runs[k].waited;
    }
    return n;
}

static int stalled_runs(const rma_results *r, int v, int i)
{
    int waited;
    return stalled_runs_waited(r, v, i, &waited);
}

static const char *missing_text(const rma_results *r, int v)
{
    return r->state[v] == RMA_ST_ABSENT ? "absent"
         : r->state[v] == RMA_ST_FAILED ? "failed" : "-";
}

static void print_cell(int (*stat)(const rma_results *, int, int, int,
                                   bench_stats *),
                       const rma_results *r, int v, int i, int m)
{
    char buf[64];
    bench_stats st;
    if (stat(r, v, i, m, &st) == 0)
        printf(" %*s", CELL_W, bench_format_range(buf, sizeof buf, st));
    else
        printf(" %*s", CELL_W, missing_text(r, v));
}

/* ----------------------------------------------------------- part 1 */

static double perf_ratio(const rma_results *r, int c)
{
    bench_stats w, o;
    if (perf_stat(r, RMA_WEFT, c, &w) != 0 || perf_stat(r, RMA_OMPI, c, &o))
        return -1;
    return o.median > 0 ? w.median / o.median : -1;
}

static int perf_stat4(const rma_results *r, int v, int c, int m,
                      bench_stats *st)
{
    (void)m;
    return perf_stat(r, v, c, st);
}

static void print_part1(const rma_results *r)
{
    printf("\npart 1: MPI_Win_allocate, shared lock held, MPI_Win_flush "
           "after each put/get (bandwidth: after %d puts); median "
           "[min-max] over repeats\n%-14s %-5s", RMA_BW_WINDOW, "case",
           "unit");
    for (int v = 0; v < RMA_NVARIANTS; v++)
        printf(" %*s", CELL_W, rma_variant_name((rma_variant)v));
    printf(" %12s\n", "weft/openmpi");
    for (int c = 0; c < RMA_NPERF; c++) {
        printf("%-14s %-5s", rma_perf_case_name((rma_perf_case)c),
               rma_perf_case_is_latency((rma_perf_case)c) ? "us" : "MB/s");
        for (int v = 0; v < RMA_NVARIANTS; v++)
            print_cell(perf_stat4, r, v, c, 0);
        double x = perf_ratio(r, c);
        if (x < 0)
            printf(" %12s\n", "-");
        else
            printf(" %12.3g\n", x);
    }
}

/* ----------------------------------------------------------- part 2 */

static int threads_of(const rma_results *r, int v, int i)
{
    const rma_prog_cell *cell = &r->prog[v][i];
    return cell->nruns ? cell->runs[0].threads : 0;
}

static int gets_of(const rma_results *r, int v, int i)
{
    const rma_prog_cell *cell = &r->prog[v][i];
    int total = 0;
    for (int k = 0; k < cell->nruns; k++)
        total += cell->runs[k].count;
    return cell->nruns ? total / cell->nruns : 0;
}

static void print_stalls(const rma_results *r, int v, int i)
{
    char buf[64];
    bench_stats st;
    int waited, n = stalled_runs_waited(r, v, i, &waited);
    if (n == 0 || prog_stat(r, v, i, P_STALL, &st) != 0) {
        printf("  %d/%d\n", n, r->prog[v][i].nruns);
        return;
    }
    printf("  %d/%d STALLED: a get took %s ms", n, r->prog[v][i].nruns,
           bench_format_range(buf, sizeof buf, st));
    if (waited == n)
        printf(", completing only when the target called MPI again\n");
    else
        printf(" (%d of them completed only when the target called MPI "
               "again, the others while it still computed)\n", waited);
}

static void print_part2(const rma_results *r)
{
    printf("\npart 2: 8 B MPI_Get + MPI_Win_flush (shared lock) while the "
           "target runs N compute threads per CPU and makes no MPI call; "
           "us, median [min-max] over repeats\n");
    printf("%-4s %-12s %7s %6s", "N", "variant", "threads", "gets");
    for (int m = P_P50; m <= P_MAX; m++)
        printf(" %*s", CELL_W, prog_metrics[m] + 4);
    printf("  stalled\n");
    for (int i = 0; i < r->n_ns; i++)
        for (int v = 0; v < RMA_NVARIANTS; v++) {
            printf("%-4d %-12s %7d %6d", r->ns[i],
                   rma_variant_name((rma_variant)v), threads_of(r, v, i),
                   gets_of(r, v, i));
            for (int m = P_P50; m <= P_MAX; m++)
                print_cell(prog_stat, r, v, i, m);
            print_stalls(r, v, i);
        }
    printf("(threads: compute threads in the target, N per CPU it runs on; "
           "gets: timed gets per repeat; stalled: repeats in which a get "
           "took longer than %.1f s)\n", r->stall_s);
}

/* ------------------------------------------------------------ goals */

typedef struct goal {
    char name[BENCH_NAME_MAX];
    double value;  /* -1: n/a */
    int at_most;
    double bound;
} goal;

static int goal_pass(const goal *g)
{
    return g->at_most ? g->value <= g->bound : g->value >= g->bound;
}

/* Weft's p99 at N = ns[i] over its p99 at N = 1, or -1. */
static double p99_ratio(const rma_results *r, int i)
{
    bench_stats at, base;
    int one = -1;
    for (int k = 0; k < r->n_ns; k++)
        if (r->ns[k] == 1)
            one = k;
    if (one < 0 || prog_stat(r, RMA_WEFT, one, P_P99, &base) != 0 ||
        stalled_runs(r, RMA_WEFT, one) || stalled_runs(r, RMA_WEFT, i) ||
        prog_stat(r, RMA_WEFT, i, P_P99, &at) != 0 || base.median <= 0)
        return -1;
    return at.median / base.median;
}

static int make_goals(const rma_results *r, goal *g)
{
    int n = 0;
    for (int c = 0; c < RMA_NPERF; c++, n++) {
        int lat = rma_perf_case_is_latency((rma_perf_case)c);
        snprintf(g[n].name, sizeof g[n].name, "%s",
                 rma_perf_case_name((rma_perf_case)c));
        g[n].value = perf_ratio(r, c);
        g[n].at_most = lat;
        g[n].bound = lat ? GOAL_LAT_RATIO : GOAL_BW_RATIO;
    }
    for (int i = 0; i < r->n_ns; i++) {
        if (r->ns[i] == 1)
            continue;
        snprintf(g[n].name, sizeof g[n].name, "get_p99_N=%d", r->ns[i]);
        g[n].value = p99_ratio(r, i);
        g[n].at_most = 1;
        g[n++].bound = GOAL_P99_RATIO;
    }
    return n;
}

static void print_goals(const rma_results *r, const goal *g, int n)
{
    printf("\ngoals (ratios of medians over repeats):\n");
    for (int k = 0; k < n; k++) {
        const char *what = k < RMA_NPERF ? "weft / openmpi (defaults)"
                                         : "weft p99 / weft p99 at N=1";
        char label[BENCH_NAME_MAX + 40];
        snprintf(label, sizeof label, "%.*s: %s", BENCH_NAME_MAX - 1,
                 g[k].name, what);
        if (g[k].value < 0)
            printf("  %-52s %9s   (figures missing)\n", label, "n/a");
        else
            printf("  %-52s %9.3g   goal %s %-4g %s\n", label, g[k].value,
                   g[k].at_most ? "<=" : ">=", g[k].bound,
                   goal_pass(&g[k]) ? "PASS" : "MISS");
    }
    (void)r;
}

/* ----------------------------------------------------- result lines */

static void print_results(const rma_results *r, const goal *g, int ng)
{
    char cname[32];
    bench_stats st;
    for (int v = 0; v < RMA_NVARIANTS; v++) {
        const char *vn = rma_variant_name((rma_variant)v);
        for (int c = 0; c < RMA_NPERF; c++)
            if (perf_stat(r, v, c, &st) == 0)
                bench_print_result(stdout, RMA_BENCH,
                    rma_perf_case_name((rma_perf_case)c), vn,
                    rma_perf_case_is_latency((rma_perf_case)c)
                        ? "latency" : "bandwidth", st.median,
                    rma_perf_case_is_latency((rma_perf_case)c) ? "us"
                                                               : "MB/s");
        for (int i = 0; i < r->n_ns; i++)
            for (int m = 0; m < P_NMETRICS; m++)
                if (prog_stat(r, v, i, m, &st) == 0) {
                    snprintf(cname, sizeof cname, "N=%d", r->ns[i]);
                    bench_print_result(stdout, RMA_BENCH, cname, vn,
                                       prog_metrics[m], st.median,
                                       m == P_STALL ? "ms" : "us");
                }
    }
    for (int k = 0; k < ng; k++)
        if (g[k].value >= 0)
            printf("result: bench=%s case=goal_%s variant=weft metric=ratio "
                   "value=%.4g unit=x goal=%s%g status=%s\n", RMA_BENCH,
                   g[k].name, g[k].value, g[k].at_most ? "<=" : ">=",
                   g[k].bound, goal_pass(&g[k]) ? "PASS" : "MISS");
        else
            printf("result: bench=%s case=goal_%s variant=weft metric=ratio "
                   "value=nan unit=x goal=%s%g status=NA\n", RMA_BENCH,
                   g[k].name, g[k].at_most ? "<=" : ">=", g[k].bound);
}

void rma_report_print(const rma_results *r)
{
    goal g[RMA_NPERF + RMA_MAX_NS];
    int ng = make_goals(r, g);
    print_part1(r);
    print_part2(r);
    print_goals(r, g, ng);
    printf("\n");
    bench_table_print_notes(&r->notes, stdout);
    print_results(r, g, ng);
}

/* -------------------------------------------------------------- CSV */

static void csv_row(FILE *f, const char *cname, int v, const char *metric,
                    bench_stats st, const char *unit, int n)
{
    fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%s,%d\n", RMA_BENCH, cname,
            rma_variant_name((rma_variant)v), metric, st.median, st.min,
            st.max, unit, n);
}

/* Part 1's rows (n = 0), then part 2's by (variant, metric, N): each curve
 * of the chart is a contiguous run of rows. */
int rma_report_csv(const rma_results *r, const char *path)
{
    FILE *f = bench_open_csv(RMA_BENCH, path);
    bench_stats st;
    char cname[32];
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,n\n");
    for (int v = 0; v < RMA_NVARIANTS; v++)
        for (int c = 0; c < RMA_NPERF; c++)
            if (perf_stat(r, v, c, &st) == 0) {
                int lat = rma_perf_case_is_latency((rma_perf_case)c);
                csv_row(f, rma_perf_case_name((rma_perf_case)c), v,
                        lat ? "latency" : "bandwidth", st,
                        lat ? "us" : "MB/s", 0);
            }
    for (int v = 0; v < RMA_NVARIANTS; v++)
        for (int m = 0; m < P_NMETRICS; m++)
            for (int i = 0; i < r->n_ns; i++)
                if (prog_stat(r, v, i, m, &st) == 0) {
                    snprintf(cname, sizeof cname, "N=%d", r->ns[i]);
                    csv_row(f, cname, v, prog_metrics[m], st,
                            m == P_STALL ? "ms" : "us", r->ns[i]);
                }
    return fclose(f) == 0 ? 0 : -1;
}
