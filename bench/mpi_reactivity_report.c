/* bench/mpi_reactivity, the report: the table (per library: median, p99,
 * mean and round-trip counts at each N), the reference row (figures for
 * Open MPI 4.1.4 measured earlier on these machines), the goal lines, the
 * shared-memory segments the jobs mapped, the `result:` lines and the CSV
 * (see mpi_reactivity.c for the experiment and the goals).
 *
 * Every figure is the median over the repeats of that repeat's statistic;
 * ratios are ratios of those medians.
 */
#include "mpi_reactivity.h"

#include <stdio.h>

#define GOAL_N0_MEDIAN  1.5  /* weft / openmpi median at N = 0, at most */
#define GOAL_MEDIAN_US  10.0 /* weft's median at every N >= 1, at most */
#define GOAL_P99_SPREAD 3.0  /* weft's worst p99 (N >= 1) / p99 at N = 1 */
#define GOAL_N10_P99    100  /* openmpi / weft p99 at N = 10, at least */
#define GOAL_N10_MEAN   10   /* openmpi / weft mean at N = 10, at least */

enum { M_MEDIAN, M_P99, M_MEAN, M_COUNT };
static const char *const metric_names[M_COUNT] = {"rtt_median", "rtt_p99",
                                                  "rtt_mean"};

/* Open MPI 4.1.4's figures measured earlier (shared memory, these
 * machines), us; 0 where none. p99 ~ 4 ms x N; median ~2.3 us at every N. */
static const struct {
    int n;
    double median, p99, mean;
} reference[] = {{0, 2.3, 0, 0},          {1, 2.3, 4000, 250},
                 {2, 2.3, 0, 0},          {5, 2.3, 0, 0},
                 {10, 2.3, 40000, 1900},  {50, 2.3, 206000, 0}};

/* ------------------------------------------------------------ cells */

static double run_metric(const mr_run *run, int m)
{
    return m == M_MEDIAN ? run->median_us : m == M_P99 ? run->p99_us
                                                       : run->mean_us;
}

/* Statistics of metric m over the repeats; 0, or -1 if none. */
static int cell_stat(const mr_cell *c, int m, bench_stats *st)
{
    double v[BENCH_REPEATS_MAX];
    if (!c || c->nruns == 0)
        return -1;
    for (int i = 0; i < c->nruns; i++)
        v[i] = run_metric(&c->runs[i], m);
    *st = bench_stats_of(v, c->nruns);
    return 0;
}

static int cell_count(const mr_cell *c, int *capped)
{
    int total = 0;
    *capped = 0;
    for (int i = 0; i < c->nruns; i++) {
        total += c->runs[i].count;
        *capped |= c->runs[i].capped;
    }
    return total;
}

static const mr_cell *cell_at(const mr_results *r, mr_lib l, int n)
{
    for (int i = 0; i < r->n_ns; i++)
        if (r->ns[i] == n)
            return &r->cells[l][i];
    return NULL;
}

/* Median of metric m, or -1. */
static double value_at(const mr_results *r, mr_lib l, int n, int m)
{
    bench_stats st;
    return cell_stat(cell_at(r, l, n), m, &st) == 0 ? st.median : -1;
}

/* ------------------------------------------------------------ table */

static void print_value(double us)
{
    printf(us < 100 ? " %9.2f" : us < 1000 ? " %9.1f" : " %9.0f", us);
}

static const char *state_text(int state)
{
    return state == MR_ST_ABSENT ? "absent" : state == MR_ST_FAILED
                                                  ? "failed" : "-";
}

/* A row of stall counts, only if a job of library l stalled. */
static void print_stalls(const mr_results *r, mr_lib l)
{
    int any = 0;
    for (int i = 0; i < r->n_ns; i++)
        any |= r->cells[l][i].stalls;
    if (!any)
        return;
    printf("%-10s%-14s", "", "stalled (!)");
    for (int i = 0; i < r->n_ns; i++)
        printf(" %9d", r->cells[l][i].stalls);
    printf("\n");
}

static void print_lib(const mr_results *r, mr_lib l)
{
    for (int m = 0; m < M_COUNT; m++) {
        printf("%-10s%-14s", m == 0 ? mr_lib_name(l) : "",
               metric_names[m] + 4);
        for (int i = 0; i < r->n_ns; i++) {
            bench_stats st;
            if (cell_stat(&r->cells[l][i], m, &st) == 0)
                print_value(st.median);
            else
                printf(" %9s", i >= r->lib_ns[l] ? "not run"
                                                 : state_text(r->state[l]));
        }
        printf("\n");
    }
    printf("%-10s%-14s", "", "round trips");
    for (int i = 0; i < r->n_ns; i++) {
        int capped, n = cell_count(&r->cells[l][i], &capped);
        char text[24];
        snprintf(text, sizeof text, "%d%s", n, capped ? "*" : "");
        printf(" %9s", r->cells[l][i].nruns ? text : "-");
    }
    printf("\n");
    print_stalls(r, l);
}

static double reference_of(int n, int m)
{
    for (size_t k = 0; k < sizeof reference / sizeof *reference; k++)
        if (reference[k].n == n)
            return m == M_MEDIAN ? reference[k].median
                   : m == M_P99  ? reference[k].p99 : reference[k].mean;
    return 0;
}

static void print_reference(const mr_results *r)
{
    printf("reference: Open MPI 4.1.4, measured earlier on these machines "
           "(shared memory)\n");
    for (int m = 0; m < M_COUNT; m++) {
        printf("%-10s%-14s", "", metric_names[m] + 4);
        for (int i = 0; i < r->n_ns; i++) {
            double v = reference_of(r->ns[i], m);
            if (v > 0)
                print_value(v);
            else
                printf(" %9s", "-");
        }
        printf("\n");
    }
}

static void print_table(const mr_results *r)
{
    printf("\nround trip in us, median over repeats\n%-24s", "");
    for (int i = 0; i < r->n_ns; i++) {
        char h[16];
        snprintf(h, sizeof h, "N=%d", r->ns[i]);
        printf(" %9s", h);
    }
    printf("\n");
    for (int l = 0; l < MR_NLIBS; l++)
        print_lib(r, (mr_lib)l);
    printf("(* the time limit ended a case before %d round trips; stalled: "
           "repeats whose job printed nothing for longer than a case can "
           "last, a message lost; not run: Open MPI beyond N = %d, where a "
           "reply waits for N threads' time slices)\n", r->max_rts,
           MR_OMPI_MAX_N);
    print_reference(r);
}

/* ------------------------------------------------------------ goals */

static void goal_line(const char *label, double x, int at_most, double bound,
                      const char *why_na)
{
    if (x < 0) {
        printf("  %-50s %9s   (%s)\n", label, "n/a", why_na);
        return;
    }
    int pass = at_most ? x <= bound : x >= bound;
    printf("  %-50s %9.2f   goal %s %-5g %s\n", label, x,
           at_most ? "<=" : ">=", bound, pass ? "PASS" : "MISS");
}

/* Worst (largest) Weft p99 at N > 1 over Weft's p99 at N = 1. */
static double worst_p99_ratio(const mr_results *r, int *worst_n)
{
    double base = value_at(r, MR_WEFT, 1, M_P99), worst = -1;
    for (int i = 0; base > 0 && i < r->n_ns; i++) {
        double v = value_at(r, MR_WEFT, r->ns[i], M_P99);
        if (r->ns[i] > 1 && v >= 0 && v / base > worst) {
            worst = v / base;
            *worst_n = r->ns[i];
        }
    }
    return worst;
}

/* Worst (largest) Weft median over the N >= 1 measured; -1 if none. */
static double worst_median(const mr_results *r, int *worst_n, int *max_n)
{
    double worst = -1;
    for (int i = 0; i < r->n_ns; i++) {
        double v = value_at(r, MR_WEFT, r->ns[i], M_MEDIAN);
        if (r->ns[i] >= 1 && v >= 0) {
            *max_n = r->ns[i];
            if (v > worst)
                worst = v, *worst_n = r->ns[i];
        }
    }
    return worst;
}

/* Library a's metric m over library b's at N, or -1. */
static double lib_ratio(const mr_results *r, mr_lib a, mr_lib b, int n,
                        int m)
{
    double x = value_at(r, a, n, m), y = value_at(r, b, n, m);
    return x >= 0 && y > 0 ? x / y : -1;
}

static void print_goals(const mr_results *r)
{
    char label[80];
    int worst_n = -1, max_n = -1;
    const char *no_ompi = r->state[MR_OPENMPI] == MR_ST_ABSENT
                              ? "Open MPI is not installed" : "figures missing";
    printf("\ngoals, against Open MPI at its defaults (medians over "
           "repeats):\n");
    goal_line("N=0: weft median / openmpi median",
              lib_ratio(r, MR_WEFT, MR_OPENMPI, 0, M_MEDIAN), 1,
              GOAL_N0_MEDIAN, no_ompi);
    double x = worst_median(r, &worst_n, &max_n);
    snprintf(label, sizeof label, "weft median, us, N=1..%d (worst: N=%d)",
             max_n, worst_n);
    goal_line(x < 0 ? "weft median, us, N>=1" : label, x, 1, GOAL_MEDIAN_US,
              "figures missing");
    x = worst_p99_ratio(r, &worst_n);
    snprintf(label, sizeof label, "weft p99 N>1 / p99 N=1 (worst: N=%d)",
             worst_n);
    goal_line(x < 0 ? "weft p99 N>1 / p99 N=1" : label, x, 1,
              GOAL_P99_SPREAD, "figures missing");
    goal_line("N=10: openmpi p99 / weft p99",
              lib_ratio(r, MR_OPENMPI, MR_WEFT, 10, M_P99), 0, GOAL_N10_P99,
              no_ompi);
    goal_line("N=10: openmpi mean / weft mean",
              lib_ratio(r, MR_OPENMPI, MR_WEFT, 10, M_MEAN), 0,
              GOAL_N10_MEAN, no_ompi);
}

/* ----------------------------------------------------- result lines */

static void print_results(const mr_results *r)
{
    char cname[32];
    bench_stats st;
    for (int l = 0; l < MR_NLIBS; l++)
        for (int i = 0; i < r->n_ns; i++)
            for (int m = 0; m < M_COUNT; m++)
                if (cell_stat(&r->cells[l][i], m, &st) == 0) {
                    snprintf(cname, sizeof cname, "N=%d", r->ns[i]);
                    bench_print_result(stdout, MR_BENCH, cname,
                                       mr_lib_name((mr_lib)l),
                                       metric_names[m], st.median, "us");
                }
}

void mr_report_print(const mr_results *r)
{
    print_table(r);
    print_goals(r);
    printf("\n");
    bench_table_print_notes(&r->notes, stdout);
    const char *order[MR_NLIBS] = {mr_lib_name(MR_WEFT),
                                   mr_lib_name(MR_OPENMPI)};
    ms_print(&r->segments, order, MR_NLIBS, MR_BENCH, stdout);
    print_results(r);
}

/* -------------------------------------------------------------- CSV */

/* One curve: library l, metric m, every N. */
static void csv_curve(FILE *f, const mr_results *r, mr_lib l, int m)
{
    for (int i = 0; i < r->n_ns; i++) {
        bench_stats st;
        int capped, count = cell_count(&r->cells[l][i], &capped);
        if (cell_stat(&r->cells[l][i], m, &st) == 0)
            fprintf(f, "%s,N=%d,%s,%s,%.6g,%.6g,%.6g,us,%d,%d\n", MR_BENCH,
                    r->ns[i], mr_lib_name(l), metric_names[m], st.median,
                    st.min, st.max, r->ns[i], count);
    }
}

/* Rows go by (library, metric, N): each curve of the chart is a
 * contiguous run of rows. */
int mr_report_csv(const mr_results *r, const char *path)
{
    FILE *f = bench_open_csv("mpi_reactivity", path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,n,"
               "round_trips\n");
    for (int l = 0; l < MR_NLIBS; l++)
        for (int m = 0; m < M_COUNT; m++)
            csv_curve(f, r, (mr_lib)l, m);
    return fclose(f) == 0 ? 0 : -1;
}
