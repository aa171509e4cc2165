/* bench/osu_like, collective latency (the driver side): MPI_Barrier,
 * MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Allgather and MPI_Alltoall on
 * 2, 4 and 8 ranks of one machine, 8 B to 1 MiB, for four variants side
 * by side in the same run, each run as users run it:
 *   weft         osu_like_coll_mpi built against Weft's MPI, run by Weft's
 *                mpirun at its defaults (shared memory; WEFT_MPI_TRANSPORT
 *                and WEFT_MPI_SHM_COLL removed from the job's environment);
 *   openmpi      the same source built with mpicc.openmpi, run by
 *                mpirun.openmpi --oversubscribe at its defaults (vader
 *                shared memory, its tuned collectives; the ranks outnumber
 *                the cores from 4 ranks on, which mpirun refuses without
 *                --oversubscribe, and then it binds no rank); the reference;
 *   openmpi_tcp  the same with --mca btl tcp,self (its TCP path);
 *   weft_msg     Weft with WEFT_MPI_SHM_COLL=0: its collectives as message
 *                schedules only, the A/B of the shared-memory ones.
 * The MPI program (osu_like_coll_mpi.c) has the method: OSU-style, each
 * call timed alone between barriers, the mean over the ranks of the time
 * per call, median [min-max] over the repeats. Each job's rank 0 also
 * reports its shared-memory segments (mpi_segments.c).
 *
 * Order: for each rank count and each collective, each variant runs
 * OLC_LAUNCHES jobs measuring that collective only, the variants
 * alternating and their order rotating from job to job, so the figures
 * compared side by side are measured seconds apart; a figure is the median
 * of the launches' medians [lowest min-highest max] (bench_table_merge,
 * as in osu_like.c). --quick runs one job per variant and rank count with
 * every collective at 8 B, 1 KiB and 64 KiB.
 *
 * Goals, against Open MPI at its defaults, at 2 and 4 ranks (PASS/MISS
 * lines, never the exit status): the worst weft / openmpi ratio over the
 * sizes <= 1.2 for every collective; <= 1 for barrier, bcast and allreduce
 * at the sizes up to 1 KiB. 8 ranks (4 per core here) are measured and
 * shown, with no goal.
 *
 * Bounds: a job stops starting repeats after its budget (8 s per
 * collective, shared by its launches; --quick 4 s), runs under its
 * mpirun's --timeout and is killed 10 s past it (osu_like_launch.c).
 * Default run: three to five minutes; --quick: about 12 s.
 *
 * Output: tables, goal lines, segments, `result:` lines (bench=osu_like,
 * cases <collective>_<bytes>_np<ranks>, metric latency in us), a CSV and
 * a PNG (plot_osu_like_coll.gp) beside osu_like's own, with "_coll" added
 * to their names.
 */
#include "osu_like_coll.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "osu_like_launch.h"

#ifndef OSU_LIKE_COLL_WEFT_PROG
#define OSU_LIKE_COLL_WEFT_PROG ""
#endif
#ifndef OSU_LIKE_COLL_OMPI_PROG
#define OSU_LIKE_COLL_OMPI_PROG ""
#endif

#define JOB_SLACK_S 60 /* launch, calibration and finalize, per job */
#define OLC_LAUNCHES 3 /* jobs per collective, rank count and variant */

static olc_results res; /* large: static */
/* launch l of variant v at rank count npi; merged into res.tables */
static bench_table launches[OLC_NVARIANTS][OLC_NNPS][OLC_LAUNCHES];

/* ------------------------------------------------------------- jobs */

static void job_line(void *arg, char *line)
{
    bench_table *dst = arg, tmp;
    memset(&tmp, 0, sizeof tmp);
    if (ms_parse(line, &res.segments))
        return;
    if (!ol_parse_child_line(line, &tmp)) {
        printf("%s\n", line); /* anything else the job says */
        return;
    }
    for (int i = 0; i < tmp.nrows; i++)
        bench_table_add(dst, tmp.rows[i].case_name, tmp.rows[i].variant,
                        tmp.rows[i].metric, tmp.rows[i].st, tmp.rows[i].unit);
    for (int i = 0; i < tmp.nnotes; i++)
        bench_table_note(&res.notes, "%s", tmp.notes[i]);
}

static int is_weft(olc_variant v)
{
    return v == OLC_WEFT || v == OLC_WEFT_MSG;
}

static ol_lib lib_of(olc_variant v)
{
    return is_weft(v) ? OL_LIB_WEFT : OL_LIB_OPENMPI;
}

static const char *program_of(olc_variant v)
{
    const char *p = is_weft(v) ? OSU_LIKE_COLL_WEFT_PROG
                               : OSU_LIKE_COLL_OMPI_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

/* mpirun -n np --timeout s [Open MPI: --oversubscribe] [--mca btl
 * tcp,self] prog --variant V --repeats R [--quick] [--coll C] */
static void job_argv(ol_argv *a, olc_variant v, int np, int timeout_s,
                     const olc_plan *p, int coll, char *repeats, size_t rsize)
{
    snprintf(repeats, rsize, "%d", p->repeats);
    ol_argv_mpirun(a, lib_of(v), np, timeout_s, v == OLC_OMPI_TCP,
                   program_of(v));
    if (is_weft(v)) /* its defaults: shared memory */
        ol_argv_setenv(a, "WEFT_MPI_TRANSPORT", NULL);
    if (is_weft(v))
        ol_argv_setenv(a, "WEFT_MPI_SHM_COLL", v == OLC_WEFT_MSG ? "0" : NULL);
    else
        ol_argv_option(a, "--oversubscribe");
    const char *mine[] = {"--variant", olc_variant_name(v), "--repeats",
                          repeats};
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++)
        ol_argv_add(a, mine[i]);
    if (p->quick)
        ol_argv_add(a, "--quick");
    if (coll >= 0) {
        ol_argv_add(a, "--coll");
        ol_argv_add(a, olc_coll_name((olc_coll)coll));
    }
}

/* One job, launch l: collective `coll` (-1: all) of variant v on
 * olc_np(npi) ranks; a variant's state at a rank count is its worst
 * job's. */
static void run_job(olc_variant v, int npi, const olc_plan *p, int coll, int l)
{
    int ncolls = coll >= 0 ? 1 : OLC_NCOLLS, st;
    int timeout_s = ncolls * (int)(p->budget_ns / 1000000000) + JOB_SLACK_S;
    int64_t t0 = bench_now_ns();
    char repeats[16], what[64];
    ol_argv a;
    snprintf(what, sizeof what, "%s np%d", olc_variant_name(v), olc_np(npi));
    if (!program_of(v) || !ol_mpirun_path(lib_of(v))) {
        st = OLC_ST_ABSENT;
    } else {
        job_argv(&a, v, olc_np(npi), timeout_s, p, coll, repeats, sizeof repeats);
        st = ol_run_job(&a, timeout_s, 0, job_line, &launches[v][npi][l],
                        what) == 0 ? OLC_ST_OK : OLC_ST_FAILED;
    }
    if (st > res.state[v][npi])
        res.state[v][npi] = st;
    printf("  %-9s np%d %-12s %s in %.1f s\n",
           coll >= 0 ? olc_coll_name((olc_coll)coll) : "all", olc_np(npi),
           olc_variant_name(v), st == OLC_ST_OK ? "done"
           : st == OLC_ST_ABSENT ? "not available" : "FAILED",
           (double)(bench_now_ns() - t0) / 1e9);
    fflush(stdout);
}

static void run_all(const olc_plan *all)
{
    int job = 0, first = all->quick ? -1 : 0, last = all->quick ? -1 : OLC_NCOLLS - 1;
    int n = all->quick ? 1 : OLC_LAUNCHES;
    olc_plan p = *all;
    p.repeats = bench_launch_repeats(all->repeats, n);
    p.budget_ns = all->budget_ns / n;
    for (int npi = 0; npi < OLC_NNPS; npi++) {
        for (int c = first; c <= last; c++)
            for (int l = 0; l < n; l++, job++)
                for (int i = 0; i < OLC_NVARIANTS; i++)
                    run_job((olc_variant)((i + job) % OLC_NVARIANTS), npi, &p, c, l);
        for (int v = 0; v < OLC_NVARIANTS; v++)
            bench_table_merge(&res.tables[v][npi], launches[v][npi], n);
    }
}

/* ------------------------------------------------------------- main */

/* path with "_coll" inserted before its extension (or appended). */
static void coll_path(char *out, size_t size, const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        dot = path + strlen(path);
    snprintf(out, size, "%.*s_coll%s", (int)(dot - path), path, dot);
}

int olc_run(const bench_opts *o)
{
    char csv[sizeof o->csv_path + 8], png[sizeof o->png_path + 8];
    olc_plan p = olc_make_plan(o->quick, o->repeats);
    int failed = 0;
    res.quick = o->quick;
    res.repeats = o->repeats;
    printf("\nbench=osu_like, collectives: latency on MPI_COMM_WORLD, 2, 4 "
           "and 8 ranks on this machine (weft vs openmpi, both at their "
           "defaults, and openmpi_tcp)%s\n", o->quick ? " (--quick)" : "");
    if (!program_of(OLC_OMPI) || !ol_mpirun_path(OL_LIB_OPENMPI))
        printf("Open MPI is not installed (or its build of "
               "osu_like_coll_mpi is missing): Weft only, goals n/a\n");
    else
        ol_print_openmpi_cma(stdout);
    run_all(&p);
    olc_report_print(&res);
    for (int v = 0; v < OLC_NVARIANTS; v++)
        for (int n = 0; n < OLC_NNPS; n++)
            failed |= res.state[v][n] == OLC_ST_FAILED;
    coll_path(csv, sizeof csv, o->csv_path);
    coll_path(png, sizeof png, o->png_path);
    if (olc_report_csv(&res, csv) != 0)
        return 1;
    printf("csv: %s\n", csv);
    failed |= bench_plot("plot_osu_like_coll.gp", csv, png) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "osu_like: some collective jobs failed (see above)\n");
    return failed ? 1 : 0;
}
