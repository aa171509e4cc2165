/* bench/reactivity, client side: runs in the parent process, plain C with
 * blocking sockets and no Weft, and measures what a remote peer sees.
 *
 * One repeat of a case: start a fresh server child (loopback.h), wait for
 * its READY message, then send 8-byte messages over TCP loopback
 * (TCP_NODELAY), each after a think time drawn uniformly from
 * [0, think_ns] and slept in nanosleep (timer slack 1 ns, no busy wait),
 * so that a message may arrive at any point of the server's scheduling
 * cycle. Each round trip (send to full reply) is timed with
 * CLOCK_MONOTONIC. A few untimed warm-up round trips come first. The
 * repeat stops after max_rts timed round trips or when soft_ns has passed
 * (no new message then; the one in flight is still awaited, up to
 * grace_ns, and counted). A reply slower than grace_ns ends the repeat and
 * is reported as lost, never as a number. Statistics per repeat: median,
 * p99 (nearest rank) and mean, in microseconds.
 *
 * Idle CPU: the server's process CPU time (RX_MSG_CPU_QUERY) is read twice,
 * idle_ns apart, with no other traffic: CPU time / wall time.
 */
#include "reactivity.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopback.h"

#define SETTLE_NS      200000000  /* before the idle measurement */
#define REAP_TIMEOUT_NS 3000000000

typedef struct server_conn {
    pid_t pid;
    int fd;
    char what[96];
} server_conn;

/* ------------------------------------------------------------- server */

static int read_ready(server_conn *c, const rx_limits *lim, rx_run *out)
{
    uint64_t msg = 0;
    if (lb_set_recv_timeout(c->fd, lim->ready_ns) != 0 ||
        lb_recv_all(c->fd, &msg, sizeof msg) != 0 ||
        (msg & RX_READY_MASK) != RX_READY_TAG) {
        fprintf(stderr, "reactivity: %s: no READY from the server\n", c->what);
        return -1;
    }
    out->workers = (int)(msg >> 32 & 0xffff);
    out->quantum_us = (int64_t)(msg & 0xffffffff);
    return lb_set_recv_timeout(c->fd, lim->grace_ns);
}

static int connect_server(server_conn *c, rx_server_spec *s)
{
    char spec[128];
    int port, lfd = lb_listen(4, &port);
    if (lfd < 0)
        return -1;
    s->listen_fd = lfd;
    rx_spec_format(spec, sizeof spec, s);
    /* The paper's server is one kernel thread; WEFT_WORKERS overrides. */
    c->pid = lb_spawn_self(spec, "WEFT_WORKERS", "1", -1);
    c->fd = c->pid > 0 ? lb_connect(port) : -1;
    close(lfd);
    return c->fd >= 0 ? 0 : -1;
}

/* Close the connection (end of stream: the server exits) and reap the
 * server within reap_ns (its echo thread may have to wait its turn behind
 * the compute threads to see the end of stream, like any message); a
 * server known to be stuck (`stuck`: a reply never came) is killed at once. */
static int stop_server(server_conn *c, int stuck, int64_t reap_ns)
{
    if (c->fd >= 0)
        close(c->fd);
    if (c->pid <= 0)
        return -1;
    if (stuck)
        return lb_reap(c->pid, 0, NULL);
    return lb_reap(c->pid, reap_ns, c->what);
}

static int start_server(server_conn *c, rx_server_spec s,
                        const rx_limits *lim, rx_run *out)
{
    snprintf(c->what, sizeof c->what, "server %s N=%d q=%lldus",
             rx_variant_name(s.variant), s.n, (long long)s.quantum_us);
    c->pid = -1;
    c->fd = -1;
    if (connect_server(c, &s) == 0 && read_ready(c, lim, out) == 0)
        return 0;
    stop_server(c, 1, 0);
    return -1;
}

/* --------------------------------------------------------- round trips */

/* One timed round trip of `msg`: 0 (time in *us), -1 error, -2 too slow. */
static int round_trip(int fd, uint64_t msg, double *us)
{
    uint64_t back = 0;
    int64_t t0 = bench_now_ns();
    if (lb_send_all(fd, &msg, sizeof msg) != 0)
        return -1;
    int rc = lb_recv_all(fd, &back, sizeof back);
    int64_t t1 = bench_now_ns();
    if (rc < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return -2;
    if (rc != 0 || back != msg)
        return -1;
    *us = (double)(t1 - t0) / 1000;
    return 0;
}

static void think(uint64_t *rng, int64_t think_ns)
{
    int64_t ns = (int64_t)lb_rand_below(rng, (uint64_t)think_ns + 1);
    if (ns > 0)
        lb_sleep_ns(ns);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summarize(double *us, int n, rx_run *out)
{
    double sum = 0;
    out->count = n;
    if (n == 0)
        return;
    qsort(us, (size_t)n, sizeof *us, compare_doubles);
    for (int i = 0; i < n; i++)
        sum += us[i];
    out->median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
    out->p99_us = us[(99 * n + 99) / 100 - 1]; /* nearest rank */
    out->mean_us = sum / n;
}

/* Warm-up, then timed round trips into us[]; returns the count or -1. */
static int ping_loop(int fd, const rx_limits *lim, uint64_t *rng, double *us,
                     rx_run *out)
{
    uint64_t seq = 1;
    int n = 0, rc = 0;
    double ignored;
    int64_t end = bench_now_ns() + lim->soft_ns / 5;
    for (int i = 0; i < lim->warmup_rts && rc == 0 && bench_now_ns() < end; i++)
        rc = round_trip(fd, seq++, &ignored);
    end = bench_now_ns() + lim->soft_ns;
    while (rc == 0 && n < lim->max_rts && bench_now_ns() < end) {
        think(rng, lim->think_ns);
        if ((rc = round_trip(fd, seq++, &us[n])) == 0)
            n++;
    }
    out->capped = rc == 0 && n < lim->max_rts;
    out->lost = rc == -2;
    return rc == -1 ? -1 : n;
}

int rx_measure_rtt(rx_server_spec s, const rx_limits *lim, uint64_t seed,
                   rx_run *out)
{
    server_conn c;
    uint64_t rng = seed ? seed : 1;
    memset(out, 0, sizeof *out);
    size_t cap = (size_t)(lim->max_rts > 0 ? lim->max_rts : 1);
    double *us = malloc(sizeof *us * cap);
    if (!us || start_server(&c, s, lim, out) != 0) {
        free(us);
        return -1;
    }
    int n = ping_loop(c.fd, lim, &rng, us, out);
    if (n < 0)
        fprintf(stderr, "reactivity: %s: round trip failed\n", c.what);
    summarize(us, n > 0 ? n : 0, out);
    free(us);
    int stopped = stop_server(&c, out->lost, lim->grace_ns + REAP_TIMEOUT_NS);
    return n >= 0 && stopped == 0 ? 0 : -1;
}

/* ---------------------------------------------------------------- idle */

static int query_cpu(int fd, int64_t *cpu_ns, int64_t *when)
{
    uint64_t msg = RX_MSG_CPU_QUERY, back = 0;
    if (lb_send_all(fd, &msg, sizeof msg) != 0 ||
        lb_recv_all(fd, &back, sizeof back) != 0)
        return -1;
    *when = bench_now_ns();
    *cpu_ns = (int64_t)back;
    return 0;
}

int rx_measure_idle(rx_server_spec s, const rx_limits *lim, int64_t idle_ns,
                    double *cpu_percent)
{
    server_conn c;
    rx_run info;
    int64_t cpu0, cpu1, t0, t1;
    if (start_server(&c, s, lim, &info) != 0)
        return -1;
    lb_sleep_ns(SETTLE_NS);
    int rc = query_cpu(c.fd, &cpu0, &t0);
    if (rc == 0) {
        lb_sleep_ns(idle_ns);
        rc = query_cpu(c.fd, &cpu1, &t1);
    }
    if (rc == 0)
        *cpu_percent = 100.0 * (double)(cpu1 - cpu0) / (double)(t1 - t0);
    else
        fprintf(stderr, "reactivity: %s: CPU query failed\n", c.what);
    return stop_server(&c, rc != 0, REAP_TIMEOUT_NS) == 0 && rc == 0 ? 0 : -1;
}
