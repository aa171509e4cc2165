/* bench/osu_like, the report: one table per kind with the five variants
 * side by side (median [min-max] over the repeats) and three ratios --
 * weft / openmpi (both at their defaults, shared memory: the goals'),
 * weft_tcp / openmpi_tcp (both over TCP) and weft_tcp / raw_tcp (Weft's
 * TCP transport against the floor) -- then the goal lines, the
 * shared-memory segments the jobs mapped, the `result:` lines and the CSV
 * (see osu_like.c for the experiment).
 *
 * Ratios are ratios of medians. For latency lower is better, for the
 * bandwidths higher is better; the goal lines say which way each goes
 * (the multi-threaded goal is openmpi / weft, so that its bound reads as
 * "at least 50x faster").
 */
#include "osu_like.h"

#include <stdio.h>
#include <stdlib.h>

/* --------------------------------------------------------- lookups */

static const bench_row *find(const ol_results *r, ol_variant v, ol_kind k,
                             int bytes)
{
    char cname[BENCH_NAME_MAX];
    if (r->state[v] == OL_ST_NOT_RUN || r->state[v] == OL_ST_ABSENT)
        return NULL;
    snprintf(cname, sizeof cname, "%s_%d", ol_kind_name(k), bytes);
    return bench_table_find(&r->tables[v], cname, ol_variant_name(v));
}

/* Ratio of the medians of a over b, or -1 if either is missing. */
static double ratio(const ol_results *r, ol_variant a, ol_variant b,
                    ol_kind k, int bytes)
{
    const bench_row *x = find(r, a, k, bytes), *y = find(r, b, k, bytes);
    return x && y && y->st.median > 0 ? x->st.median / y->st.median : -1;
}

/* ------------------------------------------------------- formatting */

#define CELL_W 21

static void print_cell(const bench_row *row, int state)
{
    bench_print_range_cell(stdout, CELL_W, row,
                           state == OL_ST_ABSENT   ? "not installed"
                           : state == OL_ST_FAILED ? "failed" : "-");
}

static void print_ratio(double x)
{
    bench_print_ratio_cell(stdout, 11, x);
}

/* ----------------------------------------------------------- tables */

static void print_kind(const ol_results *r, ol_kind k)
{
    static const char *const titles[OL_NKINDS] = {
        "latency: one-way, us (lower is better)",
        "bandwidth: window of 64 sends + ack, MB/s (higher is better)",
        "bi-directional bandwidth: 64 sends each way, MB/s both ways "
        "together (higher is better)",
        "multi-threaded latency: 4 thread pairs (OL_MT_PAIRS) ping-ponging "
        "at once, one-way, us (lower is better)"};
    const int *sizes;
    int n = ol_sizes(k, r->quick, &sizes);
    printf("\n%s\n%9s", titles[k], "size");
    for (int v = 0; v < OL_NVARIANTS; v++)
        printf(" %*s", CELL_W, ol_variant_name((ol_variant)v));
    printf(" %11s %11s %11s\n", "weft/ompi", "wtcp/otcp", "wtcp/raw");
    for (int i = 0; i < n; i++) {
        char b[24];
        printf("%9s", bench_format_bytes(b, sizeof b, sizes[i]));
        for (int v = 0; v < OL_NVARIANTS; v++)
            print_cell(find(r, (ol_variant)v, k, sizes[i]), r->state[v]);
        print_ratio(ratio(r, OL_WEFT, OL_OMPI, k, sizes[i]));
        print_ratio(ratio(r, OL_WEFT_TCP, OL_OMPI_TCP, k, sizes[i]));
        print_ratio(ratio(r, OL_WEFT_TCP, OL_RAW_TCP, k, sizes[i]));
        printf("\n");
    }
}

/* ------------------------------------------------------------ goals */

/* One goal line: a / b of the medians of kind k at `bytes`, against
 * `bound` (at_most: x <= bound, else x >= bound). */
static void goal(const ol_results *r, ol_variant a, ol_variant b, ol_kind k,
                 int bytes, int at_most, double bound)
{
    char label[80], sz[24];
    double x = ratio(r, a, b, k, bytes);
    snprintf(label, sizeof label, "%s %s: %s / %s", ol_kind_name(k),
             bench_format_bytes(sz, sizeof sz, bytes), ol_variant_name(a),
             ol_variant_name(b));
    if (x < 0) {
        printf("  %-40s %8s   (%s)\n", label, "n/a",
               r->state[OL_OMPI] == OL_ST_ABSENT
                   ? "Open MPI is not installed" : "figures missing");
        return;
    }
    int pass = at_most ? x <= bound : x >= bound;
    printf("  %-40s %8.2f   goal %s %-4g %s\n", label, x,
           at_most ? "<=" : ">=", bound, pass ? "PASS" : "MISS");
}

static void print_goals(const ol_results *r)
{
    static const int lat[] = {8, 1024, 65536};
    static const int bw[] = {65536, 1 << 20, 4 << 20};
    printf("\ngoals, against Open MPI at its defaults (ratios of medians, "
           "same run):\n");
    for (int i = 0; i < BENCH_COUNT(lat); i++)
        goal(r, OL_WEFT, OL_OMPI, OL_LATENCY, lat[i], 1, 1.0);
    for (int k = OL_BW; k <= OL_BIBW; k++)
        for (int i = 0; i < BENCH_COUNT(bw); i++)
            goal(r, OL_WEFT, OL_OMPI, (ol_kind)k, bw[i], 0, 1.0);
    goal(r, OL_OMPI, OL_WEFT, OL_MT_LATENCY, 8, 0, 50.0);
}

void ol_report_print(const ol_results *r)
{
    for (int k = 0; k < OL_NKINDS; k++)
        print_kind(r, (ol_kind)k);
    print_goals(r);
    printf("\n");
    bench_table_print_notes(&r->notes, stdout);
    const char *order[OL_NVARIANTS];
    for (int v = 0; v < OL_NVARIANTS; v++)
        order[v] = ol_variant_name((ol_variant)v);
    ms_print(&r->segments, order, OL_NVARIANTS, OL_BENCH, stdout);
    for (int v = 0; v < OL_NVARIANTS; v++)
        bench_table_print_results(&r->tables[v], OL_BENCH, stdout);
}

/* -------------------------------------------------------------- CSV */

/* Rows go by (variant, kind, size): each curve of the chart is a
 * contiguous run of rows. Columns 9 and 10 (kind, bytes) are for it. */
static void csv_rows(FILE *f, const ol_results *r, ol_variant v, ol_kind k)
{
    const int *sizes;
    int n = ol_sizes(k, r->quick, &sizes);
    for (int i = 0; i < n; i++) {
        const bench_row *row = find(r, v, k, sizes[i]);
        if (row)
            fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%s,%s,%d\n", OL_BENCH,
                    row->case_name, row->variant, row->metric,
                    row->st.median, row->st.min, row->st.max, row->unit,
                    ol_kind_name(k), sizes[i]);
    }
}

int ol_report_csv(const ol_results *r, const char *path)
{
    FILE *f = bench_open_csv("osu_like", path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit,kind,bytes\n");
    for (int v = 0; v < OL_NVARIANTS; v++)
        for (int k = 0; k < OL_NKINDS; k++)
            csv_rows(f, r, (ol_variant)v, (ol_kind)k);
    return fclose(f) == 0 ? 0 : -1;
}
