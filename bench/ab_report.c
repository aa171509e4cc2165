/* bench/ab's report: per figure, the two sides' medians and the per-pair
 * ratios, as a table, notes, `result:` lines, a CSV and a chart. */
#include "ab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ statistics */

static void compute_stats(const ab_opts *o, const figure *g, fig_stats *s)
{
    double side[2][PAIRS_MAX], r[PAIRS_MAX];
    int nr = 0;
    memset(s, 0, sizeof *s);
    for (int p = 0; p < PAIRS_MAX; p++) {
        s->r[p] = NAN;
        if (p >= o->pairs || !pair_ok[p] || isnan(g->v[A][p]) || isnan(g->v[B][p]))
            continue;
        side[A][s->n] = g->v[A][p];
        side[B][s->n++] = g->v[B][p];
        if (g->v[A][p] != 0)
            r[nr++] = s->r[p] = g->v[B][p] / g->v[A][p];
    }
    if (s->n == 0)
        return;
    s->side[A] = bench_stats_of(side[A], s->n);
    s->side[B] = bench_stats_of(side[B], s->n);
    s->ratio = s->side[A].median != 0 ? s->side[B].median / s->side[A].median : NAN;
    s->pair = nr ? bench_stats_of(r, nr) : (bench_stats){NAN, NAN, NAN};
}

/* Kept pairs in which the figure is on this side. */
static int count_side(const ab_opts *o, const figure *g, int side)
{
    int n = 0;
    for (int p = 0; p < o->pairs; p++)
        n += pair_ok[p] && !isnan(g->v[side][p]);
    return n;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* "lower", "higher", or "-" where the unit and the metric do not tell. */
static const char *better(const figure *g)
{
    static const char *const times[] = {"s", "ms", "us", "ns"};
    const char *unit = g->f[F_UNIT], *metric = g->f[F_METRIC];
    if (bench_name_index(times, BENCH_COUNT(times), unit) >= 0 ||
        strstr(metric, "latency") || strstr(metric, "rtt") ||
        strstr(metric, "cpu"))
        return "lower";
    if (has_suffix(unit, "/s") || has_suffix(unit, "_per_s") ||
        strstr(metric, "throughput") || strstr(metric, "bandwidth"))
        return "higher";
    return "-";
}

/* ---------------------------------------------------------------- output */

static void figure_label(const ab_opts *o, const figure *g, char sep,
                         char *buf, size_t size)
{
    if (strcmp(o->variant, "all") == 0)
        snprintf(buf, size, "%s%c%s%c%s%c%s", g->f[F_BENCH], sep, g->f[F_CASE],
                 sep, g->f[F_VARIANT], sep, g->f[F_METRIC]);
    else
        snprintf(buf, size, "%s%c%s%c%s", g->f[F_BENCH], sep, g->f[F_CASE],
                 sep, g->f[F_METRIC]);
}

static void print_command(char **argv, FILE *f)
{
    for (int i = 0; argv[i]; i++)
        fprintf(f, "%s%s", i ? " " : "", argv[i]);
}

/* "    B has VAR=VALUE (A: ...)" for a variable that B sets. */
static void print_env_change(const char *var, const char *b_value)
{
    const char *a_value = getenv(var);
    printf("    B has %s=%s (A: %s%s%s)\n", var, b_value, a_value ? var : "",
           a_value ? "=" : "unset", a_value ? a_value : "");
}

static void print_header(const ab_opts *o, int used)
{
    char disable[1024];
    printf("\nab: A = %s: ", o->label[A]);
    print_command(o->argv[A], stdout);
    printf("\n    B = %s: ", o->label[B]);
    print_command(o->argv[B], stdout);
    printf("\n");
    for (int i = 0; i < o->nenv; i++) {
        char var[256];
        snprintf(var, sizeof var, "%.*s", (int)strcspn(o->env[i], "="), o->env[i]);
        if (!o->disable[0] || strcmp(var, "WEFT_DISABLE") != 0)
            print_env_change(var, strchr(o->env[i], '=') + 1);
    }
    if (o->disable[0]) {
        ab_b_disable(o, disable, sizeof disable);
        print_env_change("WEFT_DISABLE", disable);
    }
    printf("    %d pair%s (A B, B A, ...), %d kept; variant %s\n"
           "B/A: the ratio of the medians; per pair: min-max of the pairs' "
           "ratios.\nbetter: lower for times (s ms us ns, latency, rtt) and CPU, "
           "higher for rates\n(/s, throughput, bandwidth), - not known.\n\n",
           o->pairs, o->pairs > 1 ? "s" : "", used, o->variant);
}

/* A table row as text; the first three columns align left. */
enum { C_LABEL, C_UNIT, C_BETTER, C_A, C_B, C_RATIO, C_PAIRS, C_N, C_COUNT };
#define CELL_LEN (4 * FIELD_MAX)
typedef char cells[C_COUNT][CELL_LEN];

static void ratio_text(char *buf, double ratio)
{
    snprintf(buf, CELL_LEN, isnan(ratio) ? "-" : "%.2f", ratio);
}

static void row_cells(const ab_opts *o, const figure *g, const fig_stats *s,
                      cells c)
{
    figure_label(o, g, ' ', c[C_LABEL], CELL_LEN);
    snprintf(c[C_UNIT], CELL_LEN, "%s", g->f[F_UNIT]);
    snprintf(c[C_BETTER], CELL_LEN, "%s", better(g));
    bench_format_range(c[C_A], CELL_LEN, s->side[A]);
    bench_format_range(c[C_B], CELL_LEN, s->side[B]);
    ratio_text(c[C_RATIO], s->ratio);
    snprintf(c[C_PAIRS], CELL_LEN, "-");
    if (!isnan(s->pair.min))
        snprintf(c[C_PAIRS], CELL_LEN, "[%.2f-%.2f]", s->pair.min, s->pair.max);
    snprintf(c[C_N], CELL_LEN, "%d", s->n);
}

static void header_cells(const ab_opts *o, cells c)
{
    static const char *const names[C_COUNT] = {
        "figure", "unit", "better", "", "", "B/A", "per pair", "n"};
    for (int k = 0; k < C_COUNT; k++)
        snprintf(c[k], CELL_LEN, "%s", names[k]);
    snprintf(c[C_A], CELL_LEN, "A %s", o->label[A]);
    snprintf(c[C_B], CELL_LEN, "B %s", o->label[B]);
}

static void widen(int width[C_COUNT], cells c)
{
    for (int k = 0; k < C_COUNT; k++)
        if ((int)strlen(c[k]) > width[k])
            width[k] = (int)strlen(c[k]);
}

static void print_cells(const int width[C_COUNT], cells c)
{
    for (int k = 0; k < C_COUNT; k++)
        printf(k == 0 ? "%-*s" : k <= C_BETTER ? " %-*s" : "  %*s", width[k], c[k]);
    printf("\n");
}

static void print_table(const ab_opts *o, const fig_stats *st, int used,
                        int shown)
{
    static cells c; /* 2 KiB: static */
    int width[C_COUNT] = {0};
    if (used == 0 || shown == 0) {
        printf("no figure to compare: %s\n", used == 0 ? "no pair was kept" :
               strcmp(o->variant, "all") == 0 ? "none is on both sides" :
               "none of this variant is on both sides (--variant all keeps "
               "every one)");
        return;
    }
    header_cells(o, c);
    widen(width, c);
    for (int i = 0; i < nfigs; i++)
        if (st[i].n > 0) {
            row_cells(o, &figs[i], &st[i], c);
            widen(width, c);
        }
    header_cells(o, c);
    print_cells(width, c);
    for (int i = 0; i < nfigs; i++)
        if (st[i].n > 0) {
            row_cells(o, &figs[i], &st[i], c);
            print_cells(width, c);
        }
}

/* Figures on one side only, duplicates, clashes, dropped pairs. */
static void print_notes(const ab_opts *o, const fig_stats *st)
{
    char label[4 * FIELD_MAX];
    for (int side = A; side <= B; side++) {
        int n = 0;
        for (int i = 0; i < nfigs; i++)
            if (st[i].n == 0 && count_side(o, &figs[i], side) > 0 &&
                count_side(o, &figs[i], 1 - side) == 0 && n++ == 0)
                figure_label(o, &figs[i], '/', label, sizeof label);
        if (n)
            printf("note: %d figure(s) only in %c (%s), e.g. %s\n", n,
                   "AB"[side], o->label[side], label);
    }
    if (duplicates)
        printf("note: %d repeated result line(s) in a run: the first counts\n",
               duplicates);
    if (unit_clashes)
        printf("note: %d result line(s) with another unit than the figure's "
               "first: left out\n", unit_clashes);
    if (malformed)
        printf("note: %d malformed result line(s) left out\n", malformed);
    for (int p = 0; p < o->pairs; p++)
        if (!pair_ok[p])
            printf("note: pair %d dropped: %s\n", p + 1, drop_why[p]);
}

static void print_results(const ab_opts *o, const fig_stats *st)
{
    static const char *const stat_names[] = {"median", "min", "max"};
    char c[4 * FIELD_MAX];
    for (int i = 0; i < nfigs; i++) {
        const fig_stats *s = &st[i];
        if (s->n == 0)
            continue;
        figure_label(o, &figs[i], '/', c, sizeof c);
        for (int side = A; side <= B; side++) {
            const double v[] = {s->side[side].median, s->side[side].min,
                                s->side[side].max};
            for (int k = 0; k < 3; k++)
                bench_print_result(stdout, AB, c, o->label[side], stat_names[k],
                                   v[k], figs[i].f[F_UNIT]);
        }
        if (!isnan(s->ratio))
            bench_print_result(stdout, AB, c, "ratio", "median", s->ratio, "ratio");
        if (!isnan(s->pair.min)) {
            bench_print_result(stdout, AB, c, "ratio", "pair_min", s->pair.min, "ratio");
            bench_print_result(stdout, AB, c, "ratio", "pair_max", s->pair.max, "ratio");
        }
    }
}

static void csv_number(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, ",");
    else
        fprintf(f, ",%.6g", v);
}

static void write_csv_row(FILE *f, const ab_opts *o, const figure *g,
                          const fig_stats *s)
{
    fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%d", g->f[F_BENCH], g->f[F_CASE],
            g->f[F_VARIANT], g->f[F_METRIC], g->f[F_UNIT], better(g),
            o->label[A], o->label[B], s->n);
    for (int side = A; side <= B; side++) {
        csv_number(f, s->side[side].median);
        csv_number(f, s->side[side].min);
        csv_number(f, s->side[side].max);
    }
    csv_number(f, s->ratio);
    csv_number(f, s->pair.min);
    csv_number(f, s->pair.max);
    for (int p = 0; p < o->pairs; p++)
        csv_number(f, s->r[p]);
    fprintf(f, "\n");
}

static int write_csv(const ab_opts *o, const fig_stats *st)
{
    FILE *f = bench_open_csv(AB, o->csv_path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,unit,better,a,b,pairs,a_median,"
               "a_min,a_max,b_median,b_min,b_max,ratio,ratio_min,ratio_max");
    for (int p = 0; p < o->pairs; p++)
        fprintf(f, ",r%d", p + 1);
    fprintf(f, "\n");
    for (int i = 0; i < nfigs; i++)
        if (st[i].n > 0)
            write_csv_row(f, o, &figs[i], &st[i]);
    if (fclose(f) != 0)
        return -1;
    printf("csv: %s\n", o->csv_path);
    return 0;
}

int ab_report(const ab_opts *o, int used)
{
    fig_stats *st = calloc((size_t)(nfigs ? nfigs : 1), sizeof *st);
    int shown = 0;
    if (!st)
        return -1;
    for (int i = 0; i < nfigs; i++) {
        compute_stats(o, &figs[i], &st[i]);
        shown += st[i].n > 0;
    }
    print_header(o, used);
    print_table(o, st, used, shown);
    print_notes(o, st);
    printf("\n");
    print_results(o, st);
    int rc = write_csv(o, st);
    if (rc == 0 && o->png_path && shown > 0)
        rc = bench_plot("plot_ab.gp", o->csv_path, o->png_path);
    free(st);
    return rc == 0 ? shown : -1;
}
