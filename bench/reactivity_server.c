/* bench/reactivity, server side: the echo servers, each run in a fresh
 * child process (see reactivity.c for the whole experiment).
 *
 * The child accepts the client's single connection on the inherited
 * listening socket before anything else, then:
 *   raw_block  echoes with blocking recv/send: the kernel wakes it (floor);
 *   raw_busy   spins on a non-blocking recv: no wake-up at all (floor);
 *   Weft       weft_init, weft_io_set_strategy (naive, polling, blocking or
 *              adaptive), weft_set_quantum; one echo ULT at the default
 *              priority waiting in weft_recv; N compute ULTs (detached,
 *              default priority) running an xorshift loop that never yields
 *              or blocks, so only preemption takes the worker from them.
 * Then it sends RX_READY_TAG (with its worker count and quantum) and echoes
 * every 8-byte message, answering RX_MSG_CPU_QUERY with its process CPU
 * time. It exits (_exit(0), the compute threads die with it) when the
 * client closes the connection. A self-destruct alarm bounds its life.
 *
 * Start-up order matters with one worker and a 10 ms quantum: main raises
 * itself to WEFT_PRIO_MAX so that creating 1000 compute threads is never
 * preempted (else each preemption would cost it N quanta), creates the echo
 * ULT first (it is queued ahead of the compute threads), sends READY, and
 * blocks in weft_thread_join.
 */
#include "reactivity.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <weft.h>

#include "loopback.h"

#define SERVER_LIFETIME_S   120         /* self-destruct */
#define COMPUTE_STACK_BYTES (64 * 1024) /* room for the preemption frame */

static volatile uint64_t compute_sink;

/* ------------------------------------------------------------ messages */

static int64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The reply to `msg`: an echo, or the CPU time for a query. */
static uint64_t reply_to(uint64_t msg)
{
    return msg == RX_MSG_CPU_QUERY ? (uint64_t)process_cpu_ns() : msg;
}

static uint64_t ready_message(int workers, int64_t quantum_us)
{
    return RX_READY_TAG | (uint64_t)(workers & 0xffff) << 32 |
           (uint64_t)(quantum_us & 0xffffffff);
}

/* ------------------------------------------------------------- floors */

static int serve_raw_block(int fd)
{
    uint64_t msg = ready_message(0, 0);
    if (lb_send_all(fd, &msg, sizeof msg) != 0)
        return 1;
    for (;;) {
        int rc = lb_recv_all(fd, &msg, sizeof msg);
        if (rc != 0)
            return rc > 0 ? 0 : 1;
        msg = reply_to(msg);
        if (lb_send_all(fd, &msg, sizeof msg) != 0)
            return 1;
    }
}

/* Spin until 8 bytes arrived; 1 at end of stream, -1 on error. */
static int spin_recv(int fd, uint64_t *msg)
{
    char *p = (char *)msg;
    size_t got = 0;
    while (got < sizeof *msg) {
        ssize_t n = recv(fd, p + got, sizeof *msg - got, MSG_DONTWAIT);
        if (n == 0)
            return 1;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        got += n > 0 ? (size_t)n : 0;
    }
    return 0;
}

static int serve_raw_busy(int fd)
{
    uint64_t msg = ready_message(0, 0);
    if (lb_send_all(fd, &msg, sizeof msg) != 0)
        return 1;
    for (;;) {
        int rc = spin_recv(fd, &msg);
        if (rc != 0)
            return rc > 0 ? 0 : 1;
        msg = reply_to(msg);
        if (lb_send_all(fd, &msg, sizeof msg) != 0)
            return 1;
    }
}

/* ---------------------------------------------------------------- Weft */

static void die_weft(int rc, const char *what)
{
    if (rc < 0) {
        fprintf(stderr, "reactivity server: %s: %s\n", what,
                weft_strerror(rc));
        _exit(1);
    }
}

/* Exactly len bytes through weft_recv / weft_send; 1 at end of stream. */
static int weft_recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = weft_recv(fd, p, len, 0);
        if (n == 0)
            return 1;
        die_weft((int)n, "weft_recv");
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static void weft_send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = weft_send(fd, p, len, MSG_NOSIGNAL);
        die_weft((int)n, "weft_send");
        p += n;
        len -= (size_t)n;
    }
}

static void *echo_thread(void *arg)
{
    int fd = (int)(intptr_t)arg;
    uint64_t msg;
    while (weft_recv_all(fd, &msg, sizeof msg) == 0) {
        msg = reply_to(msg);
        weft_send_all(fd, &msg, sizeof msg);
    }
    _exit(0); /* the client closed: the case is over */
}

static void *compute_thread(void *arg)
{
    uint64_t x = (uint64_t)(uintptr_t)arg * 2654435761u + 1;
    for (;;) {
        for (int i = 0; i < 4096; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        compute_sink = x;
    }
    return NULL;
}

static weft_io_strategy strategy_of(rx_variant v)
{
    switch (v) {
    case RX_NAIVE: return WEFT_IO_NAIVE;
    case RX_ENHANCED: return WEFT_IO_POLLING;
    case RX_BLOCKER: return WEFT_IO_BLOCKING;
    default: return WEFT_IO_ADAPTIVE;
    }
}

static void start_compute_threads(int n)
{
    weft_thread_attr attr;
    weft_thread_attr_init(&attr);
    attr.detached = 1;
    attr.stack_size = COMPUTE_STACK_BYTES;
    for (int i = 0; i < n; i++)
        die_weft(weft_thread_create(NULL, &attr, compute_thread,
                                    (void *)(uintptr_t)(i + 1)),
                 "weft_thread_create (compute)");
}

static int serve_weft(int fd, const rx_server_spec *s)
{
    weft_thread_t echo;
    die_weft(weft_init(), "weft_init");
    die_weft(weft_io_set_strategy(strategy_of(s->variant)),
             "weft_io_set_strategy");
    die_weft(weft_set_quantum(s->quantum_us * 1000), "weft_set_quantum");
    die_weft(weft_thread_set_priority(weft_thread_self(), WEFT_PRIO_MAX),
             "weft_thread_set_priority");
    die_weft(weft_thread_create(&echo, NULL, echo_thread,
                                (void *)(intptr_t)fd),
             "weft_thread_create (echo)");
    start_compute_threads(s->n);
    uint64_t msg = ready_message(weft_num_workers(),
                                 weft_get_quantum() / 1000);
    weft_send_all(fd, &msg, sizeof msg);
    die_weft(weft_thread_join(echo, NULL), "weft_thread_join");
    _exit(0); /* not reached: the echo thread exits the process */
}

/* -------------------------------------------------------------- entry */

int rx_server_main(const rx_server_spec *s)
{
    signal(SIGPIPE, SIG_IGN);
    alarm(SERVER_LIFETIME_S);
    int fd = lb_accept(s->listen_fd);
    close(s->listen_fd);
    if (fd < 0)
        return 1;
    switch (s->variant) {
    case RX_RAW_BLOCK: return serve_raw_block(fd);
    case RX_RAW_BUSY: return serve_raw_busy(fd);
    default: return serve_weft(fd, s);
    }
}

/* ------------------------------------------------------- spec strings */

static const char *const variant_names[RX_NVARIANTS] = {
    "raw_block", "raw_busy", "naive", "enhanced", "blocker", "adaptive"};

const char *rx_variant_name(rx_variant v)
{
    return v < RX_NVARIANTS ? variant_names[v] : "?";
}

int rx_variant_is_weft(rx_variant v)
{
    return v >= RX_NAIVE && v < RX_NVARIANTS;
}

int rx_spec_format(char *buf, size_t size, const rx_server_spec *s)
{
    int n = snprintf(buf, size, "server,%s,%d,%lld,%d",
                     rx_variant_name(s->variant), s->n,
                     (long long)s->quantum_us, s->listen_fd);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

int rx_spec_parse(const char *text, rx_server_spec *s)
{
    char name[32];
    long long q;
    if (sscanf(text, "server,%31[^,],%d,%lld,%d", name, &s->n, &q,
               &s->listen_fd) != 4)
        return -1;
    s->quantum_us = q;
    for (int v = 0; v < RX_NVARIANTS; v++)
        if (strcmp(name, variant_names[v]) == 0) {
            s->variant = (rx_variant)v;
            return s->n >= 0 && s->listen_fd >= 0 ? 0 : -1;
        }
    return -1;
}
