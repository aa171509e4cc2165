/* mpirun's control server: the listening socket, one connection per rank,
 * the job secret check, the bootstrap all-gather, finalize notices and
 * aborts (protocol in ../boot/boot_proto.h, rank side in boot/boot.c).
 *
 * Where it listens. If every rank runs on this host: 127.0.0.1 only, and
 * the ranks get WEFT_MPI_CONTROL=127.0.0.1:port. If some host is remote:
 * every interface (0.0.0.0), local ranks still get 127.0.0.1:port, and
 * remote ranks get all of this host's non-loopback IPv4 addresses (up
 * interfaces, in getifaddrs order), which boot.c tries in turn.
 * --control-address A (or WEFT_MPIRUN_CONTROL_ADDRESS) binds to A alone and
 * hands out only A: use it when the remote hosts reach this one through a
 * particular network, or when the list holds addresses they cannot reach
 * (each unreachable one costs its connect timeout). The port is ephemeral.
 *
 * This host's ranks reach mpirun first through a Unix-domain socket with
 * an abstract name (the kernel picks it; nothing is left in the file
 * system): WEFT_MPI_CONTROL=unix:@name,127.0.0.1:port, tried in that
 * order. The kernel tells who connected (SO_PEERCRED), and a process of
 * another user is closed at once, before any byte is read; the loopback
 * port stays for ranks that cannot see the name (another network
 * namespace on this host). A flood on the TCP port never touches the Unix
 * listener's backlog.
 *
 * Security: anyone who can connect can try, so every connection is a
 * stranger until its HELLO proves the job secret (checked in constant
 * time), and a stranger must not cost a rank its place. Any failure (wrong
 * secret, bad magic or version, unknown or already connected rank, rank
 * already dead, no HELLO within WMPI_HELLO_TIMEOUT_S) closes the
 * connection without a word (logged with -v). The kernel hands over a
 * connection only once its first bytes arrive (TCP_DEFER_ACCEPT; a silent
 * one after WMPI_HELLO_TIMEOUT_S), the backlog is emptied on every round
 * (WL_ACCEPT_BURST at a time), and each new connection is read at once: a
 * rank sends HELLO right after connecting, so its HELLO is there and it
 * never counts as a stranger. At most WL_MAX_STRAYS strangers are kept;
 * past that, every stranger with bytes waiting is read (a rank among them
 * joins), then the oldest are closed. Closing the newest instead would let
 * WL_MAX_STRAYS connections made early lock every rank out until their
 * deadline.
 *
 * Flow control: a rank sends its next request only after the reply to the
 * previous one, so each connection has at most one message to write; it is
 * written at once when the socket takes it, else on POLLOUT. The
 * all-gather result is shared by every connection that sends it (g.done)
 * and freed when the next round completes: by then every rank received it,
 * since each has sent its next contribution.
 *
 * Invariants: a connection is DEAD only between an error found outside its
 * own handler and the next poll set-up, which frees it (handlers of other
 * connections in the same poll round may still hold its pointer).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "launcher.h"

#define WL_MAX_STRAYS   64  /* connections without a HELLO yet */
#define WL_ACCEPT_BURST 256 /* accepts per poll round */

enum conn_state { C_NEW, C_RANK, C_ABORT, C_DEAD };

struct wl_conn {
    struct wl_conn *next;
    int fd;
    enum conn_state state;
    struct wl_rank *rank;
    int64_t deadline;        /* HELLO (or ABORT) due; -1 */
    char peer[64];
    uint8_t hdr[WMPI_MSG_HDR_LEN];
    size_t hgot;
    uint8_t *body;
    size_t blen, bgot;
    uint8_t whdr[WMPI_MSG_HDR_LEN]; /* the message being written */
    uint8_t welcome[WMPI_WELCOME_LEN];
    const uint8_t *wbody;
    size_t wlen, woff;       /* wlen: header + body; 0: nothing to write */
};

/* ------------------------------------------------------------ connections */

static void conn_free(struct wl_job *j, struct wl_conn *c)
{
    for (struct wl_conn **pp = &j->conns; *pp; pp = &(*pp)->next)
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    if (c->rank && c->rank->conn == c)
        c->rank->conn = NULL;
    if (c->fd >= 0)
        close(c->fd);
    free(c->body);
    free(c);
    j->nconns--;
}

static void refuse(struct wl_job *j, struct wl_conn *c, const char *why)
{
    if (j->o->verbose)
        wl_say("refused a control connection from %s: %s", c->peer, why);
    c->state = C_DEAD;
}

/* Close a dead connection's socket before the next poll set-up frees it:
 * a flood's shed connections must not pile up as open descriptors. */
static void close_now(struct wl_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
}

/* Write what the socket takes; 0, or -1 after marking the connection dead. */
static int conn_flush(struct wl_conn *c)
{
    while (c->woff < c->wlen) {
        struct iovec v[2] = { { c->whdr, WMPI_MSG_HDR_LEN }, { (void *)c->wbody,
                                                               c->wlen - WMPI_MSG_HDR_LEN } };
        int i = c->woff < WMPI_MSG_HDR_LEN ? 0 : 1;
        size_t skip = i ? c->woff - WMPI_MSG_HDR_LEN : c->woff;
        v[i].iov_base = (char *)v[i].iov_base + skip;
        v[i].iov_len -= skip;
        struct msghdr m = { .msg_iov = v + i, .msg_iovlen = (size_t)(2 - i) };
        ssize_t w = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (w < 0) {
            c->state = C_DEAD;
            return -1;
        }
        c->woff += (size_t)w;
    }
    c->wlen = c->woff = 0;
    return 0;
}

static void conn_send(struct wl_conn *c, uint32_t type, const void *body, size_t len)
{
    wmpi_put32(c->whdr, type);
    wmpi_put32(c->whdr + 4, (uint32_t)len);
    c->wbody = body;
    c->wlen = WMPI_MSG_HDR_LEN + len;
    c->woff = 0;
    conn_flush(c);
}

/* ------------------------------------------------------------ messages */

static int secret_equal(const uint8_t *a, const uint8_t *b)
{
    volatile uint8_t diff = 0;
    for (size_t i = 0; i < WMPI_SECRET_LEN; i++)
        diff |= a[i] ^ b[i];
    return diff == 0;
}

/* Why this HELLO is refused, or NULL. */
static const char *hello_refusal(const struct wl_job *j, const uint8_t *m)
{
    uint32_t kind = wmpi_get32(m + 8), rank = wmpi_get32(m + 12);
    if (wmpi_get32(m) != WMPI_PROTO_MAGIC || wmpi_get32(m + 4) != WMPI_PROTO_VERSION)
        return "not a Weft rank of this version";
    if (!secret_equal(m + 20, j->secret))
        return "wrong job secret";
    if (rank >= (uint32_t)j->n || (kind != WMPI_HELLO_RANK && kind != WMPI_HELLO_ABORT))
        return "no such rank";
    if (kind == WMPI_HELLO_RANK && j->ranks[rank].connected)
        return "rank already connected";
    if (kind == WMPI_HELLO_RANK && (!j->ranks[rank].alive || j->stopping))
        return "rank not running";
    return NULL;
}

static void on_hello(struct wl_job *j, struct wl_conn *c)
{
    const uint8_t *m = c->body;
    uint32_t kind = wmpi_get32(m + 8), rank = wmpi_get32(m + 12);
    const char *why = hello_refusal(j, m);
    if (why) {
        refuse(j, c, why);
        return;
    }
    struct wl_rank *r = &j->ranks[rank];
    c->rank = r;
    if (kind == WMPI_HELLO_ABORT) {
        c->state = C_ABORT;
        return;
    }
    wmpi_put32(c->welcome, (uint32_t)j->n);
    wmpi_put32(c->welcome + 4, rank);
    c->state = C_RANK;
    c->deadline = -1;
    r->connected = 1;
    r->conn = c;
    r->rpid = (pid_t)wmpi_get32(m + 16);
    j->any_connected = 1;
    conn_send(c, WMPI_MSG_WELCOME, c->welcome, sizeof c->welcome);
    wl_job_rank_joined(j, r);
}

static void gather_done(struct wl_job *j)
{
    free(j->g.done);
    j->g.done = j->g.data;
    j->g.data = NULL;
    j->g.count = 0;
    memset(j->g.have, 0, (size_t)j->n);
    for (int i = 0; i < j->n; i++)
        if (j->ranks[i].conn)
            conn_send(j->ranks[i].conn, WMPI_MSG_GATHERED, j->g.done, j->g.len * (size_t)j->n);
}

/* Start a round with this contribution's length; 0, or -1 after failing. */
static int gather_start(struct wl_job *j, size_t len)
{
    struct wl_gather *g = &j->g;
    g->len = len;
    g->data = malloc(len * (size_t)j->n + 1);
    if (!g->have)
        g->have = calloc((size_t)j->n, 1);
    if (g->data && g->have)
        return 0;
    wl_job_fail(j, WL_EXIT_INTERNAL, "out of memory in the bootstrap all-gather");
    return -1;
}

static void on_gather(struct wl_job *j, struct wl_conn *c)
{
    struct wl_gather *g = &j->g;
    int r = c->rank->rank;
    if (j->stopping || (g->count == 0 && gather_start(j, c->blen)))
        return;
    if (c->blen != g->len || g->have[r]) {
        wl_job_fail(j, WL_EXIT_INTERNAL, "rank %d passed %zu bytes to the bootstrap all-gather,"
                    " other ranks %zu (or joined one round twice)", r, c->blen, g->len);
        return;
    }
    g->have[r] = 1;
    memcpy(g->data + (size_t)r * g->len, c->body, g->len);
    if (++g->count == j->n)
        gather_done(j);
}

/* Abort messages end up on a terminal: keep them on one printable line. */
static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = ' ';
}

static void on_abort(struct wl_job *j, struct wl_conn *c)
{
    char msg[WMPI_ABORT_MSG_MAX + 1], name[96], text[sizeof msg + 128];
    int code = (int)wmpi_get32(c->body);
    size_t n = c->blen - 4;
    memcpy(msg, c->body + 4, n);
    msg[n] = '\0';
    printable(msg);
    c->rank->aborting = 1;
    c->deadline = -1;
    conn_send(c, WMPI_MSG_ABORTED, NULL, 0);
    snprintf(text, sizeof text, "%s aborted the job with error code %d%s%s",
             wl_rank_name(c->rank, name, sizeof name), code, msg[0] ? ": " : "", msg);
    wl_job_abort(j, wmpi_abort_status(code), text);
}

static void dispatch(struct wl_job *j, struct wl_conn *c)
{
    uint32_t type = wmpi_get32(c->hdr);
    if (c->state == C_NEW)
        on_hello(j, c);
    else if (c->state == C_ABORT)
        on_abort(j, c);
    else if (type == WMPI_MSG_GATHER)
        on_gather(j, c);
    else {
        c->rank->finalized = 1;
        conn_send(c, WMPI_MSG_FINALIZED, NULL, 0);
    }
}

/* ------------------------------------------------------------ reading */

/* Is a message of this type and length acceptable in this state? */
static int acceptable(const struct wl_conn *c, uint32_t type, uint32_t len)
{
    switch (c->state) {
    case C_NEW:
        return type == WMPI_MSG_HELLO && len == WMPI_HELLO_LEN;
    case C_ABORT:
        return type == WMPI_MSG_ABORT && len >= 4 && len <= 4 + WMPI_ABORT_MSG_MAX;
    case C_RANK:
        return c->wlen == 0 && ((type == WMPI_MSG_GATHER && len <= WMPI_GATHER_MAX) ||
                                (type == WMPI_MSG_FINALIZE && len == 0 && !c->rank->finalized));
    default:
        return 0;
    }
}

/* Read what is there; dispatch complete messages. -1: close. */
static int conn_read(struct wl_job *j, struct wl_conn *c)
{
    while (c->state != C_DEAD) {
        int in_hdr = c->hgot < WMPI_MSG_HDR_LEN;
        uint8_t *dst = in_hdr ? c->hdr + c->hgot : c->body + c->bgot;
        size_t want = in_hdr ? WMPI_MSG_HDR_LEN - c->hgot : c->blen - c->bgot;
        ssize_t n = want ? recv(c->fd, dst, want, MSG_DONTWAIT) : 0;
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        if (want && n == 0)
            return -1;
        if (in_hdr && (c->hgot += (size_t)n) == WMPI_MSG_HDR_LEN) {
            uint32_t type = wmpi_get32(c->hdr), len = wmpi_get32(c->hdr + 4);
            if (!acceptable(c, type, len))
                return -1;
            c->blen = len;
            c->bgot = 0;
            c->body = malloc(len + 1);
            if (!c->body)
                return -1;
        } else if (!in_hdr && (c->bgot += (size_t)n) == c->blen) {
            dispatch(j, c);
            free(c->body);
            c->body = NULL;
            c->hgot = 0;
        }
    }
    return -1;
}

static void on_conn(struct wl_job *j, void *arg, short revents)
{
    struct wl_conn *c = arg;
    if (c->state == C_DEAD)
        return;
    if ((revents & POLLOUT) && conn_flush(c) < 0)
        return;
    if ((revents & (POLLIN | POLLHUP | POLLERR)) && conn_read(j, c) < 0) {
        if (c->state == C_NEW)
            refuse(j, c, "closed, or sent something other than a HELLO");
        c->state = C_DEAD;
    }
}

/* Serve c as if poll said it is readable. */
static void read_now(struct wl_job *j, struct wl_conn *c)
{
    on_conn(j, c, POLLIN);
    if (c->state == C_DEAD)
        close_now(c);
}

/* Read what every stranger sent: a rank's HELLO waiting there settles it
 * before any stranger is shed. */
static void read_strays(struct wl_job *j)
{
    for (struct wl_conn *c = j->conns; c; c = c->next)
        if (c->state == C_NEW)
            read_now(j, c);
}

/* The number of strangers, and the oldest of them (the list is newest
 * first). */
static int strays(const struct wl_job *j, struct wl_conn **oldest)
{
    int n = 0;
    for (struct wl_conn *c = j->conns; c; c = c->next)
        if (c->state == C_NEW) {
            n++;
            *oldest = c;
        }
    return n;
}

/* Keep at most WL_MAX_STRAYS strangers: shed the oldest. */
static void shed_strays(struct wl_job *j)
{
    struct wl_conn *old = NULL;
    if (strays(j, &old) <= WL_MAX_STRAYS)
        return;
    read_strays(j);
    while (strays(j, &old) > WL_MAX_STRAYS) {
        refuse(j, old, "too many connections without a HELLO, this was the oldest");
        close_now(old);
    }
}

void wl_wireup_adopt(struct wl_job *j, int fd, const char *peer)
{
    struct wl_conn *c = calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    c->fd = fd;
    c->deadline = wl_now_ms() + WMPI_HELLO_TIMEOUT_S * 1000;
    snprintf(c->peer, sizeof c->peer, "%s", peer);
    c->next = j->conns;
    j->conns = c;
    j->nconns++;
    read_now(j, c); /* a rank's HELLO is usually there already */
    shed_strays(j);
}

/* Empty the backlog, so that a stranger's connection never holds an entry
 * a rank needs; at most WL_ACCEPT_BURST per round, so that the ranks'
 * connections and every timer are served between bursts of a flood. */
static void on_listen(struct wl_job *j, void *arg, short revents)
{
    (void)arg;
    (void)revents;
    for (int i = 0; i < WL_ACCEPT_BURST; i++) {
        struct sockaddr_in sa;
        socklen_t len = sizeof sa;
        int fd = accept4(j->listen_fd, (struct sockaddr *)&sa, &len,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        char peer[64];
        snprintf(peer, sizeof peer, "%s:%u", inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
        wl_wireup_adopt(j, fd, peer);
    }
}

/* The Unix listener's backlog, as on_listen: a process of another user is
 * closed before it costs a connection slot. */
static void on_unix_listen(struct wl_job *j, void *arg, short revents)
{
    (void)arg;
    (void)revents;
    for (int i = 0; i < WL_ACCEPT_BURST; i++) {
        int fd = accept4(j->unix_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        struct ucred cred;
        socklen_t len = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
            cred.uid != geteuid()) {
            if (j->o->verbose)
                wl_say("refused a control connection from another user (uid %d)",
                       len == sizeof cred ? (int)cred.uid : -1);
            close(fd);
            continue;
        }
        char peer[64];
        snprintf(peer, sizeof peer, "unix:pid %d", (int)cred.pid);
        wl_wireup_adopt(j, fd, peer);
    }
}

void wl_wireup_poll(struct wl_job *j, struct wl_poll *p)
{
    int64_t now = wl_now_ms();
    for (struct wl_conn *c = j->conns, *next; c; c = next) {
        next = c->next;
        if (c->state != C_DEAD && c->deadline >= 0 && now >= c->deadline)
            refuse(j, c, "no HELLO in time");
        if (c->state == C_DEAD) {
            conn_free(j, c);
            continue;
        }
        if (c->deadline >= 0)
            wl_poll_wake_at(p, c->deadline);
        wl_poll_add(p, c->fd, (short)(POLLIN | (c->wlen ? POLLOUT : 0)), on_conn, c);
    }
    if (j->listen_fd >= 0)
        wl_poll_add(p, j->listen_fd, POLLIN, on_listen, NULL);
    if (j->unix_fd >= 0)
        wl_poll_add(p, j->unix_fd, POLLIN, on_unix_listen, NULL);
}

/* ------------------------------------------------------------ listening */

/* "a:port,b:port" for every up, non-loopback IPv4 address; NULL if none. */
static char *interface_list(unsigned port)
{
    struct ifaddrs *ifs, *i;
    char *list = NULL;
    if (getifaddrs(&ifs) != 0)
        return NULL;
    for (i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        char *prev = list;
        const char *ip = inet_ntoa(((struct sockaddr_in *)i->ifa_addr)->sin_addr);
        if (asprintf(&list, "%s%s%s:%u", prev ? prev : "", prev ? "," : "", ip, port) < 0)
            list = NULL;
        free(prev);
    }
    freeifaddrs(ifs);
    return list;
}

#define UNIX_NAME_MAX 64

/* "@name" of an abstract Unix address into out[UNIX_NAME_MAX]; 0 if it is
 * none, or has bytes that do not belong in an environment variable. */
static int unix_name_format(const struct sockaddr_un *sa, socklen_t len, char *out)
{
    size_t n = len > offsetof(struct sockaddr_un, sun_path) + 1
                   ? len - offsetof(struct sockaddr_un, sun_path) - 1 : 0;
    if (sa->sun_path[0] != '\0' || n == 0 || n + 2 > UNIX_NAME_MAX)
        return 0;
    out[0] = '@';
    for (size_t i = 0; i < n; i++) {
        char c = sa->sun_path[1 + i];
        if (!isalnum((unsigned char)c) && c != '-' && c != '_' && c != '.')
            return 0;
        out[1 + i] = c;
    }
    out[1 + n] = '\0';
    return 1;
}

/* The local ranks' listener: "@name" of its abstract address into
 * name[UNIX_NAME_MAX], or -1 and "" when there is none (the local ranks
 * then use TCP alone). */
static int open_unix(char *name)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    socklen_t len = sizeof sa;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    name[0] = '\0';
    /* Binding the family alone has the kernel pick a free abstract name. */
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa.sun_family) != 0 ||
        listen(fd, SOMAXCONN) != 0 || getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
        !unix_name_format(&sa, len, name)) {
        if (fd >= 0)
            close(fd);
        name[0] = '\0';
        return -1;
    }
    return fd;
}

/* The Unix name is for this host's ranks alone: elsewhere another
 * process may hold the same abstract name. */
static int addresses(struct wl_job *j, struct in_addr bound, unsigned port)
{
    int specific = bound.s_addr != htonl(INADDR_ANY) && bound.s_addr != htonl(INADDR_LOOPBACK);
    char *tcp, unix_name[UNIX_NAME_MAX];
    if (asprintf(&tcp, "%s:%u", specific ? inet_ntoa(bound) : "127.0.0.1", port) < 0)
        return -ENOMEM;
    j->unix_fd = open_unix(unix_name);
    if (!unix_name[0])
        j->ctl_local = strdup(tcp);
    else if (asprintf(&j->ctl_local, "unix:%s,%s", unix_name, tcp) < 0)
        j->ctl_local = NULL;
    if (specific || bound.s_addr == htonl(INADDR_LOOPBACK))
        j->ctl_remote = strdup(tcp);
    else if (!(j->ctl_remote = interface_list(port)))
        j->ctl_remote = strdup(tcp);
    free(tcp);
    return j->ctl_local && j->ctl_remote ? 0 : -ENOMEM;
}

int wl_wireup_open(struct wl_job *j)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    const char *want = j->o->control_addr;
    sa.sin_addr.s_addr = htonl(wl_hosts_any_remote(&j->hosts) ? INADDR_ANY : INADDR_LOOPBACK);
    if (want && inet_pton(AF_INET, want, &sa.sin_addr) != 1) {
        wl_say("--control-address '%s' is not an IPv4 address", want);
        return -EINVAL;
    }
    j->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    socklen_t len = sizeof sa;
    int defer = WMPI_HELLO_TIMEOUT_S;
    if (j->listen_fd >= 0) /* best effort: the stray bound holds without it */
        (void)setsockopt(j->listen_fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &defer, sizeof defer);
    if (j->listen_fd < 0 || bind(j->listen_fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(j->listen_fd, SOMAXCONN) < 0 ||
        getsockname(j->listen_fd, (struct sockaddr *)&sa, &len) < 0) {
        wl_say("cannot open the control server on %s: %s", want ? want : "this host",
               strerror(errno));
        return -errno;
    }
    return addresses(j, sa.sin_addr, ntohs(sa.sin_port));
}

void wl_wireup_close(struct wl_job *j)
{
    while (j->conns)
        conn_free(j, j->conns);
    if (j->listen_fd >= 0)
        close(j->listen_fd);
    j->listen_fd = -1;
    if (j->unix_fd >= 0)
        close(j->unix_fd);
    j->unix_fd = -1;
    free(j->ctl_local);
    free(j->ctl_remote);
    free(j->g.data);
    free(j->g.have);
    free(j->g.done);
}
