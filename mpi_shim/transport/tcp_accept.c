/* TCP accepting: the listening socket, open for the whole job, and the
 * strangers it lets in until their hello proves the job's secret.
 *
 * Design. The listener sits in the transport's epoll set; progress accepts
 * whatever its backlog holds, never blocking (tcp_connect.c tells when a
 * peer connects). Anyone on the host can connect, so every connection is
 * hostile until its hello {magic, job secret, rank, size} proves the
 * secret (wmpi_boot_secret_ok), and none may cost a peer its place. The
 * kernel holds a connection back until its first bytes arrive
 * (TCP_DEFER_ACCEPT), so a peer's comes with its hello, which is read at
 * once and settles it; silent strangers stay in the kernel. The backlog is
 * SOMAXCONN deep and emptied on every wake (MAX_STRANGERS at a time, so
 * that hellos and deadlines are served between bursts of a flood). A
 * connection that sent part of a hello waits in a table of MAX_STRANGERS,
 * each in the epoll set, each closed after HELLO_TIMEOUT. When the table is
 * full, every entry with bytes waiting is read first (settling the peers
 * among them), then the oldest is closed: a peer sends its hello right
 * after connecting, so a flood must bring MAX_STRANGERS connections in that
 * instant to push one out (and a higher rank pushed out connects again:
 * tcp_connect.c). Shedding the newest instead (sshd's MaxStartups refuses
 * new connections at random) lets strangers that came first lock the
 * peers out for the whole HELLO_TIMEOUT. A wrong secret is reported on
 * stderr once per job, whatever the number of strangers; expiry and
 * shedding are silent.
 *
 * A proven hello from rank r settles as tcp_connect.c's tie-break says:
 * from a lower rank, the connection is the pair's (ours, if we were
 * opening one, is closed and our queued frames go out on this one); from
 * a higher rank, it is the pair's if we have none (we answer ACCEPT), else
 * we answer MINE and close it. A hello from a rank already UP or LOST is
 * closed (a higher rank gets MINE: it waits for a connection that never
 * comes, and its deadline ends that).
 *
 * Once every peer of this rank is UP or LOST, no peer needs the listener:
 * it leaves the epoll set (strangers are closed) but stays open, so that
 * a late higher rank's attempt waits in the backlog, never refused, until
 * it accepts our connection instead.
 *
 * Invariants: a stranger's fd is in the epoll set (tagged with its slot)
 * while in the table; a settled fd leaves the table and the set first.
 * Locking: under the engine lock (transport.h contract).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <weft/timer.h>

#include "transport/tcp.h"

#define SEC ((int64_t)1000000000)
#define HELLO_TIMEOUT (5 * SEC)
#define MAX_STRANGERS WMPI_TCP_MAX_STRANGERS

/* ------------------------------------------------------------ settling */

static int hello_ok(const struct wmpi_transport *t, const tcp_hello *h)
{
    return memcmp(h->magic, WMPI_TCP_MAGIC, sizeof h->magic) == 0 &&
           wmpi_boot_secret_ok(t->boot, h->secret) && h->size == t->size && h->rank >= 0 &&
           h->rank < t->size && h->rank != t->rank;
}

/* A complete hello: the job rank it proves, or -1. */
static int proven_rank(struct wmpi_transport *t, const tcp_hello *h)
{
    if (hello_ok(t, h))
        return h->rank;
    if (!t->warned_secret)
        fprintf(stderr, "weft-mpi: rank %d: refused a connection without the job's secret "
                        "(said once; later ones are refused silently)\n", t->rank);
    t->warned_secret = 1;
    return -1;
}

static void answer(int fd, char b)
{
    (void)send(fd, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* The lower rank's connection: always the pair's. */
static void adopt_lower(struct wmpi_transport *t, tcp_peer *p, int fd)
{
    wmpi_tcp_close(t, p); /* our own attempt, if any, loses */
    p->fd = fd;
    wmpi_tcp_tune(t, p);
    wmpi_tcp_up(t, p, fd);
}

/* A higher rank's connection: the pair's unless we have one. */
static void adopt_higher(struct wmpi_transport *t, tcp_peer *p, int fd)
{
    if (p->state != TCP_IDLE) {
        answer(fd, TCP_ANSWER_MINE);
        close(fd);
        return;
    }
    answer(fd, TCP_ANSWER_ACCEPT);
    p->fd = fd;
    wmpi_tcp_tune(t, p);
    wmpi_tcp_up(t, p, fd);
}

/* A proven hello from `rank` on fd (out of the table and the set). */
static void settle(struct wmpi_transport *t, int fd, int rank)
{
    tcp_peer *p = &t->peers[rank];

    if (p->state == TCP_UNUSED || p->state == TCP_UP || p->state == TCP_LOST) {
        if (rank > t->rank) /* only a higher rank reads an answer */
            answer(fd, TCP_ANSWER_MINE);
        close(fd);
    } else if (rank < t->rank) {
        adopt_lower(t, p, fd);
    } else {
        adopt_higher(t, p, fd);
    }
}

/* Read more of s's hello; 1 when settled (s->fd then handed over or
 * closed), 0 while incomplete. */
static int read_hello(struct wmpi_transport *t, tcp_stranger *s)
{
    ssize_t r = recv(s->fd, (char *)&s->h + s->got, sizeof s->h - s->got, MSG_DONTWAIT);
    int rank;

    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (r <= 0) {
        close(s->fd);
        return 1;
    }
    s->got += (size_t)r;
    if (s->got < sizeof s->h)
        return 0;
    rank = proven_rank(t, &s->h);
    if (rank < 0)
        close(s->fd);
    else
        settle(t, s->fd, rank);
    return 1;
}

/* ------------------------------------------------------------ the table */

/* Take slot i out of the table (its fd is settled or about to close). */
static void forget(struct wmpi_transport *t, int i)
{
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->strangers[i].fd, NULL);
    t->strangers[i].fd = -1;
    t->nstrangers--;
}

/* Put s back in slot i, in the set. */
static void readmit(struct wmpi_transport *t, int i, const tcp_stranger *s)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TCP_EV(TCP_EV_STRANGER, i) };

    if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, s->fd, &ev) < 0) {
        close(s->fd);
        return;
    }
    t->strangers[i] = *s;
    t->nstrangers++;
}

/* Read what stranger i sent. It leaves the table and the set first: a
 * proven hello makes its fd a peer's socket, with the peer's tag. */
static void serve(struct wmpi_transport *t, int i)
{
    tcp_stranger s = t->strangers[i];

    if (s.fd < 0)
        return;
    forget(t, i);
    if (!read_hello(t, &s))
        readmit(t, i, &s);
}

void wmpi_tcp_stranger_event(struct wmpi_transport *t, int slot)
{
    serve(t, slot);
}

/* Read every stranger that has bytes waiting: a peer's complete hello
 * settles it before anything is shed. */
static void read_all(struct wmpi_transport *t)
{
    for (int i = 0; i < MAX_STRANGERS; i++)
        serve(t, i);
}

/* Make room for one more: close the oldest unproven connection. */
static void shed_oldest(struct wmpi_transport *t)
{
    int old = -1;

    for (int i = 0; i < MAX_STRANGERS; i++)
        if (t->strangers[i].fd >= 0 && (old < 0 || t->strangers[i].until < t->strangers[old].until))
            old = i;
    if (old >= 0) {
        int fd = t->strangers[old].fd;
        forget(t, old);
        close(fd);
    }
}

static int free_slot(const struct wmpi_transport *t)
{
    for (int i = 0; i < MAX_STRANGERS; i++)
        if (t->strangers[i].fd < 0)
            return i;
    return -1;
}

/* Keep s, unsettled, in the table. */
static void admit(struct wmpi_transport *t, const tcp_stranger *s)
{
    int i;

    if (t->nstrangers == MAX_STRANGERS)
        read_all(t);
    if (t->nstrangers == MAX_STRANGERS)
        shed_oldest(t);
    i = free_slot(t);
    if (i < 0) {
        close(s->fd);
        return;
    }
    readmit(t, i, s);
    wmpi_tcp_due(t, s->until);
}

/* Accept one connection and read what it sent; 0, or -1 when the backlog
 * is empty (or accept fails: the listener is tried again on its next
 * event). */
static int take_one(struct wmpi_transport *t)
{
    tcp_stranger s = { .until = weft_now() + HELLO_TIMEOUT };

    s.fd = accept4(t->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (s.fd < 0)
        return -1;
    if (!read_hello(t, &s))
        admit(t, &s);
    return 0;
}

void wmpi_tcp_listen_event(struct wmpi_transport *t)
{
    for (int i = 0; i < MAX_STRANGERS && t->listening && take_one(t) == 0; i++)
        ;
}

int64_t wmpi_tcp_expire_strangers(struct wmpi_transport *t, int64_t now)
{
    int64_t next = INT64_MAX;

    for (int i = 0; i < MAX_STRANGERS; i++) {
        tcp_stranger *s = &t->strangers[i];
        if (s->fd < 0)
            continue;
        if (s->until <= now) {
            int fd = s->fd;
            forget(t, i);
            close(fd);
        } else if (s->until < next) {
            next = s->until;
        }
    }
    return next;
}

void wmpi_tcp_stop_listening(struct wmpi_transport *t)
{
    for (int i = 0; i < MAX_STRANGERS; i++) {
        int fd = t->strangers[i].fd;
        if (fd >= 0) {
            forget(t, i);
            close(fd);
        }
    }
    if (t->listening)
        epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->lfd, NULL);
    t->listening = 0;
}
