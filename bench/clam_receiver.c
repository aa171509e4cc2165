/* bench/clam, the receiving process: a fresh child per measurement, a Weft
 * process with N work threads and (but for the baseline) one receive
 * thread scheduled by the strategy under test (clam_strategies.c).
 *
 * A work thread runs the paper's WorkThread loop (Fig. 4a): CopyBuffer, a
 * 4 KiB copy, then count it. The copy is a word loop with a key mixed in,
 * so that the compiler keeps a loop rather than calling memcpy: the
 * preemption tick defers its switch while a thread runs C-library code,
 * and the paper's slices must fall where they fall. Counters sit on their
 * own cache lines: work threads never write a line another thread writes.
 *
 * Protocol with the parent (clam_sender.c): the child prints "ready" once
 * its threads exist; the parent starts sending; the child lets warm_us go
 * by (the adaptive slice settles), reads its counters, sleeps window_us
 * and prints one line with the differences:
 *   result work=<ops> rx=<datagrams> lost=<datagrams> act=<activations>
 *          slice_ns=<sum of T over activations> cpu_ns=<process CPU>
 *          wcpu_ns=<the worker's CPU> span_ns=<window>
 * then exits; the parent stops sending when the line arrives.
 */
#include "clam.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#define RECEIVER_LIFETIME_S 60  /* self-destruct */
#define WORK_STACK_BYTES (64 * 1024)
#define COPY_WORDS       512 /* 4 KiB */
#define MAX_WORK_THREADS 64

typedef struct work_slot {
    _Alignas(64) uint64_t ops;
    uint64_t src[COPY_WORDS], dst[COPY_WORDS];
} work_slot;

static work_slot slots[MAX_WORK_THREADS];
static clam_rx_counters counters;

void clam_check(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "clam receiver: %s: %s\n", what, weft_strerror(rc));
        _exit(1);
    }
}

/* ----------------------------------------------------------- counting */

void clam_rx_count(clam_rx_counters *c, uint64_t seq)
{
    uint64_t lost = c->last_seq && seq > c->last_seq ? seq - c->last_seq : 0;
    if (lost)
        __atomic_store_n(&c->lost, c->lost + lost, __ATOMIC_RELAXED);
    if (seq >= c->last_seq)
        c->last_seq = seq + 1;
    __atomic_store_n(&c->received, c->received + 1, __ATOMIC_RELAXED);
}

int clam_rx_drain(int fd, clam_rx_counters *c)
{
    char buf[CLAM_PAYLOAD];
    int n = 0;
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (got < (ssize_t)sizeof(uint64_t))
            return n;
        uint64_t seq;
        memcpy(&seq, buf, sizeof seq);
        clam_rx_count(c, seq);
        n++;
    }
}

/* ------------------------------------------------------------ the work */

static void copy_buffer(work_slot *w, uint64_t key)
{
    for (int i = 0; i < COPY_WORDS; i++)
        w->dst[i] = w->src[i] ^ key;
}

static void *work_thread(void *arg)
{
    work_slot *w = arg;
    for (uint64_t key = 1;; key++) {
        copy_buffer(w, key);
        __atomic_store_n(&w->ops, w->ops + 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void start_work_threads(int n)
{
    weft_thread_attr attr;
    weft_thread_attr_init(&attr);
    attr.detached = 1;
    attr.stack_size = WORK_STACK_BYTES;
    attr.priority = CLAM_WORK_PRIO;
    for (int i = 0; i < n; i++)
        clam_check(weft_thread_create(NULL, &attr, work_thread, &slots[i]),
              "weft_thread_create (work)");
}

/* ------------------------------------------------------- the snapshots */

typedef struct snapshot {
    uint64_t work, rx, lost, act;
    int64_t slice_ns, cpu_ns, worker_cpu_ns, t_ns;
} snapshot;

/* CPU time of the kernel thread running the caller: main is bound to
 * worker 0, so from main this is the worker's CPU time. */
static int64_t worker_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static snapshot take_snapshot(int threads)
{
    snapshot s = {0};
    for (int i = 0; i < threads; i++)
        s.work += __atomic_load_n(&slots[i].ops, __ATOMIC_RELAXED);
    s.rx = __atomic_load_n(&counters.received, __ATOMIC_RELAXED);
    s.lost = __atomic_load_n(&counters.lost, __ATOMIC_RELAXED);
    s.act = __atomic_load_n(&counters.activations, __ATOMIC_RELAXED);
    s.slice_ns = __atomic_load_n(&counters.slice_sum_ns, __ATOMIC_RELAXED);
    s.cpu_ns = weft_cpu_now();
    s.worker_cpu_ns = worker_cpu_now();
    s.t_ns = weft_now();
    return s;
}

static void print_result(const snapshot *a, const snapshot *b)
{
    printf("result work=%llu rx=%llu lost=%llu act=%llu slice_ns=%lld "
           "cpu_ns=%lld wcpu_ns=%lld span_ns=%lld\n",
           (unsigned long long)(b->work - a->work),
           (unsigned long long)(b->rx - a->rx),
           (unsigned long long)(b->lost - a->lost),
           (unsigned long long)(b->act - a->act),
           (long long)(b->slice_ns - a->slice_ns),
           (long long)(b->cpu_ns - a->cpu_ns),
           (long long)(b->worker_cpu_ns - a->worker_cpu_ns),
           (long long)(b->t_ns - a->t_ns));
    fflush(stdout);
}

/* _exit skips the statistics WEFT_IO_STATS=1 asks for at exit: print them
 * here, with the scheduler's counters, for whoever studies one schedule. */
static void print_stats_if_asked(clam_strategy strategy)
{
    const char *v = getenv("WEFT_IO_STATS");
    weft_sched_stats st;
    if (!v || strcmp(v, "1") != 0 || weft_sched_get_stats(&st) != 0)
        return;
    fprintf(stderr, "clam receiver (%s): switches %llu preemptions %llu "
            "deferred %llu idle_sleeps %llu server_yields %llu\n",
            clam_strategy_name(strategy), (unsigned long long)st.switches,
            (unsigned long long)st.preemptions,
            (unsigned long long)st.deferred, (unsigned long long)st.idle_sleeps,
            (unsigned long long)st.server_yields);
    weft_io_print_stats(2);
}

int clam_receiver_main(const clam_spec *s)
{
    alarm(RECEIVER_LIFETIME_S);
    if (s->threads > MAX_WORK_THREADS)
        return 2;
    clam_check(weft_init(), "weft_init");
    /* Starting threads must not cost main a round of slices. */
    clam_check(weft_thread_set_priority(weft_thread_self(), WEFT_PRIO_MAX),
          "weft_thread_set_priority");
    if (s->strategy != CLAM_NONE && s->strategy != CLAM_UNREAD)
        clam_check(clam_strategy_start(s->strategy, s->udp_fd, &counters),
              "receive strategy");
    start_work_threads(s->threads);
    printf("ready\n");
    fflush(stdout);
    weft_sleep(s->warm_us * 1000);
    snapshot a = take_snapshot(s->threads);
    weft_sleep(s->window_us * 1000);
    snapshot b = take_snapshot(s->threads);
    print_result(&a, &b);
    print_stats_if_asked(s->strategy);
    _exit(0); /* the work threads never end */
}
