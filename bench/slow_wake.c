/* bench/slow_wake: MPI ping-pong latency when a sleep costs milliseconds.
 *
 * Why. On a virtual machine whose host is busy, a virtual CPU that halts
 * (its threads all asleep) can take milliseconds to run again after the
 * interrupt that should wake it. A ping-pong whose waits outlast the spin
 * budget then sleeps on both sides, each reply is late by a wake-up, so
 * the next wait outlasts the budget too: measured at 10% host steal,
 * Weft's 8 B latency locked at ~2.4 ms where Open MPI, which never
 * sleeps, took ~19 us. The host's load cannot be made on demand, so this
 * benchmark emulates its effect: slow_wake_preload.c, loaded into every
 * rank, makes each epoll_wait that really slept return SLOW_WAKE_US late.
 *
 * Variants, each osu_like_mpi's latency case (--quick sizes), with no
 * delay and with a 2 ms one:
 *   weft              default settings: the spin budget's floor follows
 *                     the measured cost of a sleep (io/adapt.c);
 *   weft_spin_capped  WEFT_IO_SPIN_US=500 set, which caps that floor at
 *                     500 us: the behaviour before the floor was measured;
 *   openmpi_tcp       Open MPI's TCP path, busy-polling (for reference).
 * Each runs SW_LAUNCHES times, alternating; figures are the median of the
 * launches' medians [lowest min-highest max].
 *
 * Goal line (same run): with the 2 ms delay, Weft's 8 B latency within
 * 2x of its latency without delay (the lock costs ~300x).
 *
 * Output: table, goal line, `result:` lines (bench=slow_wake, cases
 * latency_<bytes>_wake<us>, variants above, metric latency in us), CSV
 * (bench-out/slow_wake.csv). No chart: six figures read better as a table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osu_like_launch.h"

#ifndef SLOW_WAKE_WEFT_PROG
#define SLOW_WAKE_WEFT_PROG ""
#endif
#ifndef SLOW_WAKE_OMPI_PROG
#define SLOW_WAKE_OMPI_PROG ""
#endif
#ifndef SLOW_WAKE_PRELOAD
#define SLOW_WAKE_PRELOAD ""
#endif

#define SW_LAUNCHES 3
#define JOB_TIMEOUT_S 120
#define NVARIANTS 3
#define NDELAYS 2

static const char *const variants[NVARIANTS] = {"weft", "weft_spin_capped", "openmpi_tcp"};
static const int delays_us[NDELAYS] = {0, 2000};
static const int sizes[] = {8, 1024};

static bench_table launches[NVARIANTS][NDELAYS][SW_LAUNCHES];
static bench_table merged;

typedef struct job_ctx {
    bench_table *dst;
    int delay_us;
} job_ctx;

/* Keep the chosen sizes' rows, renamed latency_<bytes>_wake<us>. */
static void job_line(void *arg, char *line)
{
    job_ctx *c = arg;
    bench_table t;
    memset(&t, 0, sizeof t);
    if (!ol_parse_child_line(line, &t)) {
        printf("%s\n", line);
        return;
    }
    for (int i = 0; i < t.nrows; i++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            char want[32], name[48];
            snprintf(want, sizeof want, "latency_%d", sizes[s]);
            if (strcmp(t.rows[i].case_name, want) != 0)
                continue;
            snprintf(name, sizeof name, "%s_wake%d", want, c->delay_us);
            bench_table_add(c->dst, name, t.rows[i].variant, t.rows[i].metric,
                            t.rows[i].st, t.rows[i].unit);
        }
}

static const char *program_of(int v)
{
    const char *p = v == 2 ? SLOW_WAKE_OMPI_PROG : SLOW_WAKE_WEFT_PROG;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

/* One job of variant v with the given delay; 0, or -1 if it failed or
 * cannot run here. */
static int run_job(int v, int delay_us, bench_table *dst, int quick)
{
    ol_lib lib = v == 2 ? OL_LIB_OPENMPI : OL_LIB_WEFT;
    const char *prog = program_of(v);
    char delay[16];
    ol_argv a;
    if (!prog || !ol_mpirun_path(lib))
        return -1;
    snprintf(delay, sizeof delay, "%d", delay_us);
    setenv("LD_PRELOAD", SLOW_WAKE_PRELOAD, 1);
    setenv("SLOW_WAKE_US", delay, 1);
    if (v == 1)
        setenv("WEFT_IO_SPIN_US", "500", 1);
    else
        unsetenv("WEFT_IO_SPIN_US");
    ol_argv_mpirun(&a, lib, 2, JOB_TIMEOUT_S, 1, prog);
    ol_argv_export(&a, "LD_PRELOAD");
    ol_argv_export(&a, "SLOW_WAKE_US");
    if (v == 1)
        ol_argv_export(&a, "WEFT_IO_SPIN_US");
    const char *args[] = {"--variant", variants[v], "--kind", "latency", "--quick",
                          "--repeats", quick ? "1" : "3"};
    for (size_t i = 0; i < sizeof args / sizeof *args; i++)
        ol_argv_add(&a, args[i]);
    job_ctx c = {dst, delay_us};
    int rc = ol_run_job(&a, JOB_TIMEOUT_S, 0, job_line, &c, variants[v]);
    unsetenv("LD_PRELOAD");
    return rc;
}

static void print_table(void)
{
    printf("\n%-22s", "8 B / 1 KiB latency, us");
    for (int v = 0; v < NVARIANTS; v++)
        printf(" %26s", variants[v]);
    printf("\n");
    for (int d = 0; d < NDELAYS; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            char name[48];
            snprintf(name, sizeof name, "latency_%d_wake%d", sizes[s], delays_us[d]);
            printf("%-22s", name);
            for (int v = 0; v < NVARIANTS; v++)
                bench_print_range_cell(stdout, 26, bench_table_find(&merged, name, variants[v]),
                                       "n/a");
            printf("\n");
        }
}

static int print_goal(void)
{
    const bench_row *slow = bench_table_find(&merged, "latency_8_wake2000", "weft");
    const bench_row *fast = bench_table_find(&merged, "latency_8_wake0", "weft");
    printf("\ngoal (ratio of medians, same run):\n");
    if (!slow || !fast) {
        printf("  weft 8 B latency, 2 ms wake / no delay: n/a\n");
        return 0;
    }
    double r = slow->st.median / fast->st.median;
    printf("  weft 8 B latency, 2 ms wake / none  %8.2f   goal <= 2   %s\n", r,
           r <= 2.0 ? "PASS" : "MISS");
    return r <= 2.0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, "slow_wake", &o), failed = 0;
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    int n = o.quick ? 1 : SW_LAUNCHES;
    printf("bench=slow_wake: MPI 8 B and 1 KiB ping-pong latency when every real sleep "
           "in epoll_wait returns late (emulated slow wake-up)%s\n", o.quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    bench_steal since;
    bench_steal_mark(&since);
    for (int l = 0; l < n; l++)
        for (int d = 0; d < NDELAYS; d++)
            for (int i = 0; i < NVARIANTS; i++) {
                int v = (i + l + d) % NVARIANTS;
                if (run_job(v, delays_us[d], &launches[v][d][l], o.quick) != 0 &&
                    program_of(v) && ol_mpirun_path(v == 2 ? OL_LIB_OPENMPI : OL_LIB_WEFT))
                    failed = 1;
            }
    for (int v = 0; v < NVARIANTS; v++)
        for (int d = 0; d < NDELAYS; d++)
            bench_table_merge(&merged, launches[v][d], n);
    print_table();
    print_goal();
    printf("\n");
    bench_table_print_results(&merged, "slow_wake", stdout);
    bench_print_steal(stdout, "the run", &since);
    if (bench_table_write_csv(&merged, "slow_wake", o.csv_path) != 0)
        return 1;
    printf("csv: %s\n", o.csv_path);
    return failed;
}
