/* bench/mpi_idle: the CPU a rank burns while it waits in MPI_Recv, Weft
 * beside Open MPI in the same run. Goal: a rank waiting 3 s in MPI_Recv
 * uses at most 2 % of a CPU (the issue measured ~96 % for Open MPI, whose
 * MPI_Recv polls).
 *
 * Experiment (mpi_idle_mpi.c): two ranks; rank 1 sleeps --wait-ms
 * (default 3000) and then sends; rank 0 waits in MPI_Recv and reports its
 * process's CPU time (user + system, all threads) over the wall time it
 * spent there, as a percentage of one CPU. Variants, each run as a user
 * would run it -- default settings, nothing tuned:
 *   weft     built against Weft's MPI, run by Weft's mpirun -n 2;
 *   openmpi  the same source built with mpicc.openmpi, run by
 *            mpirun.openmpi -n 2 (default transports and binding; as root
 *            with its run-as-root settings, see osu_like_launch.c;
 *            --oversubscribe only on a machine with one CPU).
 * Scenarios (the table's cases):
 *   quiet    nothing else started (the machine may be shared);
 *   load     this driver keeps --load busy-loop processes (default 2, one
 *            per CPU here) running for the whole job: the waiting rank
 *            competes for the CPUs, and only its own CPU time counts.
 * Repeats: --reps (default 5); each repeat runs every (scenario, library)
 * once, in an order that alternates between repeats, one job each.
 * Figures: median [min-max] over the repeats. The machine's load average
 * is printed before and after the run: a polling rank (Open MPI's) gets
 * less of a CPU the busier the machine is, so its figure falls below the
 * issue's ~96 % on a shared machine even in the quiet scenario.
 *
 * Output: table with the goal column (PASS/FAIL is informative; the exit
 * status reports failed runs only), `result:` lines (bench=mpi_idle,
 * case=quiet|load, variant=weft|openmpi, metric=cpu_percent,
 * unit=percent), a CSV (bench-out/mpi_idle.csv, bench_util's columns) and
 * a PNG (plot_mpi_idle.gp). Default run: about 1 minute; --quick: 0.5 s
 * waits, 2 repeats.
 */
#include "mpi_idle.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "osu_like_launch.h"

#ifndef MPI_IDLE_WEFT_PROG
#define MPI_IDLE_WEFT_PROG ""
#endif
#ifndef MPI_IDLE_OMPI_PROG
#define MPI_IDLE_OMPI_PROG ""
#endif

#define DEFAULT_WAIT_MS 3000
#define QUICK_WAIT_MS   500
#define DEFAULT_REPS    5
#define QUICK_REPS      2
#define DEFAULT_LOAD    2
#define MAX_LOAD        64
#define LAUNCH_S        60 /* per job, beyond the wait */

static mi_results res; /* large: static */

const char *mi_lib_name(mi_lib l)
{
    return l == MI_WEFT ? "weft" : "openmpi";
}

const char *mi_scen_name(mi_scen s)
{
    return s == MI_QUIET ? "quiet" : "load";
}

/* ---------------------------------------------------------- options */

static void usage(const char *prog)
{
    printf("usage: %s [--quick] [--wait-ms MS] [--reps N] [--load N] "
           "[--csv PATH] [--png PATH]\n"
           "  --quick       %d ms waits, %d repeats\n"
           "  --wait-ms MS  how long rank 0 waits in MPI_Recv (default %d)\n"
           "  --reps N      repeats of each (scenario, library) (default %d)"
           "\n  --load N      busy-loop processes of the load scenario "
           "(default %d)\n"
           "  --csv PATH    CSV output (default bench-out/%s.csv)\n"
           "  --png PATH    chart, drawn if gnuplot is on PATH "
           "(default bench-out/%s.png)\n",
           prog, QUICK_WAIT_MS, QUICK_REPS, DEFAULT_WAIT_MS, DEFAULT_REPS,
           DEFAULT_LOAD, MI_BENCH, MI_BENCH);
}

/* An integer in lo..hi, or -1 (after a message). */
static int int_arg(const char *name, const char *text, int lo, int hi)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text && !*end && v >= lo && v <= hi)
        return (int)v;
    fprintf(stderr, "mpi_idle: %s wants %d..%d, got '%s'\n", name, lo, hi,
            text);
    return -1;
}

static int set_path(char *dst, size_t size, const char *src)
{
    if (snprintf(dst, size, "%s", src) < (int)size)
        return 0;
    fprintf(stderr, "mpi_idle: path too long: %s\n", src);
    return -1;
}

static int parse_one(int opt, const char *arg, bench_opts *o)
{
    switch (opt) {
    case 'q': o->quick = 1; return 0;
    case 'w': return (res.wait_ms = int_arg("--wait-ms", arg, 0, 600000)) < 0;
    case 'r': return (res.reps = int_arg("--reps", arg, 1,
                                         BENCH_REPEATS_MAX)) < 0;
    case 'l': return (res.load_procs = int_arg("--load", arg, 0,
                                               MAX_LOAD)) < 0;
    case 'c': return set_path(o->csv_path, sizeof o->csv_path, arg);
    case 'p': return set_path(o->png_path, sizeof o->png_path, arg);
    default: return -1;
    }
}

/* 0 to run, 1 after --help, -1 on a bad option. */
static int parse_opts(int argc, char **argv, bench_opts *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'q'}, {"wait-ms", required_argument, 0, 'w'},
        {"reps", required_argument, 0, 'r'},
        {"repeats", required_argument, 0, 'r'},
        {"load", required_argument, 0, 'l'}, {"csv", required_argument, 0, 'c'},
        {"png", required_argument, 0, 'p'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int opt;
    memset(o, 0, sizeof *o);
    snprintf(o->csv_path, sizeof o->csv_path, "bench-out/%s.csv", MI_BENCH);
    snprintf(o->png_path, sizeof o->png_path, "bench-out/%s.png", MI_BENCH);
    res.wait_ms = res.reps = -1;
    res.load_procs = DEFAULT_LOAD;
    while ((opt = getopt_long(argc, argv, "", longopts, 0)) != -1) {
        if (opt == 'h') {
            usage(argv[0]);
            return 1;
        }
        if (parse_one(opt, optarg, o) != 0)
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "mpi_idle: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (res.wait_ms < 0)
        res.wait_ms = o->quick ? QUICK_WAIT_MS : DEFAULT_WAIT_MS;
    if (res.reps < 0)
        res.reps = o->quick ? QUICK_REPS : DEFAULT_REPS;
    return 0;
}

/* ------------------------------------------------------------- load */

static void busy_loop(void)
{
    volatile unsigned long spin = 0;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;)
        spin++;
}

/* Start n busy-loop processes; returns how many started. */
static int start_load(pid_t *pids, int n)
{
    int started = 0;
    fflush(stdout);
    fflush(stderr);
    for (; started < n; started++) {
        pid_t pid = fork();
        if (pid == 0)
            busy_loop();
        if (pid < 0)
            break;
        pids[started] = pid;
    }
    return started;
}

static void stop_load(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++)
        kill(pids[i], SIGKILL);
    for (int i = 0; i < n; i++)
        waitpid(pids[i], NULL, 0);
}

/* ------------------------------------------------------------- jobs */

static const char *program_of(mi_lib l)
{
    const char *p = l == MI_WEFT ? MPI_IDLE_WEFT_PROG : MPI_IDLE_OMPI_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static int available(mi_lib l)
{
    return program_of(l) &&
           ol_mpirun_path(l == MI_WEFT ? OL_LIB_WEFT : OL_LIB_OPENMPI);
}

typedef struct job_state {
    mi_cell *cell;
    int got;
} job_state;

static void idle_line(void *arg, char *line)
{
    job_state *js = arg;
    char variant[BENCH_NAME_MAX];
    double cpu, wall;
    if (sscanf(line, "idle %39s %lf %lf", variant, &cpu, &wall) != 3 ||
        wall <= 0) {
        printf("%s\n", line); /* anything else the job says */
        return;
    }
    mi_cell *c = js->cell;
    js->got++;
    if (c->n < BENCH_REPEATS_MAX) {
        c->cpu_pct[c->n] = 100.0 * cpu / wall;
        c->wall_ms[c->n++] = wall;
    }
}

/* The job's command line and the texts it points to. */
typedef struct job_cmd {
    ol_argv argv;
    char wait[16];
} job_cmd;

static void build_cmd(job_cmd *c, mi_lib l, int timeout_s)
{
    ol_lib ol = l == MI_WEFT ? OL_LIB_WEFT : OL_LIB_OPENMPI;
    ol_argv_mpirun(&c->argv, ol, 2, timeout_s, 0, program_of(l));
    if (ol == OL_LIB_OPENMPI && sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        c->argv.n--; /* the program: after the option */
        ol_argv_add(&c->argv, "--oversubscribe");
        ol_argv_add(&c->argv, program_of(l));
    }
    snprintf(c->wait, sizeof c->wait, "%d", res.wait_ms);
    ol_argv_add(&c->argv, "--variant");
    ol_argv_add(&c->argv, mi_lib_name(l));
    ol_argv_add(&c->argv, "--wait-ms");
    ol_argv_add(&c->argv, c->wait);
}

static void run_job(mi_lib l, mi_scen s, int rep)
{
    pid_t load[MAX_LOAD];
    char what[64];
    job_cmd c;
    job_state js = {&res.cells[s][l], 0};
    int timeout_s = res.wait_ms / 1000 + LAUNCH_S;
    build_cmd(&c, l, timeout_s);
    snprintf(what, sizeof what, "%s, %s, repeat %d", mi_lib_name(l),
             mi_scen_name(s), rep + 1);
    int nload = s == MI_LOAD ? start_load(load, res.load_procs) : 0;
    if (s == MI_LOAD && nload < res.load_procs)
        bench_table_note(&res.table, "%s: %d of %d load processes started",
                         what, nload, res.load_procs);
    int rc = ol_run_job(&c.argv, timeout_s, 0, idle_line, &js, what);
    stop_load(load, nload);
    if (rc != 0 || js.got != 1) {
        res.failures[l]++;
        bench_table_note(&res.table, "%s: the job failed or printed %d "
                         "idle lines (see above)", what, js.got);
    }
}

/* ------------------------------------------------------------- runs */

static void run_all(void)
{
    for (int rep = 0; rep < res.reps; rep++) {
        int64_t t0 = bench_now_ns();
        for (int k = 0; k < MI_NSCENS * MI_NLIBS; k++) {
            mi_scen s = (mi_scen)((k / MI_NLIBS + rep) % MI_NSCENS);
            mi_lib l = (mi_lib)((k + rep) % MI_NLIBS);
            if (!res.absent[l])
                run_job(l, s, rep);
        }
        printf("repeat %d/%d done in %.1f s\n", rep + 1, res.reps,
               (double)(bench_now_ns() - t0) / 1e9);
        fflush(stdout);
    }
}

/* The machine is shared: "quiet" is only as quiet as the others let it
 * be, and a polling rank gets less of a CPU the busier it is. */
static void print_loadavg(const char *when)
{
    double one = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf", &one) == 1)
        printf("load average (1 min) %s: %.2f on %ld CPUs\n", when, one,
               sysconf(_SC_NPROCESSORS_ONLN));
    if (f)
        fclose(f);
}

static void print_header(const bench_opts *o)
{
    printf("bench=mpi_idle: CPU of rank 0 while it waits %d ms in MPI_Recv "
           "(getrusage of its process, all threads)%s\n", res.wait_ms,
           o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    ol_openmpi_version(res.ompi_version, sizeof res.ompi_version);
    printf("weft: %s\n", res.absent[MI_WEFT] ? "not built: n/a"
           : "Weft's mpirun -n 2, default settings");
    if (res.absent[MI_OPENMPI])
        printf("openmpi: Open MPI is not installed (or its build of "
               "mpi_idle_mpi is missing): skipped, n/a\n");
    else
        printf("openmpi: %s, mpirun.openmpi -n 2, default transports and "
               "binding\n", *res.ompi_version ? res.ompi_version : "Open MPI");
    printf("scenarios: quiet (nothing started), load (%d busy-loop "
           "processes); repeats: %d, alternating\n", res.load_procs,
           res.reps);
    print_loadavg("before the run");
    fflush(stdout);
}

static int finish(const bench_opts *o, const bench_steal *since)
{
    int failed = res.failures[MI_WEFT] + res.failures[MI_OPENMPI] > 0;
    mi_report_build(&res);
    mi_report_print(&res);
    print_loadavg("after the run");
    bench_print_steal(stdout, "the run", since);
    if (bench_table_write_csv(&res.table, MI_BENCH, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_mpi_idle.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "mpi_idle: some runs failed (see above)\n");
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    bench_steal since;
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    for (int l = 0; l < MI_NLIBS; l++)
        res.absent[l] = !available((mi_lib)l);
    print_header(&o);
    bench_steal_mark(&since);
    run_all();
    return finish(&o, &since);
}
