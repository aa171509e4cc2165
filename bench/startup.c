/* bench/startup: how long a job takes to start and stop at scale, Weft
 * beside Open MPI in the same run. Goals (reported, never tested): at 64
 * and 256 ranks on one host, Weft's wall time <= 1/5 of Open MPI's; and
 * at most 8 TCP connections per rank in a 256-rank job over TCP.
 *
 * Experiment: the MPI program (startup_mpi.c) only runs MPI_Init,
 * MPI_Barrier and MPI_Finalize. The figure is the wall time this driver
 * measures around the whole mpirun, from fork to exit (ol_run_job), for
 * jobs of 4, 16, 64 and 256 ranks (--quick: 4 and 16). Variants:
 *   weft              Weft's mpirun -n N, default settings;
 *   weft_hwloc_io     the same with HWLOC_PLUGINS_BLACKLIST empty in the
 *                     ranks' environment, so that every rank dlopens hwloc's
 *                     I/O plugins (libxml2 XML and its libicu, OpenCL, GL,
 *                     PCI) at start-up, which Weft's mpirun otherwise spares
 *                     them: the A/B of that choice;
 *   openmpi           the same source built with mpicc.openmpi, run by
 *                     mpirun.openmpi --oversubscribe -n N (its defaults
 *                     otherwise; as root with its run-as-root settings, see
 *                     osu_like_launch.c).
 * Each repeat runs every (ranks, variant) once, the variants' order
 * rotating between repeats and sizes, so that the machine's drift (it is
 * shared) falls on all of them. Figures: median [min-max] over the
 * repeats (--repeats, default 3; --quick 2).
 *
 * TCP connections: after the repeats, one more Weft job of the largest
 * size runs with WEFT_MPI_TRANSPORT=tcp and --count-tcp; each rank counts
 * its established TCP connections to other ranks, and the most any rank
 * has is the figure (one launch: the count does not vary).
 *
 * Time limits: each launch gets the launchers' --timeout, generous for
 * Open MPI (oversubscribed 128 to a CPU it may take minutes), and
 * ol_run_job kills it 10 s later. A launch that hits its limit counts as a
 * timeout, shown in the table, not as a figure.
 *
 * Output: table with ratios to Open MPI, the goal rows (PASS/MISS is
 * informative; the exit status reports failed launches only), `result:`
 * lines (bench=startup, case=n<ranks>, variant as above, metric=wall_ms;
 * variant=weft_tcp metric=tcp_peers_max, the CSV's min column being the
 * fewest of any rank), a CSV (bench-out/startup.csv) and a PNG
 * (plot_startup.gp). Default run: about 10 minutes on 2 CPUs, most of it
 * in the 256-rank jobs; --quick about 15 s.
 */
#include "startup.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "osu_like_launch.h"

#ifndef STARTUP_WEFT_PROG
#define STARTUP_WEFT_PROG ""
#endif
#ifndef STARTUP_OMPI_PROG
#define STARTUP_OMPI_PROG ""
#endif

#define FULL_REPS  3
#define QUICK_REPS 2

static const int full_sizes[] = {4, 16, 64, 256};
static const int quick_sizes[] = {4, 16};

static su_results res; /* large: static */

const char *su_var_name(su_var v)
{
    static const char *const names[SU_NVARS] = {"weft", "weft_hwloc_io",
                                                "openmpi"};
    return names[v];
}

const char *su_case_name(char *buf, size_t size, int np)
{
    snprintf(buf, size, "n%d", np);
    return buf;
}

/* Open MPI oversubscribed: its daemon starts every rank and they poll. */
static int timeout_of(su_var v, int np)
{
    return v == SU_OPENMPI ? 120 + 3 * np : 60 + 2 * np;
}

/* ------------------------------------------------------------- jobs */

static const char *program_of(su_var v)
{
    const char *p = v == SU_OPENMPI ? STARTUP_OMPI_PROG : STARTUP_WEFT_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static int available(su_var v)
{
    return program_of(v) &&
           ol_mpirun_path(v == SU_OPENMPI ? OL_LIB_OPENMPI : OL_LIB_WEFT);
}

typedef struct job_state {
    int up, tcp_max, tcp_min;
} job_state;

static void job_line(void *arg, char *line)
{
    job_state *js = arg;
    char variant[BENCH_NAME_MAX];
    int a, b;
    if (sscanf(line, "up %39s %d", variant, &a) == 2)
        js->up = a;
    else if (sscanf(line, "tcp_peers %39s %d %d", variant, &a, &b) == 3)
        js->tcp_max = a, js->tcp_min = b;
    else
        printf("%s\n", line); /* anything else the job says */
}

static void build_cmd(ol_argv *a, su_var v, int np, int timeout_s)
{
    ol_lib lib = v == SU_OPENMPI ? OL_LIB_OPENMPI : OL_LIB_WEFT;
    ol_argv_mpirun(a, lib, np, timeout_s, 0, program_of(v));
    if (lib == OL_LIB_OPENMPI)
        ol_argv_option(a, "--oversubscribe");
    if (v == SU_WEFT_HWLOC_IO)
        ol_argv_setenv(a, "HWLOC_PLUGINS_BLACKLIST", "");
    ol_argv_add(a, "--variant");
    ol_argv_add(a, su_var_name(v));
}

/* Run one job; its wall time in ms, or -1 (after a note) if it failed
 * (timed_out set when it ran into its limit). */
static double run_job(const ol_argv *a, int np, int timeout_s,
                      const char *what, job_state *js, int *timed_out)
{
    *js = (job_state){0, -1, -1};
    int64_t t0 = bench_now_ns();
    int rc = ol_run_job(a, timeout_s, 0, job_line, js, what);
    double ms = (double)(bench_now_ns() - t0) / 1e6;
    *timed_out = rc != 0 && ms >= timeout_s * 1e3;
    if (rc == 0 && js->up == np)
        return ms;
    if (*timed_out)
        bench_table_note(&res.table, "%s: timed out (limit %d s)", what,
                         timeout_s);
    else
        bench_table_note(&res.table, "%s: the job failed after %.1f s "
                         "(see above)", what, ms / 1e3);
    return -1;
}

static void run_cell(int si, su_var v, int rep)
{
    int np = res.sizes[si], timeout_s = res.timeout_s[v][si], timed_out;
    su_cell *c = &res.cells[si][v];
    char what[80];
    ol_argv a;
    job_state js;
    build_cmd(&a, v, np, timeout_s);
    snprintf(what, sizeof what, "%s, %d ranks, repeat %d", su_var_name(v),
             np, rep + 1);
    double ms = run_job(&a, np, timeout_s, what, &js, &timed_out);
    if (ms >= 0 && c->n < BENCH_REPEATS_MAX)
        c->wall_ms[c->n++] = ms;
    else if (ms < 0 && timed_out)
        c->timeouts++;
    else if (ms < 0)
        c->failures++;
}

/* The TCP job: Weft over TCP at the largest size, counting connections. */
static void run_tcp_job(void)
{
    int np = res.tcp_np, timeout_s = timeout_of(SU_WEFT, np), timed_out;
    char what[80];
    ol_argv a;
    job_state js;
    build_cmd(&a, SU_WEFT, np, timeout_s);
    ol_argv_setenv(&a, "WEFT_MPI_TRANSPORT", "tcp");
    ol_argv_add(&a, "--count-tcp");
    snprintf(what, sizeof what, "weft over TCP, %d ranks, counting", np);
    res.tcp_wall_ms = run_job(&a, np, timeout_s, what, &js, &timed_out);
    res.tcp_max = res.tcp_wall_ms >= 0 ? js.tcp_max : -1;
    res.tcp_min = res.tcp_wall_ms >= 0 ? js.tcp_min : -1;
}

/* ------------------------------------------------------------- runs */

static void run_all(void)
{
    for (int rep = 0; rep < res.reps; rep++) {
        int64_t t0 = bench_now_ns();
        for (int si = 0; si < res.nsizes; si++)
            for (int k = 0; k < SU_NVARS; k++) {
                su_var v = (su_var)((k + rep + si) % SU_NVARS);
                if (!res.absent[v])
                    run_cell(si, v, rep);
            }
        printf("repeat %d/%d done in %.1f s\n", rep + 1, res.reps,
               (double)(bench_now_ns() - t0) / 1e9);
        fflush(stdout);
    }
    if (!res.absent[SU_WEFT])
        run_tcp_job();
}

static void set_sizes(int quick)
{
    const int *s = quick ? quick_sizes : full_sizes;
    res.nsizes = quick ? BENCH_COUNT(quick_sizes) : BENCH_COUNT(full_sizes);
    for (int i = 0; i < res.nsizes; i++) {
        res.sizes[i] = s[i];
        for (int v = 0; v < SU_NVARS; v++)
            res.timeout_s[v][i] = timeout_of((su_var)v, s[i]);
    }
    res.tcp_np = res.sizes[res.nsizes - 1];
}

/* ----------------------------------------------------------- header */

/* The machine is shared: every figure moves with its load. */
static void print_loadavg(const char *when)
{
    double one = -1, five = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf %lf", &one, &five) == 2)
        printf("load average (1 min, 5 min) %s: %.2f, %.2f on %ld CPUs\n",
               when, one, five, sysconf(_SC_NPROCESSORS_ONLN));
    if (f)
        fclose(f);
}

static void print_header(void)
{
    printf("bench=startup: wall time of mpirun -n N (fork to exit) of "
           "MPI_Init + MPI_Barrier + MPI_Finalize%s\n",
           res.quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    ol_openmpi_version(res.ompi_version, sizeof res.ompi_version);
    printf("weft: %s\n", res.absent[SU_WEFT] ? "not built: n/a"
           : "Weft's mpirun -n N, default settings");
    printf("weft_hwloc_io: the same, HWLOC_PLUGINS_BLACKLIST= (empty: "
           "every rank loads hwloc's I/O plugins)\n");
    if (res.absent[SU_OPENMPI])
        printf("openmpi: Open MPI is not installed (or its build of "
               "startup_mpi is missing): skipped, n/a\n");
    else
        printf("openmpi: %s, mpirun.openmpi --oversubscribe -n N, default "
               "transports\n",
               *res.ompi_version ? res.ompi_version : "Open MPI");
    printf("repeats: %d, alternating; TCP count: one Weft job of %d ranks "
           "with WEFT_MPI_TRANSPORT=tcp\n", res.reps, res.tcp_np);
    print_loadavg("before the run");
    fflush(stdout);
}

static int failed_launches(void)
{
    int n = res.tcp_wall_ms < 0 && !res.absent[SU_WEFT];
    for (int si = 0; si < res.nsizes; si++)
        for (int v = 0; v < SU_NVARS; v++)
            n += res.cells[si][v].timeouts + res.cells[si][v].failures;
    return n;
}

static int finish(const bench_opts *o, const bench_steal *since)
{
    int failed = failed_launches() > 0;
    su_report_build(&res);
    su_report_print(&res);
    print_loadavg("after the run");
    bench_print_steal(stdout, "the run", since);
    if (bench_table_write_csv(&res.table, SU_BENCH, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_startup.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "startup: some launches failed (see above)\n");
    return failed ? 1 : 0;
}

/* bench_parse_opts' default of 7 repeats would make a full run last an
 * hour here: ours is smaller unless --repeats is given. */
static int repeats_given(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], "--repeats", 9) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_steal since;
    int rc = bench_parse_opts(argc, argv, SU_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    res.quick = o.quick;
    res.reps = repeats_given(argc, argv) ? o.repeats
               : o.quick ? QUICK_REPS : FULL_REPS;
    set_sizes(o.quick);
    for (int v = 0; v < SU_NVARS; v++)
        res.absent[v] = !available((su_var)v);
    ol_cma_works(); /* probed once, before any launch is timed */
    print_header();
    bench_steal_mark(&since);
    run_all();
    return finish(&o, &since);
}
