/* TCP wire-up: business cards at MPI_Init, and a connection to a peer only
 * when the first frame goes to it.
 *
 * Design. Each rank listens on an ephemeral port of every IPv4 interface
 * and publishes a "business card" through the launcher
 * (wmpi_boot_allgather): a host identity, its port and its non-loopback
 * IPv4 addresses (O(N) memory per rank, no connection). The first frame
 * to a peer starts a non-blocking connect(): EINPROGRESS, then EPOLLOUT in
 * the transport's epoll set says how it went. A rank with the same host
 * identity is tried over 127.0.0.1 first, then through its addresses in
 * order, each within TRY_TIMEOUT. The host identity is the kernel's boot
 * id combined with the network namespace's inode: two network namespaces
 * of one machine (tests with `ip netns exec`) do not share a loopback, and
 * are told apart. Frames queue meanwhile, in order, and are written once
 * the connection is up. A ring or a stencil thus holds a socket per
 * neighbour, not one per rank of the job (bench/startup counts them).
 *
 * Authentication: the connecting side speaks first, a 32-byte hello
 * {magic, job secret, rank, size}. The accepting side (tcp_accept.c)
 * checks it, under the hostile-stranger rules told there.
 *
 * Simultaneous connects (i < j, each sending its first frame to the other
 * at once): the connection opened by the lower rank wins, so exactly one
 * survives and neither side ever writes a frame on the other. The lower
 * rank's connection wins whatever happens, so it writes its frames right
 * behind its hello. The higher rank's may lose, so it writes nothing
 * behind its hello until the lower rank answers one byte: ACCEPT (no
 * connection of its own to the higher rank: this one is the pair's), or
 * MINE (it is opening, or has, its own: the higher rank closes its
 * attempt and waits, YIELDED, for the lower rank's connection, which its
 * listener accepts). A higher rank that accepts the lower rank's hello
 * while still opening its own closes its own: the lower rank answers that
 * one MINE, or never reads it. Its queued frames, none of them written,
 * then go out on the winner in their order. No frame is lost or
 * reordered: a frame is only ever written on the pair's final connection.
 * A higher rank whose attempt ends without an answer (EOF: the lower rank
 * shed it as a stranger under a flood, or died) tries again from its first
 * address, within the deadline; a dead rank refuses the connection.
 *
 * Time limits: opening (connect, hello, and the wait for the lower rank's
 * connection once YIELDED) must finish within WEFT_MPI_CONNECT_TIMEOUT
 * seconds (default 60) of the first frame, or the peer is lost: the
 * engine's lost-connection upcall names it and the address tried, and
 * every frame queued to it fails. The wait for the answer (AWAIT) has no
 * deadline of its own: the lower rank answers at its next progress pass,
 * which may come late from a rank computing outside MPI, as a receive
 * would; a dead host is found by keepalive and TCP_USER_TIMEOUT, set
 * before the hello (WEFT_MPI_TCP_TIMEOUT), a dead process refuses or
 * resets the connection. Deadlines fire through a timerfd in the epoll
 * set, armed at the earliest one.
 *
 * Rejected: connecting every pair at MPI_Init (255 sockets per rank on 256
 * ranks, a socket and a 64 KiB buffer per peer never spoken to, and a
 * start-up that grows with N^2 connects: figures in
 * docs/performance-notes.md); keeping both connections of a simultaneous
 * pair, one per direction (each side would read two sockets per peer);
 * answering every hello (a round trip on the lower rank's first frame,
 * which cannot lose).
 *
 * Invariants: a peer's fd is in the epoll set iff `armed`; only UP peers
 * have frames written; `unsettled` counts the peers neither UP, LOST nor
 * UNUSED.
 * Locking: everything runs under the engine lock (transport.h contract),
 * but wmpi_tcp_setup, which runs in create().
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>
#include <weft/timer.h>

#include "transport/tcp.h"

#define SEC ((int64_t)1000000000)
#define TRY_TIMEOUT (5 * SEC) /* per address: an unreachable one must not
                                 use up the whole deadline */
#define DEFER_ACCEPT_S 5      /* see tcp_accept.c */
_Static_assert(sizeof(tcp_hello) == 32, "hello is 32 bytes on the wire");

/* WEFT_MPI_CONNECT_TIMEOUT in ns (default 60 s). */
static int64_t connect_timeout(void)
{
    const char *s = getenv("WEFT_MPI_CONNECT_TIMEOUT");
    long v = s ? strtol(s, NULL, 10) : 0;

    return (v > 0 ? v : 60) * SEC;
}

/* WEFT_MPI_TCP_TIMEOUT: seconds after which a connection whose peer
 * stopped answering is given up (default 30; 0: the kernel's own rules,
 * which may wait for hours on an idle connection). */
static int dead_peer_seconds(void)
{
    const char *s = getenv("WEFT_MPI_TCP_TIMEOUT");
    char *end;
    long v;

    if (!s || !*s)
        return 30;
    v = strtol(s, &end, 10);
    if (*end || v < 0 || v > 86400) {
        fprintf(stderr, "weft-mpi: ignoring malformed WEFT_MPI_TCP_TIMEOUT=%s (seconds)\n", s);
        return 30;
    }
    return (int)v;
}

/* ------------------------------------------------------------ the card */

static void fill_addrs(tcp_card *c)
{
    struct ifaddrs *ifs, *i;

    if (getifaddrs(&ifs) < 0)
        return;
    for (i = ifs; i && c->naddr < WMPI_TCP_MAX_ADDRS; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        c->addr[c->naddr++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(ifs);
}

/* Listen on every interface; the kernel hands over a connection only
 * once it has data, or after DEFER_ACCEPT_S (TCP_DEFER_ACCEPT): silent
 * ones wait there, not in the strangers' table. Best effort: without it
 * the table alone bounds them. */
static int listen_any(uint16_t *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int defer = DEFER_ACCEPT_S;

    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (fd < 0)
        return -errno;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof defer);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, SOMAXCONN) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    *port = a.sin_port;
    return fd;
}

static int watch_fd(int epfd, int fd, uint64_t tag)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int wmpi_tcp_setup(struct wmpi_transport *t, const uint8_t *want)
{
    tcp_card me = { 0 };
    int err;

    t->dead_s = dead_peer_seconds();
    t->connect_ns = connect_timeout();
    t->cards = calloc((size_t)t->size, sizeof *t->cards);
    if (!t->cards)
        return WEFT_ENOMEM;
    for (int r = 0; r < t->size; r++)
        if (want[r] && r != t->rank) {
            t->peers[r].state = TCP_IDLE;
            t->unsettled++;
        }
    wmpi_host_identity(me.host);
    fill_addrs(&me);
    t->lfd = listen_any(&me.port);
    if (t->lfd < 0)
        return t->lfd;
    t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (t->tfd < 0)
        return -errno;
    err = wmpi_boot_allgather(t->boot, &me, sizeof me, t->cards);
    if (!err)
        err = watch_fd(t->epfd, t->tfd, TCP_EV(TCP_EV_TIMER, 0));
    if (!err && t->unsettled)
        err = watch_fd(t->epfd, t->lfd, TCP_EV(TCP_EV_LISTEN, 0));
    t->listening = !err && t->unsettled;
    return err;
}

/* ------------------------------------------------------------- options */

/* A peer that vanishes (its host down, a link cut) must end the job
 * within the bound, never hang it: TCP_USER_TIMEOUT bounds data left
 * unacknowledged, and keepalive probes find a silent peer of an idle
 * connection (a rank blocked in MPI_Recv) after about the same time.
 * Failures are not fatal: the connection then has the kernel's rules. */
static void bound_dead_peer(int fd, int seconds)
{
    int on = 1, idle = seconds / 2 > 0 ? seconds / 2 : 1;
    int intvl = seconds / 10 > 0 ? seconds / 10 : 1;
    int cnt = (seconds - idle) / intvl > 0 ? (seconds - idle) / intvl : 1;
    unsigned ms = (unsigned)seconds * 1000u;

    if (seconds == 0)
        return;
    (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    (void)setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms);
}

/* The peer's address, kept for the message that reports its loss. */
static void note_where(tcp_peer *p)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;

    if (getpeername(p->fd, (struct sockaddr *)&a, &len) == 0 && a.sin_family == AF_INET)
        inet_ntop(AF_INET, &a.sin_addr, p->where, sizeof p->where);
}

/* TCP_NODELAY: a small message leaves at once. Best effort, as above. */
void wmpi_tcp_tune(struct wmpi_transport *t, tcp_peer *p)
{
    int one = 1;

    (void)setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    bound_dead_peer(p->fd, t->dead_s);
    note_where(p);
}

/* --------------------------------------------------------------- timer */

void wmpi_tcp_due(struct wmpi_transport *t, int64_t when)
{
    struct itimerspec its = { 0 };

    if (t->timer_at && t->timer_at <= when)
        return;
    when = when > 0 ? when : 1;
    its.it_value.tv_sec = when / SEC;
    its.it_value.tv_nsec = when % SEC;
    if (timerfd_settime(t->tfd, TFD_TIMER_ABSTIME, &its, NULL) == 0)
        t->timer_at = when;
}

/* ------------------------------------------------------------- opening */

static void try_next(struct wmpi_transport *t, tcp_peer *p, int err);

/* The address of attempt p->try_addr (-1: loopback). */
static uint32_t attempt_addr(const struct wmpi_transport *t, const tcp_peer *p)
{
    return p->try_addr < 0 ? htonl(INADDR_LOOPBACK) : t->cards[p->rank].addr[p->try_addr];
}

/* Connect to the current address; errors move on to the next one. */
static void start_attempt(struct wmpi_transport *t, tcp_peer *p)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = t->cards[p->rank].port };
    int64_t now = weft_now();

    a.sin_addr.s_addr = attempt_addr(t, p);
    p->hello_sent = 0;
    inet_ntop(AF_INET, &a.sin_addr, p->where, sizeof p->where);
    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (p->fd < 0) {
        wmpi_tcp_lose(t, p, -errno);
        return;
    }
    if (connect(p->fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
        try_next(t, p, -errno);
        return;
    }
    p->state = TCP_CONNECTING;
    p->try_until = now + TRY_TIMEOUT < p->until ? now + TRY_TIMEOUT : p->until;
    wmpi_tcp_due(t, p->try_until);
    wmpi_tcp_watch(t, p, EPOLLOUT);
}

/* The attempt failed with `err`: the next address, or the peer is lost. */
static void try_next(struct wmpi_transport *t, tcp_peer *p, int err)
{
    wmpi_tcp_close(t, p);
    if (++p->try_addr >= t->cards[p->rank].naddr || weft_now() >= p->until) {
        wmpi_tcp_lose(t, p, err);
        return;
    }
    start_attempt(t, p);
}

/* From the first address (loopback for a rank of this host). */
static void start_opening(struct wmpi_transport *t, tcp_peer *p)
{
    const tcp_card *me = &t->cards[t->rank], *c = &t->cards[p->rank];

    p->try_addr = memcmp(me->host, c->host, sizeof c->host) == 0 ? -1 : 0;
    if (p->try_addr == 0 && c->naddr == 0) {
        wmpi_tcp_lose(t, p, -EHOSTUNREACH);
        return;
    }
    start_attempt(t, p);
}

void wmpi_tcp_open(struct wmpi_transport *t, tcp_peer *p)
{
    p->until = weft_now() + t->connect_ns;
    start_opening(t, p);
}

/* ------------------------------------------------------------ the hello */

static void hello_done(struct wmpi_transport *t, tcp_peer *p)
{
    if (t->rank < p->rank) { /* ours wins whatever the peer does */
        wmpi_tcp_up(t, p, p->fd);
        return;
    }
    p->state = TCP_AWAIT;
    wmpi_tcp_watch(t, p, EPOLLIN);
}

static void write_hello(struct wmpi_transport *t, tcp_peer *p)
{
    tcp_hello h = { .rank = t->rank, .size = t->size };
    ssize_t w;

    memcpy(h.magic, WMPI_TCP_MAGIC, sizeof h.magic);
    memcpy(h.secret, t->boot->secret, WMPI_SECRET_LEN);
    w = send(p->fd, (char *)&h + p->hello_sent, sizeof h - p->hello_sent,
             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno != EAGAIN && errno != EINTR) {
        try_next(t, p, -errno);
        return;
    }
    p->hello_sent += w > 0 ? (size_t)w : 0;
    if (p->hello_sent == sizeof h)
        hello_done(t, p);
}

/* connect() finished, well or not (an event left from the attempt before
 * may come first: then the socket has no peer yet, and we wait on). */
static void connected(struct wmpi_transport *t, tcp_peer *p)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    int err = 0;
    socklen_t len = sizeof err;

    if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err) {
        try_next(t, p, -err);
        return;
    }
    if (getpeername(p->fd, (struct sockaddr *)&a, &alen) < 0)
        return;
    wmpi_tcp_tune(t, p);
    p->state = TCP_HELLO;
    write_hello(t, p);
}

/* The lower rank's one byte in answer to our hello. */
static void read_answer(struct wmpi_transport *t, tcp_peer *p)
{
    char b;
    ssize_t r = recv(p->fd, &b, 1, MSG_DONTWAIT);

    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (r == 1 && b == TCP_ANSWER_ACCEPT) {
        wmpi_tcp_up(t, p, p->fd);
        return;
    }
    wmpi_tcp_close(t, p);
    if (r == 1 && b == TCP_ANSWER_MINE) {
        p->state = TCP_YIELDED;
        wmpi_tcp_due(t, p->until);
    } else if (weft_now() < p->until) {
        start_opening(t, p); /* shed unproven, or the rank is gone */
    } else {
        wmpi_tcp_lose(t, p, r == 0 ? -ECONNRESET : -errno);
    }
}

void wmpi_tcp_opening_event(struct wmpi_transport *t, tcp_peer *p, unsigned events)
{
    if (p->state == TCP_CONNECTING)
        connected(t, p);
    else if (p->state == TCP_HELLO)
        write_hello(t, p);
    else if (p->state == TCP_AWAIT && (events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        read_answer(t, p);
}

/* ----------------------------------------------------------- deadlines */

/* Give p up, or move to its next address, if its time is over; the
 * deadline it still has (INT64_MAX: none). */
static int64_t expire_opening(struct wmpi_transport *t, tcp_peer *p, int64_t now)
{
    if (p->state == TCP_YIELDED && now >= p->until)
        wmpi_tcp_lose(t, p, WEFT_ETIMEDOUT);
    else if ((p->state == TCP_CONNECTING || p->state == TCP_HELLO) && now >= p->try_until)
        try_next(t, p, WEFT_ETIMEDOUT);
    if (p->state == TCP_YIELDED)
        return p->until;
    if (p->state == TCP_CONNECTING || p->state == TCP_HELLO)
        return p->try_until;
    return INT64_MAX;
}

void wmpi_tcp_timer_event(struct wmpi_transport *t)
{
    uint64_t ticks;
    int64_t now = weft_now(), next;

    if (read(t->tfd, &ticks, sizeof ticks) < 0 && errno == EAGAIN)
        return;
    t->timer_at = 0;
    next = wmpi_tcp_expire_strangers(t, now);
    for (int r = 0; r < t->size && t->unsettled; r++) {
        int64_t d = expire_opening(t, &t->peers[r], now);
        next = d < next ? d : next;
    }
    if (next != INT64_MAX)
        wmpi_tcp_due(t, next);
}
