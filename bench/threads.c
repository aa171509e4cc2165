/* bench/threads: the cost of Weft's user-level threads against kernel
 * threads (pthread) and ucontext, measured in the same run so that the
 * ratios hold on a noisy shared machine.
 *
 * Figures (case / variants; details in threads_weft.c, threads_native.c):
 *   yield_rt           weft, pthread (same CPU), pthread_xcpu, ucontext
 *   create_join        weft, pthread, ucontext
 *   mutex_uncontended  weft, pthread (ucontext: n/a, it has no lock)
 *   mutex_contended    weft, pthread (4 threads, time per lock/unlock pair)
 *   preempt_overhead   quantum_1ms, no_preempt (compute throughput); the
 *                      floor: bare_signal_1ms, no_signal (threads_native.c)
 * Each time is the median over R repeats (default 7, --quick 3) of one
 * calibrated run of about 50 ms (10 ms with --quick), with min and max.
 * A preempt_overhead repeat computes 250 ms (50 ms) under each variant, in
 * alternating 20 ms segments, and counts iterations per CPU second of the
 * worker, which a busy machine disturbs far less than wall-clock time.
 * Default run: about 8 s; --quick: about 1.5 s.
 *
 * Processes. The Weft runtime is initialised once per process and reads
 * WEFT_WORKERS then, so the program re-runs itself (/proc/self/exe) with
 * --case NAME for three groups and merges their rows:
 *   native            pthread and ucontext figures; Weft is not started;
 *   weft-one-worker   WEFT_WORKERS=1: yield_rt (both ULTs on one worker),
 *                     create_join, mutex_uncontended, preempt_overhead;
 *   weft-all-workers  WEFT_WORKERS as inherited (default: one per core):
 *                     mutex_contended, its 4 ULTs spread over the workers.
 *
 * Output: a table, goal lines (PASS/MISS against the runtime's goals:
 * yield <= 1/20 of pthread and <= 1/5 of ucontext, create+join <= 1/50 of
 * pthread, preemption loss < 2 %), one `result:` line per figure and per
 * ratio, a CSV (bench-out/threads.csv, --csv PATH) and, if gnuplot is on
 * PATH, a bar chart drawn by plot_threads.gp (bench-out/threads.png,
 * --png PATH). The exit status reports errors only, never a missed goal.
 */
#include "threads.h"

#include <stdlib.h>
#include <string.h>

#define BENCH "threads"

static const char *const case_order[] = {
    "yield_rt", "create_join", "mutex_uncontended", "mutex_contended",
    "preempt_overhead"};
static const char *const variant_order[] = {
    "weft", "pthread", "pthread_xcpu", "ucontext", "quantum_1ms",
    "no_preempt", "bare_signal_1ms", "no_signal"};

static threads_params params_for(const bench_opts *o)
{
    threads_params p = {.repeats = o->repeats,
                        .target_ns = o->quick ? 10000000 : 50000000,
                        .compute_ns = o->quick ? 50000000 : 250000000};
    return p;
}

/* --------------------------------------------------------- child side */

static int run_case_here(const char *name, const threads_params *p)
{
    static bench_table t;
    int rc;
    if (strcmp(name, "native") == 0)
        rc = threads_native_cases(p, &t);
    else if (strcmp(name, "weft-one-worker") == 0)
        rc = threads_weft_one_worker_cases(p, &t);
    else if (strcmp(name, "weft-all-workers") == 0)
        rc = threads_weft_all_workers_cases(p, &t);
    else {
        fprintf(stderr, "threads: unknown --case '%s' (native, "
                "weft-one-worker, weft-all-workers)\n", name);
        return 2;
    }
    bench_table_emit(&t, stdout);
    return rc == 0 ? 0 : 1;
}

/* ------------------------------------------------------ ordering rows */

static int rank_in(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return n;
}

static int row_rank(const bench_row *r)
{
    int nc = (int)(sizeof case_order / sizeof *case_order);
    int nv = (int)(sizeof variant_order / sizeof *variant_order);
    return rank_in(case_order, nc, r->case_name) * (nv + 1) +
           rank_in(variant_order, nv, r->variant);
}

/* Stable insertion sort: the table is small. */
static void sort_rows(bench_table *t)
{
    for (int i = 1; i < t->nrows; i++) {
        bench_row r = t->rows[i];
        int j = i;
        for (; j > 0 && row_rank(&t->rows[j - 1]) > row_rank(&r); j--)
            t->rows[j] = t->rows[j - 1];
        t->rows[j] = r;
    }
}

/* ---------------------------------------------------------------- goals */

static void add_derived(bench_table *d, const char *case_name,
                        const char *variant, const char *metric, double v,
                        const char *unit)
{
    bench_stats st = {v, v, v};
    bench_table_add(d, case_name, variant, metric, st, unit);
}

/* Ratio weft/other of `case_name`, against max_ratio (0: no goal). */
static void ratio_line(const bench_table *t, bench_table *d,
                       const char *case_name, const char *other,
                       double max_ratio)
{
    char label[96], variant[BENCH_NAME_MAX], text[48];
    const bench_row *w = bench_table_find(t, case_name, "weft");
    const bench_row *o = bench_table_find(t, case_name, other);
    snprintf(label, sizeof label, "%s weft/%s", case_name, other);
    if (!w || !o || o->st.median <= 0) {
        printf("%-34s n/a (figure missing)\n", label);
        return;
    }
    double ratio = w->st.median / o->st.median;
    if (max_ratio > 0)
        bench_print_ratio_goal(stdout, label, ratio, max_ratio);
    else
        printf("%-34s %s   no goal\n", label,
               bench_format_ratio(text, sizeof text, ratio));
    snprintf(variant, sizeof variant, "weft_vs_%s", other);
    add_derived(d, case_name, variant, "ratio", ratio, "ratio");
}

/* Loss in % of `ticking` against `quiet` (preempt_overhead), or -1. */
static double loss_of(const bench_table *t, const char *ticking, const char *quiet)
{
    const bench_row *a = bench_table_find(t, "preempt_overhead", ticking);
    const bench_row *b = bench_table_find(t, "preempt_overhead", quiet);
    return a && b && b->st.median > 0 ? (1 - a->st.median / b->st.median) * 100 : -1;
}

static void preempt_loss_line(const bench_table *t, bench_table *d)
{
    double loss = loss_of(t, "quantum_1ms", "no_preempt");
    const char *label = "preempt_overhead loss (1 ms)";
    if (loss == -1) {
        printf("%-34s n/a (figure missing)\n", label);
        return;
    }
    printf("%-34s %9.2f %%%-9s   %-14s %s\n", label, loss, "", "goal < 2 %",
           loss < 2 ? "PASS" : "MISS");
    add_derived(d, "preempt_overhead", "quantum_1ms_vs_no_preempt", "loss",
                loss, "percent");
}

/* The bare 1 kHz signal's loss on this machine, and Weft's beyond it. */
static void preempt_floor_lines(const bench_table *t, bench_table *d)
{
    double weft = loss_of(t, "quantum_1ms", "no_preempt");
    double bare = loss_of(t, "bare_signal_1ms", "no_signal");
    if (weft == -1 || bare == -1) {
        printf("%-34s n/a (figure missing)\n", "preempt_overhead floor");
        return;
    }
    printf("%-34s %9.2f %%%-9s   no goal\n", "preempt loss, bare signal (floor)", bare, "");
    printf("%-34s %9.2f %%%-9s   no goal\n", "preempt loss, weft beyond floor", weft - bare, "");
    add_derived(d, "preempt_overhead", "bare_signal_1ms_vs_no_signal", "loss", bare, "percent");
    add_derived(d, "preempt_overhead", "quantum_1ms_beyond_bare_signal", "loss", weft - bare,
                "percent");
}

static void print_goals(const bench_table *t, bench_table *derived)
{
    printf("\ngoals (ratios of medians, same run):\n");
    ratio_line(t, derived, "yield_rt", "pthread", 1.0 / 20);
    ratio_line(t, derived, "yield_rt", "ucontext", 1.0 / 5);
    ratio_line(t, derived, "create_join", "pthread", 1.0 / 50);
    preempt_loss_line(t, derived);
    printf("for information:\n");
    ratio_line(t, derived, "yield_rt", "pthread_xcpu", 0);
    ratio_line(t, derived, "create_join", "ucontext", 0);
    ratio_line(t, derived, "mutex_uncontended", "pthread", 0);
    ratio_line(t, derived, "mutex_contended", "pthread", 0);
    preempt_floor_lines(t, derived);
}

/* --------------------------------------------------------- parent side */

static int collect_all_cases(const bench_opts *o, bench_table *t)
{
    int failed = 0;
    failed |= bench_spawn_case(o, "native", NULL, NULL, t) != 0;
    failed |= bench_spawn_case(o, "weft-one-worker", "WEFT_WORKERS", "1", t) != 0;
    failed |= bench_spawn_case(o, "weft-all-workers", NULL, NULL, t) != 0;
    return failed ? -1 : 0;
}

static int write_outputs(const bench_opts *o, const bench_table *t)
{
    if (bench_table_write_csv(t, BENCH, o->csv_path) != 0)
        return -1;
    printf("csv: %s\n", o->csv_path);
    return bench_plot("plot_threads.gp", o->csv_path, o->png_path);
}

static int run_all(const bench_opts *o)
{
    static bench_table t, derived;
    printf("bench=threads: Weft ULTs vs pthreads vs ucontext; median, min, "
           "max over %d repeats%s\n", o->repeats, o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    int failed = collect_all_cases(o, &t) != 0;
    sort_rows(&t);
    printf("\n");
    bench_table_print(&t, stdout);
    bench_table_print_notes(&t, stdout);
    print_goals(&t, &derived);
    printf("\n");
    bench_table_print_results(&t, BENCH, stdout);
    bench_table_print_results(&derived, BENCH, stdout);
    failed |= write_outputs(o, &t) != 0;
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    threads_params p = params_for(&o);
    if (o.case_name)
        return run_case_here(o.case_name, &p);
    return run_all(&o);
}
