/* bench/reactivity, report: the paper-style table (round trip vs N for each
 * variant, the paper's Table 1 rows beside ours), the floors, the idle
 * CPU, the goal lines, the `result:` lines and the CSV.
 *
 * A figure is the median over the repeats of a per-repeat statistic
 * (median, p99 or mean of that repeat's round trips); min and max over the
 * repeats go to the CSV. Cases that were not run or produced no round trip
 * print "-", never a number. Round-trip counts are summed over repeats;
 * "*" marks a case stopped by its time limit before its round-trip count,
 * "!" one where a reply never came within the grace time.
 */
#include "reactivity.h"


enum { M_MEDIAN, M_P99, M_MEAN, M_COUNT };

static const char *const metric_names[M_COUNT] = {"rtt_median", "rtt_p99",
                                                  "rtt_mean"};

/* The paper's Table 1 (ms, mean of many runs), N = 0, 1, 2, 5, 10. */
static const int paper_ns[5] = {0, 1, 2, 5, 10};
static const double paper_naive[5] = {0.130, 5.011, 10.022, 25.010, 50.010};
static const double paper_enhanced[5] = {0.134, 4.846, 4.837, 5.471, 4.848};
static const double paper_blocking[5] = {0.451, 0.453, 0.452, 0.457, 0.453};

/* ---------------------------------------------------------- cell stats */

static double run_metric(const rx_run *run, int m)
{
    return m == M_MEDIAN ? run->median_us : m == M_P99 ? run->p99_us
                                                       : run->mean_us;
}

/* Statistics of metric m over the repeats with data; 0, or -1 if none. */
static int cell_stat(const rx_cell *c, int m, bench_stats *st)
{
    double v[BENCH_REPEATS_MAX];
    int n = 0;
    for (int i = 0; c && i < c->nruns; i++)
        if (c->runs[i].count > 0)
            v[n++] = run_metric(&c->runs[i], m);
    if (n == 0)
        return -1;
    *st = bench_stats_of(v, n);
    return 0;
}

static int cell_count(const rx_cell *c, int *capped, int *lost)
{
    int total = 0;
    *capped = *lost = 0;
    for (int i = 0; i < c->nruns; i++) {
        total += c->runs[i].count;
        *capped |= c->runs[i].capped;
        *lost |= c->runs[i].lost;
    }
    return total;
}

static int n_index(const rx_results *r, int n)
{
    for (int i = 0; i < r->n_ns; i++)
        if (r->ns[i] == n)
            return i;
    return -1;
}

static const rx_cell *cell_at(const rx_results *r, int qi, rx_variant v, int n)
{
    int i = n_index(r, n);
    return i < 0 || qi >= r->n_quanta ? NULL : &r->cells[qi][v][i];
}

const char *rx_quantum_label(char *buf, size_t size, int64_t quantum_us)
{
    snprintf(buf, size, "%g", (double)quantum_us / 1000);
    return buf;
}

/* ---------------------------------------------------------- the grid */

static void print_value(double us)
{
    printf(us < 1000 ? " %9.1f" : " %9.0f", us);
}

static void print_cell_value(const rx_cell *c, int m)
{
    bench_stats st;
    int capped, lost;
    cell_count(c, &capped, &lost);
    if (cell_stat(c, m, &st) == 0)
        print_value(st.median);
    else
        printf(" %9s", lost ? "timeout" : c->failed ? "failed"
                       : c->skipped ? "not run" : "-");
}

static void print_counts(const rx_results *r, const rx_cell *row)
{
    printf("%-10s%-14s", "", "round trips");
    for (int i = 0; i < r->n_ns; i++) {
        int capped, lost, n = cell_count(&row[i], &capped, &lost);
        char text[24];
        snprintf(text, sizeof text, "%d%s%s", n, capped ? "*" : "",
                 lost ? "!" : "");
        printf(" %9s", row[i].nruns ? text : "-");
    }
    printf("\n");
}

static void print_variant(const rx_results *r, int qi, rx_variant v)
{
    const rx_cell *row = r->cells[qi][v];
    for (int m = 0; m < M_COUNT; m++) {
        printf("%-10s%-14s", m == 0 ? rx_variant_name(v) : "",
               metric_names[m] + 4);
        for (int i = 0; i < r->n_ns; i++)
            print_cell_value(&row[i], m);
        printf("\n");
    }
    print_counts(r, row);
}

static void print_paper_row(const rx_results *r, const char *label,
                            const double *ms)
{
    printf("  %-22s", label);
    for (int i = 0; i < r->n_ns; i++) {
        int k = 0;
        while (k < 5 && paper_ns[k] != r->ns[i])
            k++;
        if (k < 5)
            print_value(ms[k] * 1000);
        else
            printf(" %9s", "-");
    }
    printf("\n");
}

static void print_grid(const rx_results *r, int qi)
{
    char q[32];
    rx_quantum_label(q, sizeof q, r->quanta_us[qi]);
    printf("\nq=%s ms: round trip in us, median over repeats "
           "(paper: mean of many runs, its ms x 1000)\n%-24s", q, "");
    for (int i = 0; i < r->n_ns; i++) {
        char h[16];
        snprintf(h, sizeof h, "N=%d", r->ns[i]);
        printf(" %9s", h);
    }
    printf("\n");
    static const double *const paper[] = {paper_naive, paper_enhanced,
                                          paper_blocking, NULL};
    static const char *const paper_label[] = {
        "paper naive", "paper enhanced", "paper blocking calls", NULL};
    for (int v = RX_NAIVE; v < RX_NVARIANTS; v++) {
        print_variant(r, qi, (rx_variant)v);
        if (paper[v - RX_NAIVE])
            print_paper_row(r, paper_label[v - RX_NAIVE], paper[v - RX_NAIVE]);
    }
}

static void print_floors(const rx_results *r)
{
    printf("\nfloors, no compute, round trip in us:%9s %9s %9s   round trips\n",
           "median", "p99", "mean");
    for (int f = 0; f < 2; f++) {
        int capped, lost;
        printf("  %-35s", rx_variant_name((rx_variant)f));
        for (int m = 0; m < M_COUNT; m++)
            print_cell_value(&r->floors[f], m);
        printf("   %d\n", cell_count(&r->floors[f], &capped, &lost));
    }
}

static void print_idle(const rx_results *r)
{
    printf("\nidle server (echo thread waiting, no compute, no traffic, "
           "1 s): process CPU\n");
    for (int v = RX_NAIVE; v < RX_NVARIANTS; v++)
        if (r->idle_cpu[v] >= 0)
            printf("  %-35s %8.2f %%\n", rx_variant_name((rx_variant)v),
                   r->idle_cpu[v]);
}

/* --------------------------------------------------------------- goals */

static void goal_line(const char *label, double value, int at_most,
                      double bound)
{
    int pass = at_most ? value <= bound : value >= bound;
    printf("  %-52s %9.2f   goal %s %-5g %s\n", label, value,
           at_most ? "<=" : ">=", bound, pass ? "PASS" : "MISS");
}

static void goal_na(const char *label, const char *why)
{
    printf("  %-52s %9s   (%s)\n", label, "n/a", why);
}

/* Ratio of metric m of two cells, or -1 if either has no data. */
static double ratio_of(const rx_cell *a, const rx_cell *b, int m)
{
    bench_stats x, y;
    if (cell_stat(a, m, &x) != 0 || cell_stat(b, m, &y) != 0 || y.median <= 0)
        return -1;
    return x.median / y.median;
}

static void simple_goal(const char *label, double ratio, int at_most,
                        double bound, const char *why)
{
    if (ratio < 0)
        goal_na(label, why);
    else
        goal_line(label, ratio, at_most, bound);
}

/* Worst ratio over N (>= n_min) of adaptive metric m against `base`. */
static double worst_ratio(const rx_results *r, int m, const rx_cell *base,
                          int n_min, int *worst_n)
{
    double worst = -1;
    for (int i = 0; i < r->n_ns; i++) {
        if (r->ns[i] < n_min)
            continue;
        double x = ratio_of(&r->cells[0][RX_ADAPTIVE][i], base, m);
        if (x > worst) {
            worst = x;
            *worst_n = r->ns[i];
        }
    }
    return worst;
}

static void print_worst_goal(const rx_results *r, const char *what, int m,
                             const rx_cell *base, int n_min, double bound)
{
    char label[96];
    int worst_n = -1;
    double x = worst_ratio(r, m, base, n_min, &worst_n);
    snprintf(label, sizeof label, "%s (worst: N=%d)", what, worst_n);
    simple_goal(x < 0 ? what : label, x, 1, bound, "figures missing");
}

static void print_goals(const rx_results *r)
{
    const rx_cell *a1 = cell_at(r, 0, RX_ADAPTIVE, 1);
    printf("\ngoals (adaptive, q=10 ms; ratios of medians over repeats):\n");
    simple_goal("median N=1000 / median N=1",
                ratio_of(cell_at(r, 0, RX_ADAPTIVE, 1000), a1, M_MEDIAN), 1,
                1.5, "N=1000 or N=1 not measured");
    print_worst_goal(r, "p99 N>=1 / p99 N=1", M_P99, a1, 1, 3);
    simple_goal("median N=0 / raw_busy median",
                ratio_of(cell_at(r, 0, RX_ADAPTIVE, 0), &r->floors[1],
                         M_MEDIAN), 1, 1.5, "figures missing");
    print_worst_goal(r, "median N / raw_block median", M_MEDIAN,
                     &r->floors[0], 0, 2);
    simple_goal("naive median / adaptive median at N=10",
                ratio_of(cell_at(r, 0, RX_NAIVE, 10),
                         cell_at(r, 0, RX_ADAPTIVE, 10), M_MEDIAN), 0, 100,
                "N=10 not measured");
}

void rx_report_print(const rx_results *r)
{
    print_floors(r);
    for (int qi = 0; qi < r->n_quanta; qi++)
        print_grid(r, qi);
    printf("(* stopped by the time limit before the round-trip count; "
           "! a reply never came within the grace time: not counted)\n");
    print_idle(r);
    print_goals(r);
    printf("\n");
    bench_table_print_notes(&r->notes, stdout);
}

/* ------------------------------------------------ result lines and CSV */

static void case_name(char *buf, size_t size, int n, int64_t quantum_us)
{
    char q[32];
    snprintf(buf, size, "N=%d,q=%s", n, rx_quantum_label(q, sizeof q,
                                                         quantum_us));
}

static void cell_results(const rx_cell *c, const char *cname, rx_variant v)
{
    bench_stats st;
    for (int m = 0; m < M_COUNT; m++)
        if (cell_stat(c, m, &st) == 0)
            bench_print_result(stdout, RX_BENCH, cname, rx_variant_name(v),
                               metric_names[m], st.median, "us");
}

void rx_report_results(const rx_results *r)
{
    char cname[64];
    for (int f = 0; f < 2; f++)
        cell_results(&r->floors[f], "floor", (rx_variant)f);
    for (int qi = 0; qi < r->n_quanta; qi++)
        for (int v = RX_NAIVE; v < RX_NVARIANTS; v++)
            for (int i = 0; i < r->n_ns; i++) {
                case_name(cname, sizeof cname, r->ns[i], r->quanta_us[qi]);
                cell_results(&r->cells[qi][v][i], cname, (rx_variant)v);
            }
    for (int v = RX_NAIVE; v < RX_NVARIANTS; v++)
        if (r->idle_cpu[v] >= 0)
            bench_print_result(stdout, RX_BENCH, "idle",
                               rx_variant_name((rx_variant)v), "cpu_percent",
                               r->idle_cpu[v], "percent");
}

/* CSV columns: bench,case,variant,metric,median,min,max,unit (as
 * bench_util's) then n,q_ms,round_trips for the chart; `case` is quoted
 * because it holds a comma. Rows go by (quantum, variant, metric, N), so
 * that each curve of the chart is a contiguous run of rows. */
static void csv_row(FILE *f, const rx_cell *c, int m, const char *cname,
                    rx_variant v, const char *n, const char *q)
{
    bench_stats st;
    int capped, lost, count = cell_count(c, &capped, &lost);
    if (cell_stat(c, m, &st) == 0)
        fprintf(f, "%s,\"%s\",%s,%s,%.6g,%.6g,%.6g,us,%s,%s,%d\n", RX_BENCH,
                cname, rx_variant_name(v), metric_names[m], st.median, st.min,
                st.max, n, q, count);
}

static void csv_curve(FILE *f, const rx_results *r, int qi, rx_variant v,
                      int m)
{
    char cname[64], n[16], q[32];
    rx_quantum_label(q, sizeof q, r->quanta_us[qi]);
    for (int i = 0; i < r->n_ns; i++) {
        case_name(cname, sizeof cname, r->ns[i], r->quanta_us[qi]);
        snprintf(n, sizeof n, "%d", r->ns[i]);
        csv_row(f, &r->cells[qi][v][i], m, cname, v, n, q);
    }
}

static void csv_all_cells(FILE *f, const rx_results *r)
{
    for (int fl = 0; fl < 2; fl++)
        for (int m = 0; m < M_COUNT; m++)
            csv_row(f, &r->floors[fl], m, "floor", (rx_variant)fl, "", "");
    for (int qi = 0; qi < r->n_quanta; qi++)
        for (int v = RX_NAIVE; v < RX_NVARIANTS; v++)
            for (int m = 0; m < M_COUNT; m++)
                csv_curve(f, r, qi, (rx_variant)v, m);
    for (int v = RX_NAIVE; v < RX_NVARIANTS; v++)
        if (r->idle_cpu[v] >= 0)
            fprintf(f, "%s,idle,%s,cpu_percent,%.6g,%.6g,%.6g,percent,,,\n",
                    RX_BENCH, rx_variant_name((rx_variant)v), r->idle_cpu[v],
                    r->idle_cpu[v], r->idle_cpu[v]);
}

int rx_report_csv(const rx_results *r, const char *path)
{
    FILE *f = bench_open_csv("reactivity", path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,n,q_ms,"
               "round_trips\n");
    csv_all_cells(f, r);
    return fclose(f) == 0 ? 0 : -1;
}
