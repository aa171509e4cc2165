/* bench/clam, report: the paper's layout (work done and packet loss against
 * the inter-arrival time, one row per schedule; the same against rho for
 * the Markov source), packets received, CPU, the receive thread's
 * activations and adaptive slices beside the one slice the paper's text
 * quotes, the goal lines, the `result:` lines and the CSV.
 *
 * A figure is the median over the repeats [min-max]. Work is in percent of
 * the baseline measured at the same point in the same repeat, per second
 * of the worker's CPU time: the paper corrects its work figures for the
 * time the OS gives other processes, and on a shared machine the wall-time
 * figure (also printed) moves with the neighbours' load more than with
 * the schedule; what Weft's helper threads cost besides is its own row.
 * Loss is in datagrams per second, the paper's unit, and in percent. The
 * paper's figures are plots whose values its text does not give, except
 * the SANR slice of about 150 ms when datagrams come every 100 ms (1.5 ms
 * at 1 ms here); with its one work thread that is also the time between
 * two activations, the reference row under that table.
 */
#include "clam.h"

#include <string.h>

#define GOAL_WORK_PCT 90.0
#define CELL_WIDTH    19
#define PAPER_SANR_SLICE_US (150000.0 / CLAM_SCALE) /* at 100 ms, scaled */
#define PAPER_SANR_SLICE_IA_NS (100000000LL / CLAM_SCALE)

enum { M_WORK_CPU, M_WORK, M_RX, M_LOST, M_LOSS_PCT, M_CPU, M_HELPER_CPU,
       M_PERIOD, M_SLICE, M_WORK_ABS, M_SENT, M_COUNT };

static const char *const metric_names[M_COUNT] = {
    "work_cpu_pct", "work_pct",       "received_per_s", "lost_per_s",
    "loss_pct",     "cpu_pct",        "helper_cpu_pct", "period_us",
    "slice_us",     "work_per_s",     "sent_per_s"};
static const char *const metric_units[M_COUNT] = {
    "percent", "percent", "pkt/s", "pkt/s", "percent", "percent",
    "percent", "us",      "us",    "ops/s", "pkt/s"};

/* ---------------------------------------------------------- cell stats */

static double run_metric(const clam_run *run, int m)
{
    switch (m) {
    case M_WORK: return run->efficiency;
    case M_WORK_CPU: return run->efficiency_cpu;
    case M_RX: return run->rx_per_s;
    case M_LOST: return run->lost_per_s;
    case M_LOSS_PCT: return run->loss_pct;
    case M_CPU: return run->cpu_pct;
    case M_HELPER_CPU: return run->helper_cpu_pct;
    case M_PERIOD: return run->period_us;
    case M_SLICE: return run->slice_us;
    case M_WORK_ABS: return run->work_per_s;
    default: return run->sent_per_s;
    }
}

/* Whether metric m means something for schedule s. */
static int metric_applies(clam_strategy s, int m)
{
    if (s == CLAM_NONE)
        return m == M_WORK_ABS || m == M_CPU || m == M_HELPER_CPU;
    if (s == CLAM_UNREAD)
        return m == M_WORK_CPU || m == M_WORK || m == M_CPU;
    if (m == M_SLICE)
        return s == CLAM_SANR || s == CLAM_SAINR;
    return 1;
}

/* Statistics of metric m over the repeats with data; 0, or -1 if none. */
static int cell_stat(const clam_cell *c, int m, bench_stats *st)
{
    double v[BENCH_REPEATS_MAX];
    int n = 0;
    for (int i = 0; i < c->nruns; i++)
        if (c->runs[i].ok && run_metric(&c->runs[i], m) >= 0)
            v[n++] = run_metric(&c->runs[i], m);
    if (n == 0)
        return -1;
    *st = bench_stats_of(v, n);
    return 0;
}

static const clam_cell *cell(const clam_results *r, int ai, clam_strategy s)
{
    return &r->cells[ai][s];
}

/* ----------------------------------------------------------- the grids */

static void print_cell(const clam_cell *c, int m)
{
    bench_stats st;
    char text[64];
    if (cell_stat(c, m, &st) == 0)
        printf(" %*s", CELL_WIDTH, bench_format_range(text, sizeof text, st));
    else
        printf(" %*s", CELL_WIDTH, c->failed ? "failed" : "-");
}

static void print_columns(const clam_results *r, clam_arrival_kind kind)
{
    printf("%-10s", "");
    for (int ai = 0; ai < r->n_arrivals; ai++) {
        const clam_arrival *a = &r->arrivals[ai];
        char h[32];
        if (a->kind != kind)
            continue;
        if (kind == CLAM_POISSON)
            snprintf(h, sizeof h, "ia=%lld us", (long long)(a->mean_ns / 1000));
        else
            snprintf(h, sizeof h, "rho=%g", a->rho);
        printf(" %*s", CELL_WIDTH, h);
    }
    printf("\n");
}

static void print_row(const clam_results *r, clam_arrival_kind kind,
                      clam_strategy s, int m)
{
    printf("%-10s", clam_strategy_name(s));
    for (int ai = 0; ai < r->n_arrivals; ai++)
        if (r->arrivals[ai].kind == kind)
            print_cell(cell(r, ai, s), m);
    printf("\n");
}

static int has_kind(const clam_results *r, clam_arrival_kind kind)
{
    for (int ai = 0; ai < r->n_arrivals; ai++)
        if (r->arrivals[ai].kind == kind)
            return 1;
    return 0;
}

static void print_grid(const clam_results *r, clam_arrival_kind kind, int m,
                       const char *title)
{
    printf("\n%s\n", title);
    print_columns(r, kind);
    for (int s = 0; s < CLAM_NSTRATEGIES; s++)
        if (metric_applies((clam_strategy)s, m))
            print_row(r, kind, (clam_strategy)s, m);
}

/* The paper's one quoted slice, under the column it belongs to: with its
 * single work thread the slice is the time between activations. */
static void print_paper_period(const clam_results *r)
{
    printf("%-10s", "paper SANR");
    for (int ai = 0; ai < r->n_arrivals; ai++) {
        const clam_arrival *a = &r->arrivals[ai];
        if (a->kind != CLAM_POISSON)
            continue;
        if (a->mean_ns == PAPER_SANR_SLICE_IA_NS)
            printf(" %*.0f", CELL_WIDTH, PAPER_SANR_SLICE_US);
        else
            printf(" %*s", CELL_WIDTH, "");
    }
    printf("  (its text: a slice of ~150 ms at 100 ms, one work thread)\n");
}

static void print_kind(const clam_results *r, clam_arrival_kind kind)
{
    const char *what = kind == CLAM_POISSON
        ? "Poisson arrivals, by mean inter-arrival time (paper Figs. 3, 5, 7-9)"
        : "Markov arrivals (H 100 us / L 1 ms), by correlation rho (paper "
          "Figs. 10, 11)";
    if (!has_kind(r, kind))
        return;
    printf("\n== %s ==\n", what);
    print_grid(r, kind, M_WORK_CPU, "work done per second of the worker's CPU, "
               "% of the no-traffic baseline's (the paper's correction for "
               "OS context switches; the goal's figure), median [min-max]:");
    print_grid(r, kind, M_WORK, "work done per second of wall time, % of the "
               "baseline's (moves with the other tenants' load):");
    print_grid(r, kind, M_RX, "packets received per second:");
    print_grid(r, kind, M_LOST, "packets lost per second:");
    print_grid(r, kind, M_LOSS_PCT, "packets lost, % of those sent:");
    print_grid(r, kind, M_CPU, "receiver process CPU, % of one CPU (none: "
               "the work threads alone; under 100: other tenants ran):");
    print_grid(r, kind, M_HELPER_CPU, "CPU of Weft's helper threads (process "
               "minus worker), % of one CPU:");
    print_grid(r, kind, M_PERIOD, "time between two activations of the "
               "receive thread, us:");
    if (kind == CLAM_POISSON)
        print_paper_period(r);
    print_grid(r, kind, M_SLICE,
               "adaptive slice T, mean over activations, us:");
}

static void print_baseline(const clam_results *r)
{
    printf("\nbaseline (work threads alone, no traffic): CopyBuffer ops/s\n");
    print_columns(r, CLAM_POISSON);
    print_row(r, CLAM_POISSON, CLAM_NONE, M_WORK_ABS);
    if (!has_kind(r, CLAM_MARKOV))
        return;
    print_columns(r, CLAM_MARKOV);
    print_row(r, CLAM_MARKOV, CLAM_NONE, M_WORK_ABS);
}

/* --------------------------------------------------------------- goals */

typedef struct goal {
    double value, bound;
    int pass, valid;
    clam_strategy best; /* the loss goal: the paper's best here */
} goal;

/* The paper's schedule with the fewest losses (median) at point ai. */
static goal loss_goal(const clam_results *r, int ai)
{
    goal g = {.valid = 0, .bound = -1};
    bench_stats st, mine;
    for (int s = CLAM_FIRST_PAPER; s < CLAM_NSTRATEGIES; s++)
        if (cell_stat(cell(r, ai, (clam_strategy)s), M_LOST, &st) == 0 &&
            (g.bound < 0 || st.median < g.bound)) {
            g.bound = st.median;
            g.best = (clam_strategy)s;
        }
    if (g.bound >= 0 &&
        cell_stat(cell(r, ai, CLAM_DEFAULT), M_LOST, &mine) == 0) {
        g.valid = 1;
        g.value = mine.median;
        g.pass = g.value <= g.bound;
    }
    return g;
}

static goal work_goal(const clam_results *r, int ai)
{
    goal g = {.valid = 0, .bound = GOAL_WORK_PCT};
    bench_stats st;
    if (cell_stat(cell(r, ai, CLAM_DEFAULT), M_WORK_CPU, &st) == 0) {
        g.valid = 1;
        g.value = st.median;
        g.pass = g.value >= g.bound;
    }
    return g;
}

static void print_goal(const char *label, const char *point, goal g,
                       const char *unit, const char *cmp, const char *ref)
{
    char what[96];
    snprintf(what, sizeof what, "%s at %s", label, point);
    if (!g.valid) {
        printf("  %-44s %9s   (figures missing)\n", what, "n/a");
        return;
    }
    printf("  %-44s %9.2f %-6s goal %s %.2f%s  %s\n", what, g.value, unit,
           cmp, g.bound, ref, g.pass ? "PASS" : "MISS");
}

static void print_goals(const clam_results *r, int *passed, int *total)
{
    char point[48], ref[48];
    printf("\ngoals (Weft's default; medians over repeats):\n");
    for (int ai = 0; ai < r->n_arrivals; ai++) {
        clam_arrival_label(point, sizeof point, &r->arrivals[ai]);
        goal l = loss_goal(r, ai), w = work_goal(r, ai);
        snprintf(ref, sizeof ref, " (%s)",
                 l.valid ? clam_strategy_name(l.best) : "-");
        print_goal("loss <= paper's best", point, l, "pkt/s", "<=", ref);
        print_goal("work", point, w, "%", ">=", "");
        *passed += (l.valid && l.pass) + (w.valid && w.pass);
        *total += 2;
    }
}

void clam_report_print(const clam_results *r)
{
    int passed = 0, total = 0;
    print_baseline(r);
    print_kind(r, CLAM_POISSON);
    print_kind(r, CLAM_MARKOV);
    print_goals(r, &passed, &total);
    printf("  %d of %d goals met\n\n", passed, total);
    bench_table_print_notes(&r->notes, stdout);
}

/* ------------------------------------------------ result lines and CSV */

static void goal_result(const char *point, const char *metric, goal g,
                        const char *unit)
{
    if (g.valid)
        printf("result: bench=%s case=%s variant=default metric=%s value=%.6g "
               "unit=%s goal=%.6g status=%s\n", CLAM_BENCH, point, metric,
               g.value, unit, g.bound, g.pass ? "PASS" : "MISS");
}

void clam_report_results(const clam_results *r)
{
    char point[48];
    bench_stats st;
    int met = 0, total = 0;
    for (int ai = 0; ai < r->n_arrivals; ai++) {
        clam_arrival_label(point, sizeof point, &r->arrivals[ai]);
        for (int s = 0; s < CLAM_NSTRATEGIES; s++)
            for (int m = 0; m < M_COUNT; m++)
                if (metric_applies((clam_strategy)s, m) &&
                    cell_stat(cell(r, ai, (clam_strategy)s), m, &st) == 0)
                    bench_print_result(stdout, CLAM_BENCH, point,
                                       clam_strategy_name((clam_strategy)s),
                                       metric_names[m], st.median,
                                       metric_units[m]);
        goal_result(point, "goal_loss_vs_paper_best", loss_goal(r, ai),
                    "pkt/s");
        goal_result(point, "goal_work_pct", work_goal(r, ai), "percent");
        goal l = loss_goal(r, ai), w = work_goal(r, ai);
        met += (l.valid && l.pass) + (w.valid && w.pass);
        total += 2;
    }
    printf("result: bench=%s case=all variant=default metric=goals_met "
           "value=%d unit=goals of=%d status=%s\n", CLAM_BENCH, met, total,
           met == total ? "PASS" : "MISS");
}

/* CSV columns: bench,case,variant,metric,median,min,max,unit (as
 * bench_util's) then kind,x (x: inter-arrival in us, or rho) for the chart.
 * Rows go by (kind, variant, metric, x), so each curve is contiguous. */
static void csv_cell(FILE *f, const clam_results *r, int ai, clam_strategy s,
                     int m)
{
    bench_stats st;
    char point[48];
    const clam_arrival *a = &r->arrivals[ai];
    if (!metric_applies(s, m) || cell_stat(cell(r, ai, s), m, &st) != 0)
        return;
    fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%s,%s,%g\n", CLAM_BENCH,
            clam_arrival_label(point, sizeof point, a), clam_strategy_name(s),
            metric_names[m], st.median, st.min, st.max, metric_units[m],
            a->kind == CLAM_POISSON ? "poisson" : "markov",
            a->kind == CLAM_POISSON ? (double)a->mean_ns / 1000 : a->rho);
}

int clam_report_csv(const clam_results *r, const char *path)
{
    FILE *f = bench_open_csv(CLAM_BENCH, path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,kind,x\n");
    for (int kind = CLAM_POISSON; kind <= CLAM_MARKOV; kind++)
        for (int s = 0; s < CLAM_NSTRATEGIES; s++)
            for (int m = 0; m < M_COUNT; m++)
                for (int ai = 0; ai < r->n_arrivals; ai++)
                    if ((int)r->arrivals[ai].kind == kind)
                        csv_cell(f, r, ai, (clam_strategy)s, m);
    return fclose(f) == 0 ? 0 : -1;
}
