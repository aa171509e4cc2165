/* bench/earth, the MPI program: fib(n) and N-queens(n) run by every rank
 * of the job together, as the EARTH paper runs them (its Figures 4-5),
 * timed by rank 0. Plain MPI under MPI_THREAD_MULTIPLE, built twice by
 * CMake: against Weft's mpi.h (WEFT_MPI defined: the compute and
 * communication threads are Weft user-level threads, four compute ULTs
 * per worker) and with mpicc.openmpi (pthreads, one compute thread per
 * worker, and a communication thread blocking in MPI_Recv).
 *
 *   earth_mpi --variant NAME --workers W --fib N --queens M --repeats R
 *
 * W: the workers (cores) each rank uses; Weft's are set by WEFT_WORKERS
 * (the driver sets both), which this program reads back. N or M 0 skips
 * that problem. Each run of a problem: the job duplicates
 * MPI_COMM_WORLD (a run's messages cannot meet another's), a barrier,
 * the run (earth_rank.c), a reduction of the ranks' shares; rank 0 times
 * from the barrier to the reduction's end and checks the answer against
 * earth_expected() -- every run, the untimed warm-up run too; a wrong
 * answer aborts the job. The problems alternate, R timed runs each.
 *
 * Rank 0 prints its figures in bench_util's child format (`row` and
 * `note` lines): per problem, case <problem><n>_r<ranks>w<W>, metric
 * time in ms (median, min, max over the R runs), and a note with the
 * job's steal counts. A self-destruct alarm bounds the program's life
 * even if its launcher's time limit fails.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "earth.h"
#include "earth_rank.h"
#include "earth_thread.h"

#define LIFETIME_S 600
#define MAX_REPEATS 50

typedef struct args {
    const char *variant;
    int workers, repeats;
    int n[EARTH_NPROBLEMS];
} args;

typedef struct problem_log {
    double ms[MAX_REPEATS];
    int runs;
    earth_stats st; /* summed over ranks and timed runs */
} problem_log;

static int rank, size;

/* The job's answer and counters after one run, on rank 0. */
static void reduce_run(uint64_t sum, const earth_stats *st, uint64_t *total,
                       earth_stats *all)
{
    uint64_t mine[EARTH_STATS_WORDS] = {st->tasks, st->steals_sent,
                                        st->steals_won, st->tasks_shipped};
    uint64_t got[EARTH_STATS_WORDS];
    MPI_Reduce(&sum, total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, got, EARTH_STATS_WORDS, MPI_UINT64_T, MPI_SUM, 0,
               MPI_COMM_WORLD);
    all->tasks += got[0];
    all->steals_sent += got[1];
    all->steals_won += got[2];
    all->tasks_shipped += got[3];
}

static void check_answer(earth_problem p, int n, uint64_t got)
{
    uint64_t want = earth_expected(p, n);
    if (rank == 0 && got != want) {
        fprintf(stderr, "earth: %s(%d) = %llu, expected %llu\n",
                earth_problem_name(p), n, (unsigned long long)got,
                (unsigned long long)want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* One checked run; its time in ms on rank 0. */
static double run_once(earth_problem p, int n, int threads, earth_stats *all)
{
    MPI_Comm comm;
    earth_stats st;
    uint64_t sum = 0, total = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Barrier(comm);
    int64_t t0 = bench_now_ns();
    if (earth_rank_run(comm, earth_task_root(p, n), threads, &sum, &st) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    reduce_run(sum, &st, &total, all);
    double ms = (double)(bench_now_ns() - t0) / 1e6;
    MPI_Comm_free(&comm);
    check_answer(p, n, total);
    return ms;
}

static void report(const args *a, earth_problem p, problem_log *log)
{
    char name[BENCH_NAME_MAX];
    bench_table t;
    const earth_stats *s = &log->st;
    memset(&t, 0, sizeof t);
    earth_case_name(name, sizeof name, p, a->n[p], size, a->workers);
    bench_table_add(&t, name, a->variant, "time",
                    bench_stats_of(log->ms, log->runs), "ms");
    bench_table_note(&t, "%s %s: answer checked on %d runs; per run %llu tasks, "
                     "%llu steal requests, %llu won, %llu tasks shipped",
                     a->variant, name, log->runs + 1,
                     (unsigned long long)(s->tasks / (uint64_t)log->runs),
                     (unsigned long long)(s->steals_sent / (uint64_t)log->runs),
                     (unsigned long long)(s->steals_won / (uint64_t)log->runs),
                     (unsigned long long)(s->tasks_shipped / (uint64_t)log->runs));
    bench_table_emit(&t, stdout);
}

static void run_all(const args *a, int threads)
{
    static problem_log logs[EARTH_NPROBLEMS];
    earth_stats warm;
    for (int p = 0; p < EARTH_NPROBLEMS; p++)
        if (a->n[p] > 0)
            run_once((earth_problem)p, a->n[p], threads, &warm);
    for (int r = 0; r < a->repeats; r++)
        for (int p = 0; p < EARTH_NPROBLEMS; p++) {
            problem_log *log = &logs[p];
            if (a->n[p] > 0)
                log->ms[log->runs++] =
                    run_once((earth_problem)p, a->n[p], threads, &log->st);
        }
    for (int p = 0; p < EARTH_NPROBLEMS && rank == 0; p++)
        if (a->n[p] > 0)
            report(a, (earth_problem)p, &logs[p]);
}

/* -------------------------------------------------------------- main */

static int parse_pair(const char *k, const char *v, args *a)
{
    if (strcmp(k, "--variant") == 0)
        a->variant = v;
    else if (strcmp(k, "--workers") == 0)
        a->workers = atoi(v);
    else if (strcmp(k, "--fib") == 0)
        a->n[EARTH_FIB] = atoi(v);
    else if (strcmp(k, "--queens") == 0)
        a->n[EARTH_QUEENS] = atoi(v);
    else if (strcmp(k, "--repeats") == 0)
        a->repeats = atoi(v);
    else
        return -1;
    return 0;
}

static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->variant = EARTH_LIB;
    a->workers = 1;
    a->repeats = 3;
    if (argc % 2 != 1)
        return -1;
    for (int i = 1; i + 1 < argc; i += 2)
        if (parse_pair(argv[i], argv[i + 1], a) != 0)
            return -1;
    return a->workers >= 1 && a->repeats >= 1 && a->repeats <= MAX_REPEATS &&
           a->n[EARTH_FIB] >= 0 && a->n[EARTH_FIB] <= 40 &&
           a->n[EARTH_QUEENS] >= 0 && a->n[EARTH_QUEENS] <= 14 ? 0 : -1;
}

/* Compute threads: as many as the rank has workers (pthreads) or four
 * per worker (ULTs; Weft's workers are what WEFT_WORKERS says). */
static int compute_threads(const args *a)
{
#ifdef WEFT_MPI
    int w = weft_num_workers();
    if (w != a->workers && rank == 0)
        printf("note %s: the ranks run %d Weft workers, not %d (set "
               "WEFT_WORKERS)\n", a->variant, w, a->workers);
    return EARTH_THREADS_PER_WORKER * w;
#else
    return EARTH_THREADS_PER_WORKER * a->workers;
#endif
}

int main(int argc, char **argv)
{
    int provided;
    args a;
    alarm(LIFETIME_S);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &a) != 0 || provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "earth_mpi: needs MPI_THREAD_MULTIPLE and "
                    "--variant, --workers W, --fib N (<= 40), --queens M "
                    "(<= 14), --repeats R (<= %d)\n", MAX_REPEATS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    run_all(&a, compute_threads(&a));
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
