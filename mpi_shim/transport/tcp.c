/* The TCP transport: frames over one non-blocking socket per pair of ranks
 * that talk.
 *
 * Design. A pair of ranks shares one TCP connection, opened when the first
 * frame goes from one to the other (tcp_connect.c; accepted in
 * tcp_accept.c), with TCP_NODELAY (a small message leaves at once). All
 * sockets, the listener and a deadline timer sit in one epoll set;
 * progress() takes what epoll_wait(0) reports and, per ready peer, reads
 * (EPOLLIN) and writes (EPOLLOUT), or moves an opening connection on.
 *
 * Sending: each peer has a FIFO of frames. send() appends and, unless the
 * queue was already draining, writes at once with sendmsg(): the header
 * and payload of as many queued frames as fit in one iovec batch go in one
 * system call (vectored: no copy of the payload, which stays in the user's
 * buffer). Whatever the socket does not accept stays queued and EPOLLOUT is
 * armed; it is disarmed when the queue empties, so an idle connection
 * never wakes epoll for writability.
 *
 * Receiving: each peer has a 64 KiB staging buffer. Small frames arrive
 * many per read() and are parsed out of it; the engine is told about each
 * header (upcall) and says where its payload goes. A large payload is read
 * with readv() straight into its destination, the second iovec catching
 * the headers behind it into the staging buffer (behind a payload of
 * 64 KiB or more only the next header, so that a large payload after it
 * goes straight to its destination as well), at most RX_CHUNK bytes per
 * system call: the socket's receive buffer then empties, and the peer's
 * writes resume, while the rest of a large payload is still being read.
 * A peer's socket is always read, whether or not a receive is posted for
 * what arrives: the engine buffers unexpected data. Reading and writing
 * are independent, so two ranks sending each other 64 MiB cannot deadlock
 * (the EARTH lesson).
 *
 * Bounded passes: progress(t, budget) reads at most about `budget` bytes
 * from each ready peer and writes at most as much to each, so a pass
 * stays short (the I/O server runs the engine's poll at scheduler safe
 * points, inside a runtime critical section: 64 KiB there, ~10 us) and one
 * flooding peer cannot monopolise the engine lock. What is left is still
 * reported by epoll (level-triggered: unread bytes, EPOLLOUT on a writable
 * socket with a queue), so the next pass continues. send() writes at once
 * up to SEND_NOW bytes, in whatever context it runs. An idle pass is one
 * epoll_wait(0); in a job of two ranks, one read of the only socket.
 *
 * Failure: EOF, ECONNRESET or any socket error loses the peer: its socket
 * is closed, a payload being read is finished with the error, queued
 * frames are finished with it, and the engine's lost() upcall fails what
 * else depended on the peer. SIGPIPE is never raised (MSG_NOSIGNAL).
 *
 * Rejected: reads and writes taking turns every 64 KiB inside a pass (two
 * ranks streaming large messages both ways then move a third less:
 * docs/performance-notes.md); a sender and a receiver thread per
 * connection (EARTH's modules): kernel threads that block in write() cost
 * a context switch per message and duplicate the I/O server; blocking
 * sockets with a write timeout (a slow reader then stalls the writer's
 * whole engine).
 * Sending large payloads without a copy (vmsplice() of the user's pages
 * into a pipe, splice() into the socket, the send completing at a FIN from
 * the receiver): 1.4-1.6x the bandwidth of write() in a raw loopback loop,
 * and 11% less sender CPU per byte in MPI, but no gain in MPI bandwidth
 * (1 MiB, window 64: 1.00-1.04x in alternating launches; both directions
 * at once 0.96x). The receiver pays for it: it copies out of 4 KiB page
 * fragments, with a hardened-usercopy check per page (14% of its time).
 *
 * Invariants: a frame is in exactly one peer queue while `queued`, written
 * only once its peer is UP (tcp.h's states); the
 * head frame's `sent` counts its written bytes; rbuf[rhead, rtail) holds
 * the unparsed bytes, and in_payload says whether they start a header.
 * Locking: everything runs under the engine lock (transport.h contract).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/tcp.h"

#define HDR sizeof(wmpi_hdr)
#define IOV_BATCH 64
#define SEND_NOW ((size_t)128 * 1024) /* a default-size eager frame whole */
#define RX_CHUNK ((size_t)64 * 1024)  /* payload bytes per read (see head) */

void wmpi_tcp_watch(struct wmpi_transport *t, tcp_peer *p, unsigned events)
{
    struct epoll_event ev = { .events = events, .data.u64 = TCP_EV(TCP_EV_PEER, p->rank) };

    if (p->fd < 0 || p->armed == events)
        return;
    if (epoll_ctl(t->epfd, p->armed ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, p->fd, &ev) == 0)
        p->armed = events;
}

void wmpi_tcp_close(struct wmpi_transport *t, tcp_peer *p)
{
    if (p->fd < 0)
        return;
    if (p->armed)
        epoll_ctl(t->epfd, EPOLL_CTL_DEL, p->fd, NULL);
    close(p->fd);
    p->fd = -1;
    p->armed = 0;
}

static wmpi_frame *pop(tcp_peer *p)
{
    wmpi_frame *f = p->sq_head;

    p->sq_head = f->next;
    if (!p->sq_head)
        p->sq_tail = NULL;
    f->next = NULL;
    f->queued = 0;
    return f;
}

/* A peer UP or LOST needs the listener no more. */
static void settled(struct wmpi_transport *t)
{
    struct itimerspec off = { 0 };

    if (--t->unsettled > 0)
        return;
    wmpi_tcp_stop_listening(t);
    if (timerfd_settime(t->tfd, 0, &off, NULL) == 0)
        t->timer_at = 0;
}

void wmpi_tcp_lose(struct wmpi_transport *t, tcp_peer *p, int err)
{
    if (p->state == TCP_LOST || p->state == TCP_UNUSED)
        return;
    wmpi_tcp_close(t, p);
    if (p->state != TCP_UP)
        settled(t);
    p->state = TCP_LOST;
    if (p->in_payload) {
        p->in_payload = 0;
        t->up->payload(p->rank, &p->rhdr, &p->rx, err);
    }
    while (p->sq_head) {
        wmpi_frame *f = pop(p);
        f->done(f, err);
    }
    t->up->lost(p->rank, err);
}

/* ---------------------------------------------------------------- sending */

/* The socket calls without libc's wrappers, which make them cancellation
 * points: a plain pthread cancelled there would leave the engine lock
 * held, and the wrappers' cancellation bookkeeping was 4% of an 8 B
 * ping-pong's time. Same results and errno as sendmsg() and recvmsg(). */
static ssize_t sock_sendmsg(int fd, const struct msghdr *m, int flags)
{
    return (ssize_t)syscall(SYS_sendmsg, fd, m, flags);
}

static ssize_t sock_recvmsg(int fd, struct msghdr *m, int flags)
{
    return (ssize_t)syscall(SYS_recvmsg, fd, m, flags);
}

/* Add [base, base + len) to iov, within the byte budget *left. */
static int add_iov(struct iovec *iov, int n, const void *base, size_t len, size_t *left)
{
    len = len < *left ? len : *left;
    if (len) {
        iov[n++] = (struct iovec){ (void *)base, len };
        *left -= len;
    }
    return n;
}

/* The queue's unwritten bytes, up to `budget`, as an iovec. */
static int gather(tcp_peer *p, struct iovec *iov, size_t budget)
{
    int n = 0;

    for (wmpi_frame *f = p->sq_head; f && n < IOV_BATCH - 1 && budget; f = f->next) {
        size_t off = f->sent;
        if (off < HDR)
            n = add_iov(iov, n, (char *)&f->hdr + off, HDR - off, &budget);
        off = off > HDR ? off - HDR : 0;
        if (f->hdr.plen > off)
            n = add_iov(iov, n, (const char *)f->payload + off, f->hdr.plen - off, &budget);
    }
    return n;
}

/* `w` more bytes went out: finish the frames they complete. */
static void advance(tcp_peer *p, size_t w)
{
    while (w > 0 && p->sq_head) {
        wmpi_frame *f = p->sq_head;
        size_t left = HDR + f->hdr.plen - f->sent;

        if (w < left) {
            f->sent += w;
            return;
        }
        w -= left;
        pop(p);
        f->done(f, 0);
    }
}

static void tx(struct wmpi_transport *t, tcp_peer *p, size_t budget)
{
    struct iovec iov[IOV_BATCH];
    struct msghdr mh = { .msg_iov = iov };
    ssize_t w;

    p->in_tx = 1;
    while (p->sq_head && p->fd >= 0 && budget) {
        mh.msg_iovlen = (size_t)gather(p, iov, budget);
        w = sock_sendmsg(p->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (w < 0) {
            wmpi_tcp_lose(t, p, -errno);
            break;
        }
        advance(p, (size_t)w);
        budget -= (size_t)w;
    }
    p->in_tx = 0;
    wmpi_tcp_watch(t, p, EPOLLIN | (p->sq_head ? EPOLLOUT : 0u));
}

static int tcp_send(struct wmpi_transport *t, int peer, wmpi_frame *f)
{
    tcp_peer *p = &t->peers[peer];

    if (p->state == TCP_LOST || p->state == TCP_UNUSED) {
        f->done(f, -ECONNRESET);
        return -ECONNRESET;
    }
    f->next = NULL;
    f->sent = 0;
    f->queued = 1;
    if (p->sq_tail)
        p->sq_tail->next = f;
    else
        p->sq_head = f;
    p->sq_tail = f;
    if (p->state == TCP_IDLE)
        wmpi_tcp_open(t, p); /* may lose p, finishing f */
    else if (p->state == TCP_UP && !p->in_tx && p->sq_head == f)
        tx(t, p, SEND_NOW);
    return p->state == TCP_LOST ? -ECONNRESET : 0;
}

/* -------------------------------------------------------------- receiving */

static ssize_t read_iov(int fd, struct iovec *iov, int n)
{
    struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)n };

    return sock_recvmsg(fd, &msg, 0);
}

/* How much of the staging buffer a read may fill behind `direct` bytes
 * read into the payload's destination: none while the payload goes on
 * past them (the budget cut them short); only the next header behind the
 * end of a large payload, so that a large payload after it goes straight
 * to its destination too, not its first 64 KiB through rbuf and memcpy. */
static size_t staging_room(const tcp_peer *p, size_t direct)
{
    if (!direct)
        return WMPI_TCP_RBUF - p->rtail;
    if (p->rgot + direct < p->rhdr.plen)
        return p->rgot + direct < p->rx.keep ? 0 : WMPI_TCP_RBUF - p->rtail;
    return p->rhdr.plen >= WMPI_TCP_RBUF ? HDR : WMPI_TCP_RBUF - p->rtail;
}

/* One read into the payload's destination and/or the staging buffer;
 * *room says how much it could have taken. */
static ssize_t rx_read(tcp_peer *p, size_t budget, size_t *room)
{
    struct iovec iov[2];
    size_t pending = p->rtail - p->rhead, direct = 0;
    ssize_t r;
    int n = 0;

    if (pending && p->rhead)
        memmove(p->rbuf, p->rbuf + p->rhead, pending);
    p->rhead = 0;
    p->rtail = pending;
    if (p->in_payload && !pending && p->rgot < p->rx.keep) {
        direct = p->rx.keep - p->rgot;
        direct = direct < budget ? direct : budget;
        direct = direct < RX_CHUNK ? direct : RX_CHUNK;
        iov[n++] = (struct iovec){ (char *)p->rx.buf + p->rgot, direct };
    }
    *room = direct + staging_room(p, direct);
    if (*room > direct)
        iov[n++] = (struct iovec){ p->rbuf + p->rtail, *room - direct };
    r = read_iov(p->fd, iov, n);
    if (r > 0) {
        size_t d = (size_t)r < direct ? (size_t)r : direct;
        p->rgot += d;
        p->rtail += (size_t)r - d;
    }
    return r;
}

/* Consume staged payload bytes of the current frame; 1 when it is whole. */
static int take_payload(struct wmpi_transport *t, tcp_peer *p)
{
    size_t avail = p->rtail - p->rhead;
    uint64_t need = p->rhdr.plen - p->rgot;
    size_t take = avail < need ? avail : (size_t)need;

    if (p->rgot < p->rx.keep) {
        size_t store = p->rx.keep - p->rgot < take ? p->rx.keep - p->rgot : take;
        memcpy((char *)p->rx.buf + p->rgot, p->rbuf + p->rhead, store);
    }
    p->rgot += take;
    p->rhead += take;
    if (p->rgot < p->rhdr.plen)
        return 0;
    p->in_payload = 0;
    t->up->payload(p->rank, &p->rhdr, &p->rx, 0);
    return 1;
}

static void take_header(struct wmpi_transport *t, tcp_peer *p)
{
    memcpy(&p->rhdr, p->rbuf + p->rhead, HDR);
    p->rhead += HDR;
    p->rgot = 0;
    t->up->header(p->rank, &p->rhdr, &p->rx);
    if (p->rx.keep > p->rhdr.plen)
        p->rx.keep = p->rhdr.plen;
    if (p->fd < 0) /* the upcall's answer to p lost p: no payload will come */
        t->up->payload(p->rank, &p->rhdr, &p->rx, -ECONNRESET);
    else
        p->in_payload = 1;
}

static void rx_parse(struct wmpi_transport *t, tcp_peer *p)
{
    while (p->fd >= 0) {
        if (p->in_payload) {
            if (!take_payload(t, p))
                return;
        } else if (p->rtail - p->rhead >= HDR) {
            take_header(t, p);
        } else {
            return;
        }
    }
}

/* Read p, up to about `budget` bytes, until its socket is empty. */
static void rx(struct wmpi_transport *t, tcp_peer *p, size_t budget)
{
    while (p->fd >= 0) {
        size_t room;
        ssize_t r = rx_read(p, budget, &room);

        if (r == 0) {
            wmpi_tcp_lose(t, p, -ECONNRESET);
            return;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (r < 0) {
            wmpi_tcp_lose(t, p, -errno);
            return;
        }
        rx_parse(t, p);
        /* A short read emptied the socket: another would only say EAGAIN
         * (a system call per message); epoll reports what comes next. */
        if ((size_t)r < room || (size_t)r >= budget)
            return;
        budget -= (size_t)r;
    }
}

/* ---------------------------------------------------------------- up */

void wmpi_tcp_up(struct wmpi_transport *t, tcp_peer *p, int fd)
{
    p->fd = fd;
    if (!p->rbuf)
        p->rbuf = malloc(WMPI_TCP_RBUF);
    if (!p->rbuf) {
        wmpi_tcp_lose(t, p, WEFT_ENOMEM);
        return;
    }
    p->state = TCP_UP;
    settled(t);
    if (p->sq_head && !p->in_tx)
        tx(t, p, SEND_NOW); /* the frames queued meanwhile, in order */
    else
        wmpi_tcp_watch(t, p, EPOLLIN);
}

/* ---------------------------------------------------------------- progress */

/* A job of two ranks has one connection: once it is up (and the listener
 * left the set), read it (and write its queue) directly, one system call
 * per idle pass instead of an epoll_wait and then a read (a read that
 * finds data is the detection). */
static void progress_one(struct wmpi_transport *t, tcp_peer *p, size_t budget)
{
    if (p->fd >= 0)
        rx(t, p, budget);
    if (p->fd >= 0 && p->sq_head && !p->in_tx)
        tx(t, p, budget);
}

static void peer_event(struct wmpi_transport *t, tcp_peer *p, unsigned events, size_t budget)
{
    if (p->state != TCP_UP) {
        wmpi_tcp_opening_event(t, p, events);
        return;
    }
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
        rx(t, p, budget);
    if (p->state == TCP_UP && (events & EPOLLOUT) && !p->in_tx)
        tx(t, p, budget);
}

static void dispatch(struct wmpi_transport *t, const struct epoll_event *ev, size_t budget)
{
    uint32_t index = (uint32_t)ev->data.u64;

    switch ((int)(ev->data.u64 >> 32)) {
    case TCP_EV_PEER:
        peer_event(t, &t->peers[index], ev->events, budget);
        break;
    case TCP_EV_LISTEN:
        wmpi_tcp_listen_event(t);
        break;
    case TCP_EV_STRANGER:
        wmpi_tcp_stranger_event(t, (int)index);
        break;
    case TCP_EV_TIMER:
        wmpi_tcp_timer_event(t);
        break;
    }
}

static void tcp_progress(struct wmpi_transport *t, size_t budget)
{
    struct epoll_event ev[16];

    if (t->size == 2 && t->peers[1 - t->rank].state == TCP_UP && !t->listening &&
        !t->timer_at) {
        progress_one(t, &t->peers[1 - t->rank], budget);
        return;
    }
    int n = epoll_wait(t->epfd, ev, 16, 0);

    for (int i = 0; i < n; i++)
        dispatch(t, &ev[i], budget);
}

static int tcp_pollfd(struct wmpi_transport *t)
{
    return t->epfd;
}

static int tcp_reaches(struct wmpi_transport *t, int peer)
{
    return peer >= 0 && peer < t->size && t->peers[peer].state != TCP_UNUSED;
}

/* Frames went, or go, between this rank and `peer` (either side opened). */
static int tcp_linked(struct wmpi_transport *t, int peer)
{
    return peer >= 0 && peer < t->size && t->peers[peer].state != TCP_UNUSED &&
           t->peers[peer].state != TCP_IDLE;
}

/* ------------------------------------------------------------- life cycle */

static void close_fd(int fd)
{
    if (fd >= 0)
        close(fd);
}

static void tcp_destroy(struct wmpi_transport *t)
{
    for (int r = 0; r < t->size; r++) {
        close_fd(t->peers[r].fd);
        free(t->peers[r].rbuf);
    }
    for (int i = 0; i < WMPI_TCP_MAX_STRANGERS; i++)
        close_fd(t->strangers[i].fd);
    close_fd(t->lfd);
    close_fd(t->tfd);
    close_fd(t->epfd);
    free(t->cards);
    free(t->peers);
    free(t);
}

static struct wmpi_transport *transport_new(const wmpi_boot *b, const wmpi_upcalls *up)
{
    struct wmpi_transport *t = calloc(1, sizeof *t);

    if (!t)
        return NULL;
    t->rank = b->rank;
    t->size = b->size;
    t->up = up;
    t->lfd = t->tfd = -1;
    for (int i = 0; i < WMPI_TCP_MAX_STRANGERS; i++)
        t->strangers[i].fd = -1;
    t->peers = calloc((size_t)t->size, sizeof *t->peers);
    if (!t->peers) {
        free(t);
        return NULL;
    }
    for (int r = 0; r < t->size; r++) {
        t->peers[r].fd = -1;
        t->peers[r].rank = r;
    }
    return t;
}

static int tcp_create(struct wmpi_transport **out, wmpi_boot *b,
                      const wmpi_upcalls *up, const uint8_t *want)
{
    struct wmpi_transport *t = transport_new(b, up);
    int err;

    *out = NULL;
    if (!t)
        return WEFT_ENOMEM;
    t->boot = b;
    t->epfd = epoll_create1(EPOLL_CLOEXEC);
    err = t->epfd < 0 ? -errno : 0;
    if (!err && t->size > 1)
        err = wmpi_tcp_setup(t, want);
    if (err) {
        tcp_destroy(t);
        return err;
    }
    *out = t;
    return 0;
}

static const char *tcp_where(struct wmpi_transport *t, int peer)
{
    return peer >= 0 && peer < t->size && t->peers[peer].where[0] ? t->peers[peer].where : NULL;
}

const struct wmpi_transport_ops wmpi_tcp_ops = {
    .name = "tcp",
    .create = tcp_create,
    .reaches = tcp_reaches,
    .linked = tcp_linked,
    .send = tcp_send,
    .progress = tcp_progress,
    .pollfd = tcp_pollfd,
    .sleeping = NULL,
    .where = tcp_where,
    .destroy = tcp_destroy,
};
