/* bench/clam: the CLAM paper's experiment (clam-tailoring-thread-
 * schedules, Gomez, Rego and Sunderam 1996) on today's machine: how the
 * schedule of a receive thread trades packet loss against the work done by
 * compute threads in the same process, Weft's I/O server beside the
 * paper's five schedules.
 *
 * Experiment. A receiver process (clam_receiver.c: Weft, one worker, N = 4
 * work threads copying buffers as the paper's WorkThread does) reads UDP
 * datagrams of an Ethernet MTU from a loopback socket whose buffer is
 * bounded (SO_RCVBUF 8 KiB asked for; the kernel keeps Lmax datagrams,
 * measured at start-up as CLAM does), so a late receive thread loses
 * datagrams for real. This process sends them (clam_sender.c) with Poisson
 * gaps at the paper's mean inter-arrival times, and with the paper's
 * bursty two-state Markov source at several correlations rho. Everything
 * is the paper's time divided by CLAM_SCALE (100): inter-arrival 10-250 ms
 * become 100 us-2.5 ms, slices 10-500 ms become 100 us-5 ms, the fixed
 * slice 50 ms becomes 500 us, the SAINR timer 1 s becomes 10 ms. Schedules
 * (clam_strategies.c says how each maps onto Weft): Weft's polling,
 * signal, blocker and default; the paper's SPR, SNR, SANR, SINR, SAINR.
 *
 * Per point: datagrams received and lost (sequence gaps, as the paper
 * counts them), work (CopyBuffer operations per second, in percent of a
 * baseline run beside it: the work threads alone, no receive thread, no
 * traffic), the receiver's CPU, the adaptive schedules' mean slice. A
 * control, `unread`, runs the work threads under traffic that nobody reads:
 * what the traffic itself (the sender, the kernel) costs them. Each
 * measurement is a fresh receiver process (clam_measure.c); repeats are
 * the outer loop and the order of schedules rotates, so slow drift on a
 * shared machine spreads over all of them.
 *
 * Goal (PASS/MISS lines, never the exit status): at every arrival point,
 * Weft's default loses no more datagrams than the best of the paper's
 * five, and its work threads keep >= 90 % of the baseline's work per
 * second of the worker's CPU (clam_report.c says why per CPU second).
 *
 * Output: tables in the paper's layout (clam_report.c), goal lines,
 * `result:` lines, a CSV (bench-out/clam.csv) and a PNG (plot_clam.gp).
 * Default run: about 7 minutes; --quick: a few seconds, one repeat.
 */
#include "clam.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopback.h"

#define WORK_THREADS 4

static const int64_t full_ia_us[] = {100, 250, 500, 1000, 2500};
static const double full_rho[] = {-0.5, 0, 0.5, 0.9};
static const int64_t quick_ia_us[] = {100, 1000};
static const double quick_rho[] = {0.9};

static clam_results res; /* large: static */
static int deadline_hit;

/* ---------------------------------------------------------------- setup */

static void add_arrivals(clam_results *r, const int64_t *ia, int n_ia,
                         const double *rho, int n_rho)
{
    for (int i = 0; i < n_ia; i++)
        r->arrivals[r->n_arrivals++] =
            (clam_arrival){.kind = CLAM_POISSON, .mean_ns = ia[i] * 1000};
    for (int i = 0; i < n_rho; i++)
        r->arrivals[r->n_arrivals++] =
            (clam_arrival){.kind = CLAM_MARKOV, .rho = rho[i]};
}

static clam_limits set_cases(clam_results *r, const bench_opts *o)
{
    if (o->quick)
        add_arrivals(r, quick_ia_us, BENCH_COUNT(quick_ia_us), quick_rho,
                     BENCH_COUNT(quick_rho));
    else
        add_arrivals(r, full_ia_us, BENCH_COUNT(full_ia_us), full_rho,
                     BENCH_COUNT(full_rho));
    clam_limits lim = {.threads = WORK_THREADS,
                       .warm_us = o->quick ? 20000 : 100000,
                       .window_us = o->quick ? 60000 : 400000};
    r->repeats = o->repeats;
    r->threads = lim.threads;
    r->window_us = lim.window_us;
    return lim;
}

/* --quick is a smoke run: one repeat unless --repeats says otherwise. */
static int repeats_given(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--repeats", 9) == 0)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ the runs */

static void run_point(int rep, int ai, const clam_limits *lim,
                      int64_t deadline)
{
    for (int k = 0; k < CLAM_NSTRATEGIES; k++) {
        /* the baseline first, then the schedules in a rotating order */
        int s = k == 0 ? 0 : 1 + (k - 1 + rep) % (CLAM_NSTRATEGIES - 1);
        clam_cell *c = &res.cells[ai][s];
        if (bench_now_ns() > deadline) {
            deadline_hit = 1;
            return;
        }
        /* every schedule of a point and repeat gets the same arrivals */
        uint64_t seed = (uint64_t)(rep + 1) * 1000003u + (uint64_t)ai * 7919u;
        if (clam_measure((clam_strategy)s, &res.arrivals[ai], lim, seed,
                         &c->runs[rep]) != 0)
            c->failed = 1;
        c->nruns = rep + 1;
    }
}

/* Work in percent of the baseline measured at the same point and repeat. */
static void set_efficiency(void)
{
    for (int ai = 0; ai < res.n_arrivals; ai++)
        for (int s = 0; s < CLAM_NSTRATEGIES; s++)
            for (int rep = 0; rep < res.cells[ai][s].nruns; rep++) {
                clam_run *run = &res.cells[ai][s].runs[rep];
                const clam_run *base = &res.cells[ai][CLAM_NONE].runs[rep];
                int base_ok = base->ok && base->work_per_s > 0 &&
                              base->work_per_cpu_s > 0;
                run->efficiency =
                    base_ok ? 100 * run->work_per_s / base->work_per_s : -1;
                run->efficiency_cpu =
                    base_ok ? 100 * run->work_per_cpu_s / base->work_per_cpu_s
                            : -1;
            }
}

static void run_all(const clam_limits *lim, int64_t deadline)
{
    for (int rep = 0; rep < res.repeats; rep++) {
        int64_t t0 = bench_now_ns();
        for (int ai = 0; ai < res.n_arrivals; ai++)
            run_point(rep, ai, lim, deadline);
        printf("repeat %d/%d done in %.1f s\n", rep + 1, res.repeats,
               (double)(bench_now_ns() - t0) / 1e9);
        fflush(stdout);
    }
    set_efficiency();
}

/* --------------------------------------------------------------- report */

static void add_notes(const clam_limits *lim)
{
    bench_table *t = &res.notes;
    bench_table_note(t, "time scale: the paper's times / %d (a SPARCstation 5 "
                     "on 10 Mb/s Ethernet then, one core on loopback now)",
                     CLAM_SCALE);
    bench_table_note(t, "slices: fixed %lld us (paper 50 ms); adaptive %lld "
                     "us-%lld us (paper 10-500 ms), n=%d, alpha=1+1/8, "
                     "Lmin=%d, beta*Lmax=%d", CLAM_SLICE_FIXED_NS / 1000,
                     CLAM_SLICE_MIN_NS / 1000, CLAM_SLICE_MAX_NS / 1000,
                     CLAM_WINDOW_N, CLAM_LMIN, CLAM_BETA_LMAX);
    bench_table_note(t, "Markov source: gaps %lld us in H, %lld us in L "
                     "(paper 10 and 100 ms), gamma = delta = (1+rho)/2",
                     CLAM_MARKOV_H_NS / 1000, CLAM_MARKOV_L_NS / 1000);
    bench_table_note(t, "the paper's text gives one value of its plots, a "
                     "SANR slice of ~150 ms at 100 ms with one work thread "
                     "(row 'paper SANR'); none of its loss or work values");
    bench_table_note(t, "per measurement: a fresh receiver, %lld ms to settle, "
                     "then a %lld ms window", (long long)(lim->warm_us / 1000),
                     (long long)(lim->window_us / 1000));
    if (deadline_hit)
        bench_table_note(t, "the run reached its time limit: later points "
                         "were not run (or ran fewer repeats)");
}

static void print_header(const bench_opts *o, const clam_limits *lim)
{
    printf("bench=clam: receive-thread schedules vs packet loss and work "
           "(CLAM paper, section 3)%s\n", o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    const char *w = getenv("WEFT_WORKERS");
    printf("receiver: fresh process per measurement, WEFT_WORKERS=%s, %d work "
           "threads; UDP %d B datagrams over loopback, SO_RCVBUF %d B asked: "
           "Lmax = %d datagrams; %d repeats\n", w && *w ? w : "1",
           lim->threads, CLAM_PAYLOAD, CLAM_RCVBUF, res.lmax, res.repeats);
}

static int any_failure(void)
{
    int failed = 0;
    for (int ai = 0; ai < res.n_arrivals; ai++)
        for (int s = 0; s < CLAM_NSTRATEGIES; s++)
            failed |= res.cells[ai][s].failed;
    return failed;
}

static int finish(const bench_opts *o, const clam_limits *lim)
{
    add_notes(lim);
    clam_report_print(&res);
    clam_report_results(&res);
    int failed = any_failure();
    if (clam_report_csv(&res, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_clam.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "clam: some measurements failed (see above)\n");
    return failed ? 1 : 0;
}

static int run_bench(const bench_opts *o)
{
    clam_limits lim = set_cases(&res, o);
    int64_t limit_s = o->quick ? 60 : 1200;
    int64_t deadline = bench_now_ns() + limit_s * 1000000000LL;
    lb_precise_sleeps();
    res.lmax = clam_measure_lmax();
    print_header(o, &lim);
    bench_steal since;
    bench_steal_mark(&since);
    run_all(&lim, deadline);
    int rc = finish(o, &lim);
    bench_print_steal(stdout, "the run", &since);
    return rc;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, CLAM_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (o.case_name) {
        clam_spec s;
        if (clam_spec_parse(o.case_name, &s) != 0) {
            fprintf(stderr, "clam: bad --case '%s' (internal: recv,<strategy>,"
                    "<threads>,<warm_us>,<window_us>,<fd>)\n", o.case_name);
            return 2;
        }
        return clam_receiver_main(&s);
    }
    if (o.quick && !repeats_given(argc, argv))
        o.repeats = 1;
    return run_bench(&o);
}
