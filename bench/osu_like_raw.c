/* bench/osu_like, variant raw_tcp: the floor under both MPI libraries --
 * the same steps (osu_like_measure.c) with no MPI at all, over one TCP
 * loopback connection (TCP_NODELAY) between the driver and a forked peer.
 *
 * Both sides spin on non-blocking sockets (send/recv with MSG_DONTWAIT in
 * a loop): while the peer answers within the spin budget (50 us) no kernel
 * wake-up is paid, so this is about the fastest anything moves bytes
 * through the kernel's TCP stack on this machine (a blocking ping-pong
 * across vCPUs costs ~42 us per direction here, DESIGN.md). After 50 us
 * without progress a side sleeps in poll() instead: on a loaded shared
 * machine a pure spinner would wait for its peer's next kernel time slice
 * (milliseconds), which is no floor at all. The two processes each take a
 * CPU while they measure, as two busy-polling MPI ranks do.
 *
 * A step moves what the MPI steps move, without message headers: a
 * ping-pong of `bytes` (TCP has no empty message: 0 B is sent as 1 byte);
 * a window of 64 x `bytes` as one stream (each message read from / written
 * to the same `bytes`-sized buffer), then a 4-byte ack; for bibw both
 * streams at once, each side alternating between sending and receiving so
 * that neither blocks the other. Commands are 24-byte messages.
 *
 * The peer dies with the driver (PR_SET_PDEATHSIG) and is reaped within a
 * few seconds of the stop command (SIGKILL after that).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "loopback.h"
#include "osu_like.h"

#define REAP_NS 5000000000LL
#define SPIN_NS 50000 /* spin this long without progress, then poll() */
#define POLL_MS 100

typedef struct raw_ctx {
    int fd;
    char *sbuf, *rbuf;
} raw_ctx;

/* Bytes to move through one buffer of `unit` bytes, reused per message. */
typedef struct stream {
    char *buf;
    size_t unit, total, done;
} stream;

/* ---------------------------------------------------------- spinning */

/* Move what the socket takes now: 1 if bytes moved, 0 if none, -1 on
 * error. */
static int step(int fd, stream *s, int sending)
{
    size_t off = s->done % s->unit, len = s->unit - off;
    if (len > s->total - s->done)
        len = s->total - s->done;
    ssize_t n = sending ? send(fd, s->buf + off, len, MSG_DONTWAIT | MSG_NOSIGNAL)
                        : recv(fd, s->buf + off, len, MSG_DONTWAIT);
    if (n > 0) {
        s->done += (size_t)n;
        return 1;
    }
    if (n == 0 && !sending)
        return -1; /* the other side closed */
    return n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
               ? -1 : 0;
}

/* Sleep in poll() until the socket can move what is left. */
static void wait_ready(int fd, const stream *out, const stream *in)
{
    struct pollfd p = {fd, 0, 0};
    if (out->done < out->total)
        p.events |= POLLOUT;
    if (in->done < in->total)
        p.events |= POLLIN;
    poll(&p, 1, POLL_MS);
}

/* Until `out` is sent and `in` received (either may be empty): spin, and
 * sleep in poll() after SPIN_NS without progress. */
static int xfer(int fd, stream *out, stream *in)
{
    int64_t idle_since = 0;
    while (out->done < out->total || in->done < in->total) {
        int a = out->done < out->total ? step(fd, out, 1) : 0;
        int b = in->done < in->total ? step(fd, in, 0) : 0;
        if (a < 0 || b < 0)
            return -1;
        if (a || b)
            idle_since = 0;
        else if (!idle_since)
            idle_since = bench_now_ns();
        else if (bench_now_ns() - idle_since > SPIN_NS)
            wait_ready(fd, out, in);
    }
    return 0;
}

static stream make_stream(char *buf, size_t unit, size_t count)
{
    stream s = {buf, unit ? unit : 1, (unit ? unit : 1) * count, 0};
    return s;
}

static int send_only(int fd, char *buf, size_t unit, size_t count)
{
    stream out = make_stream(buf, unit, count), in = make_stream(buf, 1, 0);
    return xfer(fd, &out, &in);
}

static int recv_only(int fd, char *buf, size_t unit, size_t count)
{
    stream out = make_stream(buf, 1, 0), in = make_stream(buf, unit, count);
    return xfer(fd, &out, &in);
}

/* ---------------------------------------------------------------- ops */

static int raw_send_cmd(void *ctx, const ol_cmd *c)
{
    raw_ctx *r = ctx;
    ol_cmd copy = *c;
    return send_only(r->fd, (char *)&copy, sizeof copy, 1);
}

static int raw_recv_cmd(void *ctx, ol_cmd *c)
{
    raw_ctx *r = ctx;
    return recv_only(r->fd, (char *)c, sizeof *c, 1);
}

static int ping_pong(raw_ctx *r, size_t bytes, int64_t iters, int leader)
{
    int rc = 0;
    for (int64_t i = 0; i < iters && rc == 0; i++) {
        if (leader)
            rc = send_only(r->fd, r->sbuf, bytes, 1);
        if (rc == 0)
            rc = recv_only(r->fd, r->rbuf, bytes, 1);
        if (!leader && rc == 0)
            rc = send_only(r->fd, r->sbuf, bytes, 1);
    }
    return rc;
}

static int one_window(raw_ctx *r, const ol_cmd *c, int leader)
{
    size_t bytes = (size_t)c->bytes;
    if (c->kind == OL_BIBW) {
        stream out = make_stream(r->sbuf, bytes, OL_WINDOW);
        stream in = make_stream(r->rbuf, bytes, OL_WINDOW);
        return xfer(r->fd, &out, &in);
    }
    if (leader)
        return send_only(r->fd, r->sbuf, bytes, OL_WINDOW) == 0 &&
               recv_only(r->fd, r->rbuf, OL_ACK_BYTES, 1) == 0 ? 0 : -1;
    return recv_only(r->fd, r->rbuf, bytes, OL_WINDOW) == 0 &&
           send_only(r->fd, r->sbuf, OL_ACK_BYTES, 1) == 0 ? 0 : -1;
}

static int raw_run(void *ctx, const ol_cmd *c, int leader)
{
    raw_ctx *r = ctx;
    if (c->kind == OL_LATENCY)
        return ping_pong(r, (size_t)(c->bytes ? c->bytes : 1), c->iters,
                         leader);
    int rc = 0;
    for (int64_t i = 0; i < c->iters && rc == 0; i++)
        rc = one_window(r, c, leader);
    return rc;
}

/* ------------------------------------------------------------ set-up */

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static int alloc_buffers(raw_ctx *r)
{
    r->sbuf = malloc(OL_MAX_BYTES);
    r->rbuf = malloc(OL_MAX_BYTES);
    if (!r->sbuf || !r->rbuf)
        return -1;
    memset(r->sbuf, 0x5a, OL_MAX_BYTES);
    memset(r->rbuf, 0, OL_MAX_BYTES);
    return 0;
}

static void free_buffers(raw_ctx *r)
{
    free(r->sbuf);
    free(r->rbuf);
}

/* The forked peer: accept, obey the leader, exit. */
static void peer_main(int lfd)
{
    raw_ctx r = {-1, NULL, NULL};
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    r.fd = lb_accept(lfd);
    close(lfd);
    ol_ops ops = {&r, raw_send_cmd, raw_recv_cmd, raw_run};
    if (r.fd < 0 || set_nonblocking(r.fd) != 0 || alloc_buffers(&r) != 0)
        _exit(1);
    _exit(ol_serve(&ops) == 0 ? 0 : 1);
}

static pid_t start_peer(int *fd)
{
    int port, lfd = lb_listen(1, &port);
    if (lfd < 0)
        return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        peer_main(lfd);
    close(lfd);
    *fd = pid > 0 ? lb_connect(port) : -1;
    if (pid > 0 && (*fd < 0 || set_nonblocking(*fd) != 0)) {
        lb_reap(pid, 0, NULL);
        return -1;
    }
    return pid;
}

int ol_raw_measure(const ol_plan *p, ol_kind_done_fn done, void *arg)
{
    raw_ctx r = {-1, NULL, NULL};
    ol_ops ops = {&r, raw_send_cmd, raw_recv_cmd, raw_run};
    if (alloc_buffers(&r) != 0) {
        free_buffers(&r);
        return -1;
    }
    pid_t pid = start_peer(&r.fd);
    int rc = pid > 0 ? ol_measure_all(&ops, p, "raw_tcp", done, arg) : -1;
    if (r.fd >= 0)
        close(r.fd);
    if (pid > 0 && lb_reap(pid, rc == 0 ? REAP_NS : 0,
                           rc == 0 ? "raw_tcp peer" : NULL) != 0)
        rc = -1;
    free_buffers(&r);
    return rc;
}
