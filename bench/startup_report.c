/* bench/startup, the report: per job size and variant, the launches that
 * gave a figure, the wall time (median [min-max] over the repeats, ms),
 * the timeouts and failures, and the ratio of medians to Open MPI's; then
 * the goal rows -- Weft / Open MPI at 64 and 256 ranks (<= 1/5), and the
 * TCP connections per rank of the job over TCP (<= 8) -- with PASS/MISS.
 * PASS/MISS is informative: the exit status reports failed launches only.
 */
#include "startup.h"

#include <stdio.h>

#define METRIC "wall_ms"
#define UNIT   "ms"

void su_report_build(su_results *r)
{
    char cs[16];
    for (int si = 0; si < r->nsizes; si++)
        for (int v = 0; v < SU_NVARS; v++) {
            su_cell *c = &r->cells[si][v];
            su_case_name(cs, sizeof cs, r->sizes[si]);
            if (c->n > 0)
                bench_table_add(&r->table, cs, su_var_name((su_var)v), METRIC,
                                bench_stats_of(c->wall_ms, c->n), UNIT);
            else
                bench_table_add_na(&r->table, cs, su_var_name((su_var)v),
                                   METRIC, UNIT);
        }
    if (r->tcp_max >= 0) {
        bench_stats st = {r->tcp_max, r->tcp_min, r->tcp_max};
        bench_table_add(&r->table, su_case_name(cs, sizeof cs, r->tcp_np),
                        "weft_tcp", "tcp_peers_max", st, "connections");
    }
}

static const bench_row *find(const su_results *r, int np, su_var v)
{
    char cs[16];
    return bench_table_find(&r->table, su_case_name(cs, sizeof cs, np),
                            su_var_name(v));
}

/* Median of v over Open MPI's at np ranks; -1 if either is missing. */
static double ratio_to_openmpi(const su_results *r, int np, su_var v)
{
    const bench_row *a = find(r, np, v), *b = find(r, np, SU_OPENMPI);
    return a && b && b->st.median > 0 ? a->st.median / b->st.median : -1;
}

static void print_row(const su_results *r, int si, su_var v)
{
    const su_cell *c = &r->cells[si][v];
    const char *missing = r->absent[v] ? "skipped"
                          : c->timeouts > 0 ? "timeout" : "n/a";
    printf("%6d %-17s %3d", r->sizes[si], su_var_name(v), c->n);
    bench_print_range_cell(stdout, 26, find(r, r->sizes[si], v), missing);
    printf(" %4d %4d", c->timeouts, c->failures);
    bench_print_ratio_cell(stdout, 10,
                           v == SU_OPENMPI ? -1
                           : ratio_to_openmpi(r, r->sizes[si], v));
    printf("\n");
}

static void print_time_goals(const su_results *r)
{
    char label[64];
    if (r->sizes[r->nsizes - 1] < 64)
        printf("(time goals: no job of 64 or more ranks in this run)\n");
    for (int si = 0; si < r->nsizes; si++) {
        int np = r->sizes[si];
        if (np < 64)
            continue;
        snprintf(label, sizeof label, "weft / openmpi, %d ranks", np);
        double ratio = ratio_to_openmpi(r, np, SU_WEFT);
        if (ratio < 0)
            printf("%-34s n/a (a figure is missing, see the table)\n", label);
        else
            bench_print_ratio_goal(stdout, label, ratio, SU_GOAL_RATIO);
    }
}

static void print_tcp_goal(const su_results *r)
{
    char label[64];
    snprintf(label, sizeof label, "tcp connections/rank, %d ranks",
             r->tcp_np);
    if (r->tcp_max < 0) {
        printf("%-34s n/a (the TCP job failed, see above)\n", label);
        return;
    }
    printf("%-34s max %d (min %d), goal <= %d   %s\n", label, r->tcp_max,
           r->tcp_min, SU_TCP_GOAL, r->tcp_max <= SU_TCP_GOAL ? "PASS"
           : "MISS");
    printf("  (WEFT_MPI_TRANSPORT=tcp, one launch of %.1f s with the "
           "count)\n", r->tcp_wall_ms / 1e3);
}

void su_report_print(const su_results *r)
{
    printf("\nWall time of mpirun, fork to exit, ms (median [min-max] over "
           "the repeats)\n");
    printf("%6s %-17s %3s %26s %4s %4s %10s\n", "ranks", "variant", "n",
           "wall ms", "tmo", "fail", "/openmpi");
    for (int si = 0; si < r->nsizes; si++)
        for (int v = 0; v < SU_NVARS; v++)
            print_row(r, si, (su_var)v);
    printf("\nGoals (informative, not tested):\n");
    print_time_goals(r);
    print_tcp_goal(r);
    bench_table_print_notes(&r->table, stdout);
    bench_table_print_results(&r->table, SU_BENCH, stdout);
}
