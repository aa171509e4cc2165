/* bench/mpi_idle, the report: per scenario and library, the waiting
 * rank's CPU as a percentage of one CPU (median [min-max] over the
 * repeats), the wait's wall time, and the goal column -- Weft's goal
 * (<= 2 %) with PASS/FAIL, the Open MPI figure beside Open MPI.
 * PASS/FAIL is informative: the exit status reports failed runs only.
 */
#include "mpi_idle.h"

#include <stdio.h>

#define METRIC "cpu_percent"
#define UNIT   "percent"

void mi_report_build(mi_results *r)
{
    for (int s = 0; s < MI_NSCENS; s++)
        for (int l = 0; l < MI_NLIBS; l++) {
            mi_cell *c = &r->cells[s][l];
            const char *cs = mi_scen_name((mi_scen)s);
            const char *v = mi_lib_name((mi_lib)l);
            double pct[BENCH_REPEATS_MAX];
            for (int i = 0; i < c->n; i++)
                pct[i] = c->cpu_pct[i]; /* bench_stats_of sorts */
            if (c->n > 0)
                bench_table_add(&r->table, cs, v, METRIC,
                                bench_stats_of(pct, c->n), UNIT);
            else
                bench_table_add_na(&r->table, cs, v, METRIC, UNIT);
        }
}

/* Median wall time of a cell's waits, in s; -1 without waits. */
static double wall_s(const mi_cell *c)
{
    double w[BENCH_REPEATS_MAX];
    for (int i = 0; i < c->n; i++)
        w[i] = c->wall_ms[i];
    return c->n > 0 ? bench_stats_of(w, c->n).median / 1e3 : -1;
}

static void print_goal(mi_lib l, const bench_row *row)
{
    if (l == MI_OPENMPI)
        printf("  %-8s %s\n", "ref", "issue: ~96 %");
    else if (!row)
        printf("  %-8s %s\n", "<= 2 %", "n/a");
    else
        printf("  %-8s %s\n", "<= 2 %",
               row->st.median <= MI_GOAL_PERCENT ? "PASS" : "FAIL");
}

static void print_row(const mi_results *r, mi_scen s, mi_lib l)
{
    const mi_cell *c = &r->cells[s][l];
    const bench_row *row = bench_table_find(&r->table, mi_scen_name(s),
                                            mi_lib_name(l));
    printf("%-8s %-8s %3d", mi_scen_name(s), mi_lib_name(l), c->n);
    bench_print_range_cell(stdout, 24, row,
                           r->absent[l] ? "skipped" : "n/a");
    if (c->n > 0)
        printf(" %8.2f", wall_s(c));
    else
        printf(" %8s", "-");
    print_goal(l, row);
}

void mi_report_print(const mi_results *r)
{
    printf("\nCPU of the rank waiting in MPI_Recv, %% of one CPU "
           "(median [min-max] over the repeats)\n");
    printf("%-8s %-8s %3s %24s %8s  %-8s %s\n", "scenario", "variant",
           "n", "cpu %", "wait s", "goal", "result");
    for (int s = 0; s < MI_NSCENS; s++)
        for (int l = 0; l < MI_NLIBS; l++)
            print_row(r, (mi_scen)s, (mi_lib)l);
    printf("(PASS/FAIL is informative; load: %d busy-loop processes beside "
           "the job)\n", r->load_procs);
    bench_table_print_notes(&r->table, stdout);
    bench_table_print_results(&r->table, MI_BENCH, stdout);
}
