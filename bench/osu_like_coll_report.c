/* bench/osu_like, collective latency, the report: one table per collective,
 * a row per rank count and size, with the four variants side by side
 * (median [min-max] over the repeats) and the ratios weft / openmpi (both
 * at their defaults: the goals'), weft / openmpi_tcp and weft / weft_msg
 * (the shared-memory collectives' A/B) of the medians;
 * then the goal lines, the shared-memory segments the jobs mapped, the
 * `result:` lines and the CSV (see osu_like_coll.c for the experiment).
 * Lower is better everywhere.
 */
#include "osu_like_coll.h"

#include <stdio.h>

#define GOAL_ANY    1.2   /* worst weft / openmpi over the sizes */
#define GOAL_SMALL  1.0   /* barrier, bcast, allreduce up to SMALL_BYTES */
#define SMALL_BYTES 1024
#define GOAL_MAX_NP 4     /* goals at 2 and 4 ranks; 8: shown only */

/* ---------------------------------------------------------- lookups */

static const bench_row *find(const olc_results *r, olc_variant v, int npi,
                             olc_coll c, int bytes)
{
    char name[BENCH_NAME_MAX];
    int st = r->state[v][npi];
    if (st == OLC_ST_NOT_RUN || st == OLC_ST_ABSENT)
        return NULL;
    return bench_table_find(&r->tables[v][npi],
                            olc_case(name, sizeof name, c, bytes, olc_np(npi)),
                            olc_variant_name(v));
}

/* weft / ref of the medians, or -1 if either is missing. */
static double ratio_to(const olc_results *r, olc_variant ref, int npi,
                       olc_coll c, int bytes)
{
    const bench_row *w = find(r, OLC_WEFT, npi, c, bytes);
    const bench_row *o = find(r, ref, npi, c, bytes);
    return w && o && o->st.median > 0 ? w->st.median / o->st.median : -1;
}

/* weft / openmpi (defaults): the goals' ratio. */
static double ratio(const olc_results *r, int npi, olc_coll c, int bytes)
{
    return ratio_to(r, OLC_OMPI, npi, c, bytes);
}

/* ------------------------------------------------------- formatting */

#define CELL_W 21

static void print_cell(const bench_row *row, int state)
{
    bench_print_range_cell(stdout, CELL_W, row,
                           state == OLC_ST_ABSENT   ? "not installed"
                           : state == OLC_ST_FAILED ? "failed" : "-");
}

static void print_ratio(double x)
{
    bench_print_ratio_cell(stdout, 10, x);
}

/* ----------------------------------------------------------- tables */

static void print_coll(const olc_results *r, olc_coll c)
{
    const int *sizes;
    int n = olc_sizes(c, r->quick, &sizes);
    printf("\n%s: latency per call, us, mean over the ranks (lower is "
           "better)\n%5s %9s", olc_coll_name(c), "ranks", "size");
    for (int v = 0; v < OLC_NVARIANTS; v++)
        printf(" %*s", CELL_W, olc_variant_name((olc_variant)v));
    printf(" %10s %10s %10s\n", "weft/ompi", "weft/otcp", "weft/wmsg");
    for (int npi = 0; npi < OLC_NNPS; npi++)
        for (int i = 0; i < n; i++) {
            char b[24];
            printf("%5d %9s", olc_np(npi),
                   bench_format_bytes(b, sizeof b, sizes[i]));
            for (int v = 0; v < OLC_NVARIANTS; v++)
                print_cell(find(r, (olc_variant)v, npi, c, sizes[i]),
                           r->state[v][npi]);
            print_ratio(ratio(r, npi, c, sizes[i]));
            print_ratio(ratio_to(r, OLC_OMPI_TCP, npi, c, sizes[i]));
            print_ratio(ratio_to(r, OLC_WEFT_MSG, npi, c, sizes[i]));
            printf("\n");
        }
}

/* ------------------------------------------------------------ goals */

/* The worst ratio of collective c at rank count npi over the sizes up to
 * max_bytes; -1 if a figure is missing. */
static double worst(const olc_results *r, int npi, olc_coll c, int max_bytes,
                    int *at)
{
    const int *sizes;
    int n = olc_sizes(c, r->quick, &sizes);
    double w = 0;
    for (int i = 0; i < n && sizes[i] <= max_bytes; i++) {
        double x = ratio(r, npi, c, sizes[i]);
        if (x < 0)
            return -1;
        if (x > w)
            w = x, *at = sizes[i];
    }
    return w;
}

/* Prints one goal line; returns 1 PASS, 0 MISS, -1 n/a. */
static int goal(const olc_results *r, int npi, olc_coll c, int max_bytes,
                double bound, const char *what)
{
    char label[80], b[24];
    int at = 0;
    double x = worst(r, npi, c, max_bytes, &at);
    snprintf(label, sizeof label, "%s np%d %s", olc_coll_name(c), olc_np(npi),
             what);
    if (x < 0) {
        printf("  %-38s %8s   (%s)\n", label, "n/a",
               r->state[OLC_OMPI][npi] == OLC_ST_ABSENT
                   ? "Open MPI is not installed" : "figures missing");
        return -1;
    }
    printf("  %-38s %8.2f   at %-7s goal <= %-4g %s\n", label, x,
           bench_format_bytes(b, sizeof b, at), bound,
           x <= bound ? "PASS" : "MISS");
    return x <= bound;
}

static void print_goals(const olc_results *r)
{
    int count[3] = {0, 0, 0}; /* n/a, MISS, PASS */
    printf("\ngoals, against Open MPI at its defaults (worst weft / openmpi "
           "ratio of medians over the sizes, same run; %d ranks: no goal):\n",
           olc_np(OLC_NNPS - 1));
    for (int npi = 0; npi < OLC_NNPS && olc_np(npi) <= GOAL_MAX_NP; npi++) {
        for (int c = 0; c < OLC_NCOLLS; c++) {
            int small = c == OLC_BARRIER || c == OLC_BCAST || c == OLC_ALLREDUCE;
            if (c != OLC_BARRIER) /* its one size is 0 B: small only */
                count[1 + goal(r, npi, (olc_coll)c, OLC_MAX_BYTES, GOAL_ANY,
                               "all sizes")]++;
            if (small)
                count[1 + goal(r, npi, (olc_coll)c, SMALL_BYTES, GOAL_SMALL,
                               "<= 1 KiB")]++;
        }
    }
    printf("  goal lines: %d PASS, %d MISS, %d n/a\n", count[2], count[1],
           count[0]);
}

void olc_report_print(const olc_results *r)
{
    for (int c = 0; c < OLC_NCOLLS; c++)
        print_coll(r, (olc_coll)c);
    print_goals(r);
    printf("\n");
    bench_table_print_notes(&r->notes, stdout);
    const char *order[OLC_NVARIANTS];
    for (int v = 0; v < OLC_NVARIANTS; v++)
        order[v] = olc_variant_name((olc_variant)v);
    ms_print(&r->segments, order, OLC_NVARIANTS, "osu_like", stdout);
    for (int v = 0; v < OLC_NVARIANTS; v++)
        for (int npi = 0; npi < OLC_NNPS; npi++)
            bench_table_print_results(&r->tables[v][npi], "osu_like", stdout);
}

/* -------------------------------------------------------------- CSV */

/* Rows by (variant, np, collective, size): each curve of the chart is a
 * contiguous run. Columns 9-11 (collective, bytes, np) are for it. */
int olc_report_csv(const olc_results *r, const char *path)
{
    FILE *f = bench_open_csv("osu_like", path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,coll,bytes,np\n");
    for (int v = 0; v < OLC_NVARIANTS; v++)
        for (int npi = 0; npi < OLC_NNPS; npi++)
            for (int c = 0; c < OLC_NCOLLS; c++) {
                const int *sizes;
                int n = olc_sizes((olc_coll)c, r->quick, &sizes);
                for (int i = 0; i < n; i++) {
                    const bench_row *row = find(r, (olc_variant)v, npi,
                                                (olc_coll)c, sizes[i]);
                    if (row)
                        fprintf(f, "osu_like,%s,%s,%s,%.6g,%.6g,%.6g,%s,%s,%d,%d\n",
                                row->case_name, row->variant, row->metric,
                                row->st.median, row->st.min, row->st.max,
                                row->unit, olc_coll_name((olc_coll)c),
                                sizes[i], olc_np(npi));
                }
            }
    return fclose(f) == 0 ? 0 : -1;
}
