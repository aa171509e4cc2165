/* TCP wire-up: every pair of ranks gets one authenticated connection at
 * MPI_Init.
 *
 * Design. Each rank listens on an ephemeral port of every IPv4 interface
 * and publishes a "business card" through the launcher
 * (wmpi_boot_allgather): a host identity, its port and its non-loopback
 * IPv4 addresses. Rank i then connects to every rank j < i and accepts
 * from every rank j > i, so each pair connects exactly once and the waits
 * form no cycle (rank 0 only accepts; connect() completes against the
 * listen backlog without the other side's help). A rank with the same
 * host identity is reached over 127.0.0.1; the others through their
 * addresses in order. The host identity is the kernel's boot id combined
 * with the network namespace's inode: two network namespaces of one
 * machine (tests with `ip netns exec`) do not share a loopback, and are
 * told apart.
 *
 * Authentication: the connecting side speaks first, a 32-byte hello
 * {magic, job secret, rank, size}. The accepting side checks it with
 * wmpi_boot_secret_ok and closes any connection whose hello is wrong,
 * incomplete after HELLO_TIMEOUT, or from a rank already connected: a
 * stray process cannot join the job.
 *
 * Strangers: anyone on the host can connect, so every connection is
 * hostile until its hello proves the secret, and none may cost a peer its
 * place. The kernel holds a connection back until its first bytes arrive
 * (TCP_DEFER_ACCEPT), so a peer's comes with its hello, which is read at
 * once and settles it; silent strangers stay in the kernel until
 * HELLO_TIMEOUT. The listen backlog is SOMAXCONN deep and emptied on every
 * wake. A connection that sent part of a hello waits in a table of
 * MAX_PENDING, read concurrently with weft_wait_any, pending hellos before
 * new connections. When the table is full, every entry with bytes waiting
 * is read first (settling the peers among them), then the oldest is
 * closed: a peer sends its hello right after connecting, so a flood must
 * bring MAX_PENDING connections in that instant to push one out. Shedding
 * the newest instead (sshd's MaxStartups refuses new connections at
 * random) lets strangers that came first lock the peers out for the whole
 * HELLO_TIMEOUT. The listening socket is closed once every peer is in.
 *
 * Blocking: this runs once, inside MPI_Init. Waits go through the I/O
 * server (weft_fd_wait, weft_wait_any), so they block only the calling
 * thread, with a deadline (WEFT_MPI_CONNECT_TIMEOUT seconds, default 60):
 * a rank that never shows up fails MPI_Init with WEFT_ETIMEDOUT instead of
 * hanging it.
 *
 * Rejected: accepting in a background thread (ordering between the
 * engine's first messages and the accept would need its own locking, for
 * a one-time cost of milliseconds).
 *
 * Invariants: each pair of ranks gets one connection, opened by the
 * higher rank; only hellos with the secret reach peers[].
 * Locking: none (single-threaded, before the engine exists).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft/io.h>
#include <weft/timer.h>

#include "transport/tcp.h"

#define MAX_ADDRS 8
#define MAX_PENDING 64
#define SEC ((int64_t)1000000000)
#define HELLO_TIMEOUT (5 * SEC)
#define TRY_TIMEOUT (5 * SEC) /* per address: an unreachable one must not
                                 use up the whole deadline */
static const char MAGIC[8] = { 'W', 'E', 'F', 'T', 'M', 'P', 'I', '1' };

typedef struct card {
    uint8_t host[16];
    uint16_t port;  /* network order */
    uint16_t naddr;
    uint32_t addr[MAX_ADDRS]; /* network order */
} card;

typedef struct hello {
    char magic[8];
    uint8_t secret[WMPI_SECRET_LEN];
    int32_t rank, size;
} hello;

_Static_assert(sizeof(hello) == 32, "hello is 32 bytes on the wire");

/* Absolute deadline (weft_now() ns) of the whole wire-up. */
static int64_t wireup_deadline(void)
{
    const char *s = getenv("WEFT_MPI_CONNECT_TIMEOUT");
    long v = s ? strtol(s, NULL, 10) : 0;

    return weft_now() + (v > 0 ? v : 60) * SEC;
}

static int64_t earliest(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ------------------------------------------------------------ the card */

static void fill_addrs(card *c)
{
    struct ifaddrs *ifs, *i;

    if (getifaddrs(&ifs) < 0)
        return;
    for (i = ifs; i && c->naddr < MAX_ADDRS; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
            continue;
        c->addr[c->naddr++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
    }
    freeifaddrs(ifs);
}

/* Listen on every interface; the kernel hands over a connection only
 * once it has data, or after HELLO_TIMEOUT (TCP_DEFER_ACCEPT): silent
 * ones wait there, not in the pending table. Best effort: without it the
 * table alone bounds them. */
static int listen_any(int backlog, uint16_t *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int defer = (int)(HELLO_TIMEOUT / SEC);

    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (fd < 0)
        return -errno;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof defer);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, backlog) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    *port = a.sin_port;
    return fd;
}

/* ------------------------------------------------------------- helpers */

static int wait_fd(int fd, unsigned events, int64_t deadline)
{
    int r = weft_fd_wait(fd, events, deadline);

    return r < 0 ? r : 0;
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

    p->where[0] = '\0';
    if (getpeername(p->fd, (struct sockaddr *)&a, &len) == 0 && a.sin_family == AF_INET)
        inet_ntop(AF_INET, &a.sin_addr, p->where, sizeof p->where);
}

static int finish_socket(tcp_peer *p, int dead_s)
{
    int one = 1;

    if (setsockopt(p->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0)
        return -errno;
    bound_dead_peer(p->fd, dead_s);
    note_where(p);
    return fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) | O_NONBLOCK) < 0 ? -errno : 0;
}

/* ------------------------------------------------------------- connect */

static int connect_addr(uint32_t addr, uint16_t port, int64_t deadline)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = port };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int err = 0;
    socklen_t len = sizeof err;

    a.sin_addr.s_addr = addr;
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS)
        err = -errno;
    if (!err)
        err = wait_fd(fd, WEFT_IO_WRITE, deadline);
    if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err)
        err = -err;
    if (err) {
        close(fd);
        return err;
    }
    return fd;
}

static int send_hello(int fd, const struct wmpi_transport *t, int64_t deadline)
{
    hello h = { .rank = t->rank, .size = t->size };
    size_t off = 0;

    memcpy(h.magic, MAGIC, sizeof MAGIC);
    memcpy(h.secret, t->boot->secret, WMPI_SECRET_LEN);
    while (off < sizeof h) {
        ssize_t w = send(fd, (char *)&h + off, sizeof h - off, MSG_NOSIGNAL);
        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        else if (wait_fd(fd, WEFT_IO_WRITE, deadline) < 0)
            return WEFT_ETIMEDOUT;
    }
    return 0;
}

static int connect_peer(const struct wmpi_transport *t, const card *me,
                        const card *c, int64_t deadline)
{
    int fd = WEFT_EINVAL;

    if (memcmp(me->host, c->host, sizeof c->host) == 0)
        fd = connect_addr(htonl(INADDR_LOOPBACK), c->port, deadline);
    for (int i = 0; fd < 0 && i < c->naddr; i++)
        fd = connect_addr(c->addr[i], c->port, earliest(weft_now() + TRY_TIMEOUT, deadline));
    if (fd < 0)
        return fd;
    if (send_hello(fd, t, deadline) < 0) {
        close(fd);
        return WEFT_ETIMEDOUT;
    }
    return fd;
}

/* -------------------------------------------------------------- accept */

typedef struct pending {
    int fd;
    size_t got;
    int64_t until;
    hello h;
} pending;

/* A complete hello from `p`: the rank it proves, or -1. */
static int check_hello(const struct wmpi_transport *t, const pending *p)
{
    const hello *h = &p->h;

    if (memcmp(h->magic, MAGIC, sizeof MAGIC) || !wmpi_boot_secret_ok(t->boot, h->secret))
        return -1;
    if (h->size != t->size || h->rank <= t->rank || h->rank >= t->size)
        return -1;
    return t->want[h->rank] && t->peers[h->rank].fd < 0 ? h->rank : -1;
}

/* Read more of p's hello; 1 when settled (accepted or rejected). */
static int read_hello(struct wmpi_transport *t, pending *p, int *accepted)
{
    ssize_t r = recv(p->fd, (char *)&p->h + p->got, sizeof p->h - p->got, 0);
    int rank;

    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (r <= 0) {
        close(p->fd);
        return 1;
    }
    p->got += (size_t)r;
    if (p->got < sizeof p->h)
        return 0;
    rank = check_hello(t, p);
    if (rank < 0) {
        fprintf(stderr, "weft-mpi: rank %d: refused a connection without the job's secret\n",
                t->rank);
        close(p->fd);
        return 1;
    }
    t->peers[rank].fd = p->fd;
    ++*accepted;
    return 1;
}

/* Forget pending entry i (settled). */
static void drop(pending *pend, int *npend, int i)
{
    pend[i] = pend[--*npend];
}

/* Read every pending hello that has bytes waiting: a peer's complete hello
 * settles it before anything is shed. */
static void read_all(struct wmpi_transport *t, pending *pend, int *npend, int *accepted)
{
    for (int i = *npend - 1; i >= 0; i--)
        if (read_hello(t, &pend[i], accepted))
            drop(pend, npend, i);
}

/* Make room for one more: close the oldest unproven connection. */
static void shed_oldest(pending *pend, int *npend)
{
    int old = 0;

    for (int i = 1; i < *npend; i++)
        if (pend[i].until < pend[old].until)
            old = i;
    close(pend[old].fd);
    drop(pend, npend, old);
}

/* Accept one connection and read what it sent; 0, or -1 when the backlog
 * is empty (or accept fails: the listener is tried again on its next
 * event). */
static int take_one(struct wmpi_transport *t, int lfd, pending *pend, int *npend,
                    int *accepted)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    pending p = { .fd = fd, .until = weft_now() + HELLO_TIMEOUT };

    if (fd < 0)
        return -1;
    if (read_hello(t, &p, accepted))
        return 0;
    if (*npend == MAX_PENDING)
        read_all(t, pend, npend, accepted);
    if (*npend == MAX_PENDING)
        shed_oldest(pend, npend);
    pend[(*npend)++] = p;
    return 0;
}

/* Empty the listen backlog, so that a stranger's connection never holds
 * an entry a peer needs; at most MAX_PENDING at a time, so that pending
 * hellos and deadlines are served between bursts of a flood. */
static void take_new(struct wmpi_transport *t, int lfd, pending *pend, int *npend,
                     int *accepted)
{
    for (int i = 0; i < MAX_PENDING && take_one(t, lfd, pend, npend, accepted) == 0; i++)
        ;
}

/* Close the hellos that took too long; the earliest remaining deadline. */
static int64_t expire(pending *pend, int *npend, int64_t deadline)
{
    int64_t now = weft_now(), next = deadline;

    for (int i = *npend - 1; i >= 0; i--) {
        if (pend[i].until <= now) {
            close(pend[i].fd);
            drop(pend, npend, i);
        } else {
            next = earliest(next, pend[i].until);
        }
    }
    return next;
}

/* One wait on the pending hellos (first: they have priority) and the
 * listening socket; serve whichever fired. */
static int serve_one(struct wmpi_transport *t, int lfd, pending *pend, int *npend,
                     int *accepted, int64_t deadline)
{
    weft_clause cl[MAX_PENDING + 1];
    int64_t until = expire(pend, npend, deadline);
    int n = *npend, i;

    for (i = 0; i < n; i++)
        cl[i] = (weft_clause){ .kind = WEFT_CLAUSE_FD, .fd = pend[i].fd, .events = WEFT_IO_READ };
    cl[n] = (weft_clause){ .kind = WEFT_CLAUSE_FD, .fd = lfd, .events = WEFT_IO_READ };
    i = weft_wait_any(cl, n + 1, until);
    if (i == WEFT_ETIMEDOUT)
        return weft_now() >= deadline ? WEFT_ETIMEDOUT : 0;
    if (i < 0)
        return i;
    if (i == n)
        take_new(t, lfd, pend, npend, accepted);
    else if (read_hello(t, &pend[i], accepted))
        drop(pend, npend, i);
    return 0;
}

static int accept_higher(struct wmpi_transport *t, int lfd, int64_t deadline)
{
    pending pend[MAX_PENDING];
    int npend = 0, accepted = 0, want = 0, err = 0;

    for (int r = t->rank + 1; r < t->size; r++)
        want += t->want[r] != 0;

    while (accepted < want && !err)
        err = serve_one(t, lfd, pend, &npend, &accepted, deadline);
    for (int i = 0; i < npend; i++)
        close(pend[i].fd);
    return err;
}

/* ------------------------------------------------------------ together */

static int connect_lower(struct wmpi_transport *t, const card *cards, int64_t deadline)
{
    for (int r = 0; r < t->rank; r++) {
        if (!t->want[r])
            continue;
        int fd = connect_peer(t, &cards[t->rank], &cards[r], deadline);
        if (fd < 0) {
            fprintf(stderr, "weft-mpi: rank %d: cannot connect to rank %d: %s\n",
                    t->rank, r, strerror(-fd));
            return fd;
        }
        t->peers[r].fd = fd;
    }
    return 0;
}

static int finish_all(struct wmpi_transport *t)
{
    int err = 0, dead_s = dead_peer_seconds();

    for (int r = 0; r < t->size && !err; r++)
        if (t->peers[r].fd >= 0)
            err = finish_socket(&t->peers[r], dead_s);
    return err;
}

int wmpi_tcp_connect_all(struct wmpi_transport *t)
{
    card *cards = calloc((size_t)t->size, sizeof *cards);
    card me = { 0 };
    int64_t deadline = wireup_deadline();
    int lfd, err;

    if (!cards)
        return WEFT_ENOMEM;
    wmpi_host_identity(me.host);
    fill_addrs(&me);
    lfd = listen_any(SOMAXCONN, &me.port);
    err = lfd < 0 ? lfd : wmpi_boot_allgather(t->boot, &me, sizeof me, cards);
    if (!err)
        err = connect_lower(t, cards, deadline);
    if (!err)
        err = accept_higher(t, lfd, deadline);
    if (!err)
        err = finish_all(t);
    if (err == WEFT_ETIMEDOUT)
        fprintf(stderr, "weft-mpi: rank %d: peers did not all connect in time\n", t->rank);
    if (lfd >= 0)
        close(lfd);
    free(cards);
    return err;
}
