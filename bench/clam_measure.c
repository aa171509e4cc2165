/* bench/clam, one measurement: a fresh receiver child (clam_receiver.c) on
 * a fresh bounded socket, the sender feeding it from this process until
 * the child reports, and the report turned into rates.
 *
 * A fresh process and socket per measurement keep one strategy's runtime
 * state (slices, signal modes, I/O strategy) and queued datagrams out of
 * the next. The child runs with WEFT_WORKERS=1 unless the environment says
 * otherwise: the paper's receiver was a uniprocessor, and the sender and
 * Weft's helper threads get the other CPU. The baseline (strategy none)
 * gets no traffic.
 */
#include "clam.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loopback.h"

#define READY_TIMEOUT_MS 20000
#define REAP_TIMEOUT_NS  5000000000LL
#define FAILED_REAP_NS   1000000000LL

typedef struct child_out {
    int fd;
    char buf[512];
    size_t len;
} child_out;

/* Read one line from the child into line (without the newline); 0, or -1
 * on end of output or time-out. */
static int read_line(child_out *o, char *line, size_t size, int timeout_ms)
{
    for (;;) {
        char *nl = memchr(o->buf, '\n', o->len);
        if (nl) {
            size_t n = (size_t)(nl - o->buf);
            snprintf(line, size, "%.*s", (int)n, o->buf);
            o->len -= n + 1;
            memmove(o->buf, nl + 1, o->len);
            return 0;
        }
        struct pollfd p = {.fd = o->fd, .events = POLLIN};
        if (o->len == sizeof o->buf || poll(&p, 1, timeout_ms) <= 0)
            return -1;
        ssize_t got = read(o->fd, o->buf + o->len, sizeof o->buf - o->len);
        if (got <= 0)
            return -1;
        o->len += (size_t)got;
    }
}

static int parse_result(const char *line, clam_run *out)
{
    unsigned long long work, rx, lost, act;
    long long slice, cpu, wcpu, span;
    if (sscanf(line, "result work=%llu rx=%llu lost=%llu act=%llu "
                     "slice_ns=%lld cpu_ns=%lld wcpu_ns=%lld span_ns=%lld",
               &work, &rx, &lost, &act, &slice, &cpu, &wcpu, &span) != 8 ||
        span <= 0)
        return -1;
    double s = (double)span / 1e9;
    out->work_per_s = (double)work / s;
    out->work_per_cpu_s = wcpu > 0 ? (double)work / ((double)wcpu / 1e9) : 0;
    out->rx_per_s = (double)rx / s;
    out->lost_per_s = (double)lost / s;
    out->loss_pct = rx + lost ? 100.0 * (double)lost / (double)(rx + lost) : 0;
    out->cpu_pct = 100.0 * (double)cpu / (double)span;
    out->helper_cpu_pct = 100.0 * (double)(cpu - wcpu) / (double)span;
    out->period_us = act ? (double)span / (double)act / 1000 : 0;
    out->slice_us = act ? (double)slice / (double)act / 1000 : 0;
    out->ok = 1;
    return 0;
}

static pid_t spawn_receiver(clam_strategy s, const clam_limits *lim, int rx,
                            int *out_fd)
{
    int pipefd[2];
    char spec[128];
    clam_spec cs = {.strategy = s, .threads = lim->threads,
                    .warm_us = lim->warm_us, .window_us = lim->window_us,
                    .udp_fd = rx};
    if (clam_spec_format(spec, sizeof spec, &cs) != 0 ||
        pipe2(pipefd, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = lb_spawn_self(spec, "WEFT_WORKERS", "1", pipefd[1]);
    close(pipefd[1]);
    if (pid < 0)
        close(pipefd[0]);
    *out_fd = pipefd[0];
    return pid;
}

/* Feed the child until it reports (the baseline: just wait). */
static double feed(clam_strategy s, const clam_arrival *a, int tx,
                   int stop_fd, uint64_t seed)
{
    int64_t t0 = bench_now_ns();
    if (s == CLAM_NONE) {
        struct pollfd p = {.fd = stop_fd, .events = POLLIN};
        poll(&p, 1, READY_TIMEOUT_MS);
        return 0;
    }
    clam_source src;
    clam_source_init(&src, a, seed);
    uint64_t sent = clam_send_until(tx, &src, stop_fd);
    return (double)sent / ((double)(bench_now_ns() - t0) / 1e9);
}

/* Why a measurement failed, for the message. */
static const char *failure(int got_ready, int got_line)
{
    return !got_ready ? "no ready line" : !got_line ? "no result line"
                                                    : "malformed result line";
}

static int run_child(clam_strategy s, const clam_arrival *a,
                     const clam_limits *lim, int rx, int tx, uint64_t seed,
                     clam_run *out)
{
    child_out o = {.len = 0};
    char line[256];
    pid_t pid = spawn_receiver(s, lim, rx, &o.fd);
    if (pid < 0)
        return -1;
    int ready = read_line(&o, line, sizeof line, READY_TIMEOUT_MS) == 0 &&
                strcmp(line, "ready") == 0;
    int got = 0, rc = -1;
    if (ready) {
        out->sent_per_s = feed(s, a, tx, o.fd, seed);
        got = read_line(&o, line, sizeof line, READY_TIMEOUT_MS) == 0;
        rc = got ? parse_result(line, out) : -1;
    }
    close(o.fd);
    /* A receiver that failed may still run: give it a moment to end on its
     * own, so that a crash is reported as one, then kill it. */
    int reaped = lb_reap(pid, rc == 0 ? REAP_TIMEOUT_NS : FAILED_REAP_NS,
                         "receiver");
    if (rc != 0 || reaped != 0) {
        fprintf(stderr, "clam: %s run failed (%s)\n", clam_strategy_name(s),
                rc != 0 ? failure(ready, got) : "exit status");
        return -1;
    }
    return 0;
}

int clam_measure(clam_strategy s, const clam_arrival *a,
                 const clam_limits *lim, uint64_t seed, clam_run *out)
{
    int rx, tx;
    memset(out, 0, sizeof *out);
    if (clam_open_sockets(&rx, &tx) != 0)
        return -1;
    int rc = run_child(s, a, lim, rx, tx, seed, out);
    close(rx);
    close(tx);
    return rc;
}
