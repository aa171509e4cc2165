/* bench/aggregation, server side: one compute task that switches often and
 * K service threads each waiting on its own socket, in a fresh child
 * process (see aggregation.c for the whole experiment).
 *
 * The child accepts the K connections on the inherited listening socket,
 * then weft_init (one worker unless WEFT_WORKERS says otherwise),
 * weft_io_set_strategy (adaptive for `aggregated`, naive for `naive`), and
 * creates K detached service ULTs, each looping on weft_recv of 8 bytes
 * from its socket (counting the messages) until the stream ends. Main then
 * yields once so that every service thread reaches its first wait, prints
 * "ready", and runs the compute task in a ULT at the default priority:
 * one untimed warm-up of chunks/10, then up to `runs` timed runs, each
 * `chunks` chunks of CHUNK_STEPS xorshift steps followed by
 * weft_thread_yield. A timed run is the task's own wall time from its first
 * chunk to its last; the process CPU time over the same span is reported
 * too (it includes the service threads and any blocker/poller kernel
 * thread, and excludes time other processes took from this one). No new
 * run starts after budget_ms (at least one does). Main prints "done ..."
 * and the process exits (_exit: the service threads are still waiting, by
 * design).
 *
 * With aggregation a yield finds no runnable service thread (they wait in
 * the server, which checks all K sockets with one epoll call), so the task
 * costs the same for any K. Naive: every service thread is runnable, each
 * yield of the task passes through all K of them, each testing its socket.
 */
#include "aggregation.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#include "bench_util.h"
#include "loopback.h"

#define SERVER_LIFETIME_S   300
#define SERVICE_STACK_BYTES (64 * 1024)
#define CHUNK_STEPS         4096 /* xorshift steps: ~5-10 us */

typedef struct compute_job {
    const ag_server_spec *spec;
    int done;
    double wall_ms[BENCH_REPEATS_MAX];
    double cpu_ms[BENCH_REPEATS_MAX]; /* of the whole process */
} compute_job;

static uint64_t messages; /* received by the service threads (atomic) */
static volatile uint64_t compute_sink;

static void die_weft(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "aggregation server: %s: %s\n", what,
                weft_strerror(rc));
        _exit(1);
    }
}

/* ------------------------------------------------------------ services */

static void *service_thread(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[8];
    size_t got = 0;
    for (;;) {
        ssize_t n = weft_recv(fd, buf + got, sizeof buf - got, 0);
        if (n <= 0)
            return NULL; /* end of stream (or error): the case is over */
        got += (size_t)n;
        if (got == sizeof buf) {
            __atomic_fetch_add(&messages, 1, __ATOMIC_RELAXED);
            got = 0;
        }
    }
}

static void start_services(const int *fds, int k)
{
    weft_thread_attr attr;
    weft_thread_attr_init(&attr);
    attr.detached = 1;
    attr.stack_size = SERVICE_STACK_BYTES;
    for (int i = 0; i < k; i++)
        die_weft(weft_thread_create(NULL, &attr, service_thread,
                                    (void *)(intptr_t)fds[i]),
                 "weft_thread_create (service)");
}

/* ------------------------------------------------------------- compute */

static void compute_chunks(int chunks)
{
    uint64_t x = 88172645463325252u;
    for (int c = 0; c < chunks; c++) {
        for (int i = 0; i < CHUNK_STEPS; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        compute_sink = x;
        weft_thread_yield();
    }
}

static int64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *compute_task(void *arg)
{
    compute_job *job = arg;
    const ag_server_spec *s = job->spec;
    compute_chunks(s->chunks / 10 + 1); /* warm-up */
    int64_t end = bench_now_ns() + s->budget_ms * 1000000;
    while (job->done < s->runs && (job->done == 0 || bench_now_ns() < end)) {
        int64_t t0 = bench_now_ns(), c0 = process_cpu_ns();
        compute_chunks(s->chunks);
        job->cpu_ms[job->done] = (double)(process_cpu_ns() - c0) / 1e6;
        job->wall_ms[job->done++] = (double)(bench_now_ns() - t0) / 1e6;
    }
    return NULL;
}

/* ---------------------------------------------------------------- main */

static int accept_all(int listen_fd, int *fds, int k)
{
    for (int i = 0; i < k; i++)
        if ((fds[i] = lb_accept(listen_fd)) < 0)
            return -1;
    close(listen_fd);
    return 0;
}

static void report(const compute_job *job)
{
    printf("done %llu %d",
           (unsigned long long)__atomic_load_n(&messages, __ATOMIC_RELAXED),
           job->done);
    for (int i = 0; i < job->done; i++)
        printf(" %.6f %.6f", job->wall_ms[i], job->cpu_ms[i]);
    printf("\n");
    fflush(stdout);
}

static void run_weft(const ag_server_spec *s, const int *fds)
{
    static compute_job job;
    weft_thread_t task;
    job.spec = s;
    die_weft(weft_init(), "weft_init");
    die_weft(weft_io_set_strategy(s->variant == AG_NAIVE ? WEFT_IO_NAIVE
                                                        : WEFT_IO_ADAPTIVE),
             "weft_io_set_strategy");
    weft_thread_t self = weft_thread_self();
    die_weft(weft_thread_set_priority(self, WEFT_PRIO_MAX), "set_priority");
    start_services(fds, s->k);
    die_weft(weft_thread_set_priority(self, WEFT_PRIO_DEFAULT), "set_priority");
    weft_thread_yield(); /* every service thread reaches its wait */
    printf("ready\n");
    fflush(stdout);
    die_weft(weft_thread_create(&task, NULL, compute_task, &job),
             "weft_thread_create (compute)");
    die_weft(weft_thread_join(task, NULL), "weft_thread_join");
    report(&job);
}

int ag_server_main(const ag_server_spec *s)
{
    signal(SIGPIPE, SIG_IGN);
    alarm(SERVER_LIFETIME_S);
    lb_raise_nofile(s->k + 64);
    int *fds = calloc((size_t)s->k, sizeof *fds);
    if (!fds || accept_all(s->listen_fd, fds, s->k) != 0)
        return 1;
    run_weft(s, fds);
    _exit(0); /* the service threads still wait: end the process here */
}

/* ------------------------------------------------------- spec strings */

const char *ag_variant_name(ag_variant v)
{
    return v == AG_AGGREGATED ? "aggregated" : v == AG_NAIVE ? "naive" : "?";
}

int ag_spec_format(char *buf, size_t size, const ag_server_spec *s)
{
    int n = snprintf(buf, size, "agg,%s,%d,%d,%d,%lld,%d",
                     ag_variant_name(s->variant), s->k, s->runs, s->chunks,
                     (long long)s->budget_ms, s->listen_fd);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

int ag_spec_parse(const char *text, ag_server_spec *s)
{
    char name[32];
    long long budget;
    if (sscanf(text, "agg,%31[^,],%d,%d,%d,%lld,%d", name, &s->k, &s->runs,
               &s->chunks, &budget, &s->listen_fd) != 6)
        return -1;
    s->budget_ms = budget;
    if (strcmp(name, "aggregated") == 0)
        s->variant = AG_AGGREGATED;
    else if (strcmp(name, "naive") == 0)
        s->variant = AG_NAIVE;
    else
        return -1;
    return s->k > 0 && s->runs > 0 && s->runs <= BENCH_REPEATS_MAX &&
                   s->chunks > 0 && s->listen_fd >= 0
               ? 0
               : -1;
}
