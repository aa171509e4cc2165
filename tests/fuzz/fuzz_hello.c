/* Fuzz target: a rank's listening socket (mpi_shim/transport/tcp_accept.c),
 * where every other process on the host may connect and must prove the
 * job's secret in its hello before it counts as a peer.
 *
 * The transport is rank 1 of a job of 4. The input's first three bytes set
 * the state of its peers 0, 2 and 3 (any tcp_state: whether a proven hello
 * is adopted, answered MINE or closed depends on it). Then a script of
 * chunks, each a byte naming the connection (its low 7 bits) and two
 * bytes of length (big-endian) followed by that many bytes (or what is
 * left). A connection is a socket connected to the listener when its
 * first chunk comes; the chunk is written to it, then the transport
 * serves what its epoll set reports (accepting, reading hellos, shedding
 * the oldest stranger when the table is full). A chunk byte with the high
 * bit set is an event instead: length 0 shuts that connection's writing
 * side, any other length lets the hello deadline pass (the strangers
 * still unproven are closed). At the end the transport stops listening
 * and everything is closed.
 *
 * The listener is a Unix-domain socket: the code under test accepts and
 * reads without looking at the family, and a TCP one would run out of
 * ports (TIME_WAIT) long before ten million runs.
 *
 * What must hold, besides no crash, hang or leak (of memory: LeakSanitizer;
 * of descriptors: the lowest free one is the same after a run as before):
 *   - a peer is adopted only if some connection's hello held the job's
 *     secret;
 *   - only a peer that may take a connection is adopted (not UNUSED, UP or
 *     LOST; a higher rank only when it has none: IDLE);
 *   - the strangers' table never holds more than its size, and its count
 *     matches its occupied slots.
 *
 * The transport's other files are replaced by the recording stubs below.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport/tcp.h"

#define NRANKS 4
#define ME 1
#define NCONNS 128
#define SEC ((int64_t)1000000000)

static const uint8_t secret[WMPI_SECRET_LEN] = "fuzz-job-secret";

static int64_t clock_ns = SEC;
static int adopted;

/* ------------------------------------------- the rest of the transport */

int64_t weft_now(void)
{
    return clock_ns;
}

int wmpi_boot_secret_ok(const wmpi_boot *b, const uint8_t *s)
{
    (void)b;
    return memcmp(s, secret, WMPI_SECRET_LEN) == 0;
}

void wmpi_tcp_close(struct wmpi_transport *t, tcp_peer *p)
{
    (void)t;
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

void wmpi_tcp_tune(struct wmpi_transport *t, tcp_peer *p)
{
    (void)t;
    (void)p;
}

void wmpi_tcp_due(struct wmpi_transport *t, int64_t when)
{
    (void)t;
    (void)when;
}

void wmpi_tcp_up(struct wmpi_transport *t, tcp_peer *p, int fd)
{
    (void)t;
    p->fd = fd;
    p->state = TCP_UP;
    adopted++;
}

/* ----------------------------------------------------------- the target */

struct run {
    struct wmpi_transport t;
    tcp_peer peers[NRANKS];
    struct sockaddr_un addr;
    socklen_t addr_len;
    int writer[NCONNS];
    uint8_t head[NCONNS][sizeof(tcp_hello)]; /* each stream's first bytes */
    size_t headlen[NCONNS];
};

static int listen_anywhere(struct run *r)
{
    struct sockaddr_un any = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    r->addr_len = sizeof r->addr;
    /* Binding the family alone picks a free abstract name. */
    if (fd < 0 || bind(fd, (struct sockaddr *)&any, sizeof any.sun_family) != 0 ||
        listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&r->addr, &r->addr_len) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static int transport_init(struct run *r, const uint8_t *states)
{
    struct wmpi_transport *t = &r->t;
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TCP_EV(TCP_EV_LISTEN, 0) };

    memset(r, 0, sizeof *r);
    for (int c = 0; c < NCONNS; c++)
        r->writer[c] = -1;
    for (int i = 0; i < WMPI_TCP_MAX_STRANGERS; i++)
        t->strangers[i].fd = -1;
    t->rank = ME;
    t->size = NRANKS;
    t->peers = r->peers;
    for (int i = 0, k = 0; i < NRANKS; i++) {
        r->peers[i] = (tcp_peer){ .fd = -1, .rank = i, .state = TCP_UNUSED };
        if (i != ME)
            r->peers[i].state = states[k++] % (TCP_LOST + 1);
    }
    t->epfd = epoll_create1(EPOLL_CLOEXEC);
    t->lfd = listen_anywhere(r);
    if (t->epfd < 0 || t->lfd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->lfd, &ev) != 0)
        return -1;
    t->listening = 1;
    return 0;
}

static void check_table(const struct wmpi_transport *t)
{
    int held = 0;

    for (int i = 0; i < WMPI_TCP_MAX_STRANGERS; i++)
        held += t->strangers[i].fd >= 0;
    if (held != t->nstrangers || held > WMPI_TCP_MAX_STRANGERS)
        abort(); /* the table's count lies */
}

/* What the transport's progress does with its epoll set, without waiting. */
static void serve_round(struct wmpi_transport *t)
{
    struct epoll_event ev[WMPI_TCP_MAX_STRANGERS + 1];
    int n = epoll_wait(t->epfd, ev, WMPI_TCP_MAX_STRANGERS + 1, 0);

    for (int i = 0; i < n; i++) {
        uint32_t kind = (uint32_t)(ev[i].data.u64 >> 32);
        if (kind == TCP_EV_LISTEN)
            wmpi_tcp_listen_event(t);
        else if (kind == TCP_EV_STRANGER)
            wmpi_tcp_stranger_event(t, (int)(uint32_t)ev[i].data.u64);
        else
            abort(); /* only the listener and strangers are in the set */
    }
    check_table(t);
}

static int open_conn(struct run *r, int c)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&r->addr, r->addr_len) != 0) {
        close(fd);
        return -1;
    }
    r->writer[c] = fd;
    return 0;
}

static void event(struct run *r, int c, size_t len)
{
    if (len == 0) {
        if (r->writer[c] >= 0)
            shutdown(r->writer[c], SHUT_WR);
        return;
    }
    clock_ns += 60 * SEC; /* past every hello deadline */
    wmpi_tcp_expire_strangers(&r->t, clock_ns);
}

/* Keep what a stream's hello can be made of. A full socket takes part of
 * a chunk (w < len): the reader sees only that part. */
static void sent(struct run *r, int c, const uint8_t *d, ssize_t w)
{
    size_t room = sizeof r->head[c] - r->headlen[c];
    size_t k = w > 0 ? ((size_t)w < room ? (size_t)w : room) : 0;

    memcpy(r->head[c] + r->headlen[c], d, k);
    r->headlen[c] += k;
}

/* Whether some stream began with the job's secret where a hello has it. */
static int secret_presented(const struct run *r)
{
    size_t at = offsetof(tcp_hello, secret);

    for (int c = 0; c < NCONNS; c++)
        if (r->headlen[c] >= at + sizeof secret &&
            memcmp(r->head[c] + at, secret, sizeof secret) == 0)
            return 1;
    return 0;
}

static void run_script(struct run *r, const uint8_t *d, size_t n)
{
    while (n >= 3) {
        int c = d[0] & (NCONNS - 1), is_event = d[0] & 0x80;
        size_t len = (size_t)d[1] << 8 | d[2];
        d += 3, n -= 3;
        if (is_event) {
            event(r, c, len);
        } else {
            if (len > n)
                len = n;
            if (r->writer[c] < 0 && open_conn(r, c) != 0)
                return;
            if (len > 0)
                sent(r, c, d, send(r->writer[c], d, len, MSG_NOSIGNAL | MSG_DONTWAIT));
            d += len, n -= len;
        }
        serve_round(&r->t);
    }
}

/* A peer the transport adopted must have been free to take it. */
static void check_adoptions(const struct run *r, const uint8_t *states)
{
    for (int i = 0, k = 0; i < NRANKS; i++) {
        if (i == ME)
            continue;
        int was = states[k++] % (TCP_LOST + 1);
        if (r->peers[i].fd < 0)
            continue;
        if (was == TCP_UNUSED || was == TCP_UP || was == TCP_LOST ||
            (i > ME && was != TCP_IDLE))
            abort(); /* a connection adopted by a peer that had no room for it */
    }
}

static void teardown(struct run *r)
{
    wmpi_tcp_stop_listening(&r->t);
    if (r->t.nstrangers != 0)
        abort(); /* a stranger survived the end of listening */
    for (int i = 0; i < NRANKS; i++)
        wmpi_tcp_close(&r->t, &r->peers[i]);
    for (int c = 0; c < NCONNS; c++)
        if (r->writer[c] >= 0)
            close(r->writer[c]);
    if (r->t.lfd >= 0)
        close(r->t.lfd);
    if (r->t.epfd >= 0)
        close(r->t.epfd);
}

static int lowest_free_fd(void)
{
    int fd = dup(2);
    if (fd >= 0)
        close(fd);
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct run r;
    int fd_before = lowest_free_fd();

    if (size < 3)
        return 0;
    adopted = 0;
    if (transport_init(&r, data) == 0) {
        run_script(&r, data + 3, size - 3);
        serve_round(&r.t);
        if (adopted > 0 && !secret_presented(&r))
            abort(); /* a peer adopted without presenting the secret */
        check_adoptions(&r, data);
    }
    teardown(&r);
    if (lowest_free_fd() != fd_before)
        abort(); /* a descriptor outlived the run */
    return 0;
}
