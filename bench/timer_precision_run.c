/* bench/timer_precision, the measuring side (one case per child process;
 * see timer_precision.c for the plan).
 *
 * The sleeper measures its own suspension with CLOCK_MONOTONIC around each
 * sleep, as the paper did with gethrtime(); offset = actual - requested.
 * Variants:
 *   weft       weft_init(), then a sleeper ULT at the default priority
 *              calls weft_sleep(d); the load is compute ULTs (default
 *              priority, never yielding: preempted by the 10 ms quantum);
 *   nanosleep  the main pthread calls clock_nanosleep(CLOCK_MONOTONIC,
 *              relative d) with the default timer slack; the load is
 *              compute pthreads;
 *   setitimer  the main pthread arms setitimer(ITIMER_REAL, d) and waits
 *              for SIGALRM (sigsuspend: the race-free form of the paper's
 *              pause()); compute pthreads block SIGALRM so the signal
 *              always reaches the sleeper.
 * Load N0/N2/N10 is that many compute threads in the process; P2 is two
 * CPU-bound child processes (forked before anything else starts, killed
 * at the end; PR_SET_PDEATHSIG kills them if we die). A few warm-up sleeps
 * are not counted.
 */
#include "timer_precision.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#define WARMUP 5
#define MAX_COMPUTE 16
#define MAX_PROCS 4

static atomic_int stop_load;

typedef struct sampler {
    int64_t dur_ns;
    int n;
    double *offset_us;
} sampler;

/* ------------------------------------------------------------ the case */

int tp_parse_case(const char *name, tp_case *c)
{
    memset(c, 0, sizeof *c);
    if (sscanf(name, "%15[a-z]:%d:%7s", c->variant, &c->dur_ms, c->load) != 3)
        return -1;
    if (strcmp(c->variant, "weft") && strcmp(c->variant, "nanosleep") &&
        strcmp(c->variant, "setitimer"))
        return -1;
    if (c->load[0] == 'N')
        c->ncompute = atoi(c->load + 1);
    else if (c->load[0] == 'P')
        c->nprocs = atoi(c->load + 1);
    else
        return -1;
    return c->dur_ms > 0 && c->ncompute <= MAX_COMPUTE && c->nprocs <= MAX_PROCS ? 0 : -1;
}

int tp_sleep_count(int dur_ms, int quick)
{
    const char *env = getenv("TIMER_PRECISION_SLEEPS");
    if (env && atoi(env) > 0)
        return atoi(env);
    if (dur_ms <= 1)
        return quick ? 50 : 1000;
    return quick ? 10 : 100;
}

/* ------------------------------------------------------------- load */

static void spin_until_stopped(void)
{
    volatile uint64_t x = 1;
    while (!atomic_load_explicit(&stop_load, memory_order_relaxed))
        for (int i = 0; i < 1000; i++)
            x = x * 6364136223846793005ULL + 1;
}

static void *compute_thread(void *arg)
{
    (void)arg;
    spin_until_stopped();
    return NULL;
}

static void start_competitors(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            spin_until_stopped(); /* never stops: killed by the parent */
            _exit(0);
        }
    }
}

static void stop_competitors(pid_t *pids, int n)
{
    for (int i = 0; i < n; i++) {
        if (pids[i] > 0) {
            kill(pids[i], SIGKILL);
            waitpid(pids[i], NULL, 0);
        }
    }
}

static int start_pthreads(pthread_t *th, int n)
{
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, compute_thread, NULL) != 0)
            return -1;
    return 0;
}

static void stop_pthreads(pthread_t *th, int n)
{
    atomic_store(&stop_load, 1);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

/* ----------------------------------------------------------- variants */

static void record(sampler *s, int i, int64_t t0, int64_t t1)
{
    if (i >= 0)
        s->offset_us[i] = (double)(t1 - t0 - s->dur_ns) / 1000.0;
}

static void *weft_sleeper(void *arg)
{
    sampler *s = arg;
    for (int i = -WARMUP; i < s->n; i++) {
        int64_t t0 = bench_now_ns();
        weft_sleep(s->dur_ns);
        record(s, i, t0, bench_now_ns());
    }
    return NULL;
}

static int run_weft(const tp_case *c, sampler *s)
{
    weft_thread_t comp[MAX_COMPUTE], sl;
    if (weft_init() != 0)
        return -1;
    for (int i = 0; i < c->ncompute; i++)
        if (weft_thread_create(&comp[i], NULL, compute_thread, NULL) != 0)
            return -1;
    if (weft_thread_create(&sl, NULL, weft_sleeper, s) != 0)
        return -1;
    weft_thread_join(sl, NULL);
    atomic_store(&stop_load, 1);
    for (int i = 0; i < c->ncompute; i++)
        weft_thread_join(comp[i], NULL);
    return weft_fini() == 0 ? 0 : -1;
}

static void nanosleep_loop(sampler *s)
{
    struct timespec req = {(time_t)(s->dur_ns / 1000000000), (long)(s->dur_ns % 1000000000)};
    for (int i = -WARMUP; i < s->n; i++) {
        int64_t t0 = bench_now_ns();
        clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL);
        record(s, i, t0, bench_now_ns());
    }
}

static void on_alarm(int sig)
{
    (void)sig;
}

static void setitimer_loop(sampler *s, const sigset_t *wait_mask)
{
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = (time_t)(s->dur_ns / 1000000000);
    it.it_value.tv_usec = (suseconds_t)(s->dur_ns % 1000000000 / 1000);
    for (int i = -WARMUP; i < s->n; i++) {
        int64_t t0 = bench_now_ns();
        setitimer(ITIMER_REAL, &it, NULL);
        sigsuspend(wait_mask); /* returns once SIGALRM was handled */
        record(s, i, t0, bench_now_ns());
    }
}

/* SIGALRM blocked before the load starts, so only the sleeper takes it. */
static int run_native(const tp_case *c, sampler *s)
{
    pthread_t comp[MAX_COMPUTE];
    sigset_t alrm, wait_mask;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alrm, &wait_mask);
    sigdelset(&wait_mask, SIGALRM);
    if (start_pthreads(comp, c->ncompute) != 0)
        return -1;
    if (strcmp(c->variant, "nanosleep") == 0)
        nanosleep_loop(s);
    else
        setitimer_loop(s, &wait_mask);
    stop_pthreads(comp, c->ncompute);
    return 0;
}

/* ------------------------------------------------------------ results */

static void add_rows(const tp_case *c, double *v, int n, bench_table *t)
{
    char case_name[BENCH_NAME_MAX];
    snprintf(case_name, sizeof case_name, "sleep_%dms_%s", c->dur_ms, c->load);
    bench_stats med = bench_stats_of(v, n); /* sorts v */
    int i99 = (99 * n + 99) / 100 - 1; /* ceil(0.99 n) - 1 */
    bench_stats p99 = {v[i99], v[i99], v[i99]};
    bench_stats max = {med.max, med.max, med.max};
    bench_table_add(t, case_name, c->variant, "offset_median", med, "us");
    bench_table_add(t, case_name, c->variant, "offset_p99", p99, "us");
    bench_table_add(t, case_name, c->variant, "offset_max", max, "us");
}

int tp_measure(const tp_case *c, int quick, bench_table *t)
{
    sampler s = {.dur_ns = (int64_t)c->dur_ms * 1000000, .n = tp_sleep_count(c->dur_ms, quick)};
    pid_t procs[MAX_PROCS] = {0};
    s.offset_us = calloc((size_t)s.n, sizeof *s.offset_us);
    if (!s.offset_us)
        return -1;
    start_competitors(procs, c->nprocs);
    int rc = strcmp(c->variant, "weft") == 0 ? run_weft(c, &s) : run_native(c, &s);
    stop_competitors(procs, c->nprocs);
    if (rc == 0)
        add_rows(c, s.offset_us, s.n, t);
    free(s.offset_us);
    return rc;
}
