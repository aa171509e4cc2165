/* bench/osu_like: MPI point-to-point performance between two processes on
 * one machine, after the OSU micro-benchmarks -- one-way latency
 * (ping-pong, 0 B .. 4 MiB), bandwidth (windows of 64 MPI_Isend, then an
 * ack), bi-directional bandwidth (64 sends and 64 receives in flight
 * both ways) and multi-threaded latency (OL_MT_PAIRS thread pairs
 * ping-ponging at once under MPI_THREAD_MULTIPLE) -- for five variants
 * side by side, in the same run (the raw floor has no multi-threaded
 * case). Each MPI variant is run as users run it, defaults untouched
 * unless its name says otherwise:
 *   weft         osu_like_mpi built against Weft's mpi.h / libweft_mpi, run
 *                by Weft's mpirun -n 2 at its defaults: the shared-memory
 *                transport (WEFT_MPI_TRANSPORT removed from the job's
 *                environment; other WEFT_* pass through), adaptive I/O
 *                strategy, one worker per core;
 *   weft_tcp     the same with WEFT_MPI_TRANSPORT=tcp (TCP loopback);
 *   openmpi      the same source built with mpicc.openmpi, run by
 *                mpirun.openmpi -n 2 at its defaults: the vader
 *                shared-memory BTL, single copy by CMA where it works
 *                (osu_like_launch.c probes it and says), busy-polling
 *                progress, ranks bound to cores; the reference;
 *   openmpi_tcp  the same with --mca btl tcp,self (its TCP path);
 *   raw_tcp      no MPI: the same steps over one loopback TCP connection
 *                with both ends spinning on non-blocking sockets, the TCP
 *                floor (osu_like_raw.c).
 * The method (calibration, repeats, figures) is one piece of code for all
 * of them: osu_like_measure.c. Message sizes: powers of 4 plus 8 B from
 * 0 B (bandwidths from 1 B) to 4 MiB; --quick measures 0/8 B, 1 KiB,
 * 64 KiB, 1 MiB and 4 MiB only.
 *
 * Goals, against Open MPI at its defaults (ratios of medians within this
 * run; PASS/MISS lines, never the exit status): weft / openmpi latency at
 * 8 B, 1 KiB and 64 KiB <= 1; weft / openmpi bandwidth and bi-directional
 * bandwidth at 64 KiB, 1 MiB and 4 MiB >= 1; openmpi / weft multi-threaded
 * latency at 8 B (4 thread pairs) >= 50. The tables also show
 * weft_tcp / openmpi_tcp and weft_tcp / raw_tcp. Without Open MPI, the
 * Weft and raw rows are printed and the goals are n/a.
 *
 * Shared memory: each MPI job's rank 0 reports the segments it has mapped
 * (mpi_segments.c); the report prints one rank's segment per variant
 * beside Weft's formula (mpi_segments.c).
 *
 * Order: for each kind (latency, bw, bibw, mt_latency) each variant runs
 * OL_LAUNCHES times (once with --quick), as one MPI job (or one raw peer)
 * measuring that kind only, the variants alternating and their order
 * rotating; so the figures compared side by side are measured seconds
 * apart, under about the same load. Each launch runs its share of the
 * repeats, and a figure is the median of the launches' medians, with the
 * lowest min and the highest max (bench_table_merge): a job's figures
 * move with the launch on these machines (an 8 B ping-pong over TCP ran
 * ~5.5 us in some launches and ~9 us in others, each launch steady), and
 * one launch per variant made the ratio a draw of two launches.
 *
 * Bounds: each kind of each variant stops starting repeats after its
 * budget (12 s, shared by its launches; --quick 3 s); each MPI job runs
 * under its mpirun's --timeout and is killed 10 s past it
 * (osu_like_launch.c). Default run: about three minutes for this part;
 * --quick: about 20 s.
 *
 * Output: the tables, goal lines, the segments, `result:` lines
 * (bench=osu_like, cases latency_<bytes> / bw_<bytes> / bibw_<bytes> /
 * mt_latency_<bytes>, metrics latency in us or bandwidth in MB/s; cases
 * shm_segment_np<n> in bytes), a CSV (bench-out/osu_like.csv) and a PNG
 * drawn by plot_osu_like.gp.
 *
 * Then a second part, collective latency on 2, 4 and 8 ranks, with its
 * own tables, goals, CSV and PNG: osu_like_coll.c. `--case p2p` or
 * `--case coll` runs one part only.
 */
#include "osu_like.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osu_like_coll.h"
#include "osu_like_launch.h"

#ifndef OSU_LIKE_WEFT_PROG
#define OSU_LIKE_WEFT_PROG ""
#endif
#ifndef OSU_LIKE_OMPI_PROG
#define OSU_LIKE_OMPI_PROG ""
#endif

#define JOB_SLACK_S 60 /* launch, calibration and finalize, per job */
#define OL_LAUNCHES 3  /* jobs per kind and variant (1 with --quick) */

static ol_results res; /* large: static */
static bench_table launches[OL_NVARIANTS][OL_LAUNCHES]; /* merged into res */

const char *ol_variant_name(ol_variant v)
{
    static const char *const names[OL_NVARIANTS] = {
        "weft", "weft_tcp", "openmpi", "openmpi_tcp", "raw_tcp"};
    return v < OL_NVARIANTS ? names[v] : "?";
}

/* ---------------------------------------------------------- variants */

static void add_kind_rows(void *arg, const bench_table *t)
{
    bench_table *dst = arg;
    for (int i = 0; i < t->nrows; i++) {
        const bench_row *r = &t->rows[i];
        bench_table_add(dst, r->case_name, r->variant, r->metric, r->st,
                        r->unit);
    }
    for (int i = 0; i < t->nnotes; i++)
        bench_table_note(&res.notes, "%s", t->notes[i]);
}

static void job_line(void *arg, char *line)
{
    bench_table tmp;
    memset(&tmp, 0, sizeof tmp);
    if (ms_parse(line, &res.segments))
        return;
    if (!ol_parse_child_line(line, &tmp))
        printf("%s\n", line); /* anything else the job says */
    else
        add_kind_rows(arg, &tmp);
}

static ol_lib lib_of(ol_variant v)
{
    return v == OL_WEFT || v == OL_WEFT_TCP ? OL_LIB_WEFT : OL_LIB_OPENMPI;
}

static const char *program_of(ol_variant v)
{
    const char *p = lib_of(v) == OL_LIB_WEFT ? OSU_LIKE_WEFT_PROG
                                             : OSU_LIKE_OMPI_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static int run_mpi_variant(ol_variant v, const ol_plan *p, ol_kind k,
                           bench_table *dst)
{
    ol_lib lib = lib_of(v);
    const char *prog = program_of(v);
    char repeats[16];
    ol_argv a;
    if (!prog || !ol_mpirun_path(lib))
        return OL_ST_ABSENT;
    int timeout_s = (int)(p->kind_budget_ns / 1000000000) + JOB_SLACK_S;
    ol_argv_mpirun(&a, lib, 2, timeout_s, v == OL_OMPI_TCP, prog);
    if (lib == OL_LIB_WEFT) /* the variant names the transport */
        ol_argv_setenv(&a, "WEFT_MPI_TRANSPORT",
                       v == OL_WEFT_TCP ? "tcp" : NULL);
    snprintf(repeats, sizeof repeats, "%d", p->repeats);
    const char *args[] = {"--variant", ol_variant_name(v), "--kind",
                          ol_kind_name(k), "--repeats", repeats};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++)
        ol_argv_add(&a, args[i]);
    if (p->quick)
        ol_argv_add(&a, "--quick");
    return ol_run_job(&a, timeout_s, 0, job_line, dst,
                      ol_variant_name(v)) == 0 ? OL_ST_OK : OL_ST_FAILED;
}

/* Launch l of n of one kind of one variant; a variant's state is its
 * worst job's. */
static void run_variant(ol_variant v, const ol_plan *all, ol_kind k, int l, int n)
{
    ol_plan p = *all;
    bench_table *dst = &launches[v][l];
    int64_t t0 = bench_now_ns();
    int st;
    p.kinds = 1u << k;
    p.repeats = bench_launch_repeats(all->repeats, n);
    p.kind_budget_ns = all->kind_budget_ns / n;
    if (v == OL_RAW_TCP && k == OL_MT_LATENCY)
        return; /* the raw floor has no threads */
    if (v == OL_RAW_TCP)
        st = ol_raw_measure(&p, add_kind_rows, dst) == 0
                 ? OL_ST_OK : OL_ST_FAILED;
    else
        st = run_mpi_variant(v, &p, k, dst);
    if (st > res.state[v])
        res.state[v] = st;
    printf("  %-10s %-12s %d/%d %s in %.1f s\n", ol_kind_name(k),
           ol_variant_name(v), l + 1, n, st == OL_ST_OK ? "done"
           : st == OL_ST_ABSENT ? "not available" : "FAILED",
           (double)(bench_now_ns() - t0) / 1e9);
    fflush(stdout);
}

/* Kinds outer, then launches, variants inner (their order rotating): the
 * figures compared in one row of a table are measured seconds apart, not
 * a minute, on a machine whose load drifts. */
static void run_all(const ol_plan *p, int n)
{
    for (int k = 0; k < OL_NKINDS; k++)
        for (int l = 0; l < n; l++)
            for (int i = 0; i < OL_NVARIANTS; i++)
                run_variant((ol_variant)((i + k + l) % OL_NVARIANTS), p, (ol_kind)k, l, n);
    for (int v = 0; v < OL_NVARIANTS; v++)
        bench_table_merge(&res.tables[v], launches[v], n);
}

/* ------------------------------------------------------------- main */

static void print_header(const bench_opts *o, int n)
{
    printf("bench=osu_like: MPI point-to-point between 2 processes on this "
           "machine (latency, bandwidth, bi-directional bandwidth; window "
           "%d)%s\n", OL_WINDOW, o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    ol_openmpi_version(res.ompi_version, sizeof res.ompi_version);
    const char *wt = getenv("WEFT_MPI_TRANSPORT");
    printf("weft: Weft's mpirun -n 2 at its defaults (shared memory)%s; "
           "weft_tcp: WEFT_MPI_TRANSPORT=tcp\n", wt ? " -- WEFT_MPI_TRANSPORT "
           "from the environment is removed for it" : "");
    if (!ol_mpirun_path(OL_LIB_OPENMPI) || !program_of(OL_OMPI)) {
        printf("Open MPI is not installed (or its build of osu_like_mpi is "
               "missing): Weft and raw_tcp only, goals n/a\n");
    } else {
        printf("reference: %s at its defaults (openmpi: vader shared "
               "memory); openmpi_tcp: --mca btl tcp,self\n",
               *res.ompi_version ? res.ompi_version : "Open MPI");
        ol_print_openmpi_cma(stdout);
    }
    printf("per figure: %d launch(es) of each variant, %d repeat(s) each; the "
           "median of the launches' medians [lowest min-highest max]\n", n,
           bench_launch_repeats(o->repeats, n));
}

static int finish(const bench_opts *o)
{
    int failed = 0;
    ol_report_print(&res);
    for (int v = 0; v < OL_NVARIANTS; v++)
        failed |= res.state[v] == OL_ST_FAILED;
    if (ol_report_csv(&res, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_osu_like.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "osu_like: some variants failed (see above)\n");
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, OL_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    /* --case p2p or --case coll: that part only (default: both) */
    int p2p = !o.case_name || strcmp(o.case_name, "p2p") == 0;
    int coll = !o.case_name || strcmp(o.case_name, "coll") == 0;
    if (!p2p && !coll) {
        fprintf(stderr, "osu_like: --case takes p2p or coll\n");
        return 2;
    }
    ol_plan p = ol_make_plan(o.quick, o.repeats);
    res.quick = o.quick;
    res.repeats = o.repeats;
    int n = o.quick ? 1 : OL_LAUNCHES;
    print_header(&o, n);
    bench_steal since;
    bench_steal_mark(&since);
    if (p2p)
        run_all(&p, n);
    rc = p2p ? finish(&o) : 0;
    if (p2p)
        bench_print_steal(stdout, "the point-to-point part", &since);
    if (coll) {
        bench_steal_mark(&since);
        rc |= olc_run(&o); /* osu_like_coll.c */
        bench_print_steal(stdout, "the collective part", &since);
    }
    return rc;
}
