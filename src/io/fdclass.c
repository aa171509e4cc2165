/* The fd event class (weft_fd_wait and the calls built on it): one record
 * per fd number, registered EPOLLONESHOT in the I/O server's poll set
 * (pollset.c), beside the other classes' fds.
 *
 * Contract (after Go's netpoll: init, open, poll(delay), break):
 *   - wf_io_fd_handle() (class.c): the class's handle, created once,
 *     registered like any other class but never removed; a poll round of
 *     it checks the poll set (detect.c), serialised by a trylock of
 *     h->lock;
 *   - wf_io_fd_add/remove(fd, req): arm / disarm interest of one waiter;
 *   - wf_io_fd_dispatch: an event the poll set reported for a record wakes
 *     each waiter of that fd whose events match (errors and hang-ups match
 *     everything), through wf_io_fire, under the fd record's lock;
 *     h->nreq counts waiting fd requests.
 *
 * Why EPOLLONESHOT. A worker checking the set (epoll_wait 0) and the
 * set's sleeper share it; one-shot registrations hand each readiness to
 * exactly one of them, and nothing fires for an fd nobody waits on (no
 * wake-ups of the sleeper for idle sockets). The price is one
 * epoll_ctl(MOD) per wait (~0.5 us); a wait already costs a failed read
 * and a switch, and an fd that is ready at once never gets that far.
 * Rejected: edge-triggered registration kept for the fd's life (Go): no
 * re-arm call, but every readiness change wakes the sleeper, and a close()
 * the server does not see leaves stale registrations; level-triggered
 * without one-shot: a checker and the sleeper would both wake for one
 * event.
 *
 * Records live in a two-level table (4096 chunks of 1024 records, chunks
 * allocated on first use, lock-free lookup) and are never freed, so an
 * event's data.ptr always points to valid memory, even for a closed fd.
 * A record remembers whether its fd is in the set, but close() removes it
 * behind our back: MOD failing with ENOENT falls back to ADD, and ADD
 * failing with EEXIST to MOD. Memory: ~48 bytes per fd number ever waited.
 *
 * Locks: rec->lock guards the record's request list and its arming; taken
 * after h->lock (a poll round) and before the run-queue locks (wake).
 */
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "io/io.h"

#define CHUNK 1024
#define NCHUNKS 4096

typedef struct fd_rec {
    int lock;
    int fd;
    int in_set;
    int sigio;      /* SIGIO mode (sigio.c): never in the epoll set */
    wf_req_list waiting;
} fd_rec;

static fd_rec *chunks[NCHUNKS];
static weft_io_t fd_handle;

/* ---------------------------------------------------------------- events */

unsigned wf_io_fd_to_epoll(unsigned ev)
{
    return ((ev & WEFT_IO_READ) ? EPOLLIN | EPOLLRDHUP : 0) |
           ((ev & WEFT_IO_WRITE) ? EPOLLOUT : 0);
}

/* epoll and poll(2) share these bit values on Linux. */
unsigned wf_io_fd_from_poll(unsigned rev, unsigned wanted)
{
    if (rev & (EPOLLERR | EPOLLHUP))
        return wanted;
    unsigned got = 0;
    if (rev & (EPOLLIN | EPOLLRDHUP | EPOLLPRI))
        got |= WEFT_IO_READ;
    if (rev & EPOLLOUT)
        got |= WEFT_IO_WRITE;
    return got & wanted;
}

int wf_io_fd_test(int fd, unsigned events)
{
    struct pollfd p = { .fd = fd, .events = (short)wf_io_fd_to_epoll(events) };
    if (poll(&p, 1, 0) < 0)
        return 0;
    if (p.revents & POLLNVAL)
        return -EBADF;
    return (int)wf_io_fd_from_poll((unsigned)p.revents, events);
}

/* --------------------------------------------------------------- records */

static fd_rec *rec_get(int fd)
{
    if (fd < 0 || fd >= CHUNK * NCHUNKS)
        return NULL;
    fd_rec **slot = &chunks[fd / CHUNK];
    fd_rec *c = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!c) {
        fd_rec *fresh = calloc(CHUNK, sizeof *fresh), *expected = NULL;
        if (!fresh)
            return NULL;
        for (int i = 0; i < CHUNK; i++)
            fresh[i].fd = (fd / CHUNK) * CHUNK + i;
        if (__atomic_compare_exchange_n(slot, &expected, fresh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            c = fresh;
        else {
            free(fresh);
            c = expected;
        }
    }
    return &c[fd % CHUNK];
}

static void count_change(int delta)
{
    __atomic_fetch_add(&fd_handle->nreq, delta, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&wf_io_nwaiting, delta, __ATOMIC_SEQ_CST);
}

static void rec_link(fd_rec *rec, wf_io_req *r)
{
    wf_req_list_push(&rec->waiting, r);
    count_change(1);
}

static void rec_unlink(fd_rec *rec, wf_io_req *r)
{
    wf_req_list_remove(&rec->waiting, r);
    count_change(-1);
}

static unsigned rec_want(const fd_rec *rec)
{
    unsigned want = 0;
    for (const wf_io_req *r = rec->waiting.head; r; r = r->next)
        want |= r->events;
    return want;
}

/* Arm the record for the union of its waiters' events (rec->lock held). */
static int rec_arm(fd_rec *rec)
{
    if (rec->sigio)
        return 0; /* sigio.c's dispatcher polls it */
    unsigned want = rec_want(rec);
    struct epoll_event ev = { .events = wf_io_fd_to_epoll(want) | EPOLLONESHOT,
                              .data.ptr = rec };
    int op = rec->in_set ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    int rc = epoll_ctl(wf_io_set_epfd(), op, rec->fd, &ev);
    if (rc < 0 && (errno == ENOENT || errno == EEXIST)) {
        op = op == EPOLL_CTL_MOD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
        rc = epoll_ctl(wf_io_set_epfd(), op, rec->fd, &ev);
    }
    if (rc < 0)
        return -errno;
    rec->in_set = 1;
    return 0;
}

int wf_io_fd_add(int fd, wf_io_req *r)
{
    fd_rec *rec = rec_get(fd);
    if (!rec)
        return fd < 0 ? -EBADF : WEFT_ENOMEM;
    wf_lock(&rec->lock);
    rec_link(rec, r);
    int err = rec_arm(rec);
    if (err)
        rec_unlink(rec, r);
    int sigio = !err && rec->sigio;
    wf_unlock(&rec->lock);
    return sigio ? WF_IO_FD_SIGIO : err;
}

void wf_io_fd_remove(int fd, wf_io_req *r)
{
    fd_rec *rec = rec_get(fd);
    wf_lock(&rec->lock);
    if (r->queued)
        rec_unlink(rec, r);
    wf_unlock(&rec->lock);
}

/* ------------------------------------------------------------- detection */

int wf_io_fd_dispatch(void *p, unsigned rev, int how)
{
    fd_rec *rec = p;
    int woken = 0;
    wf_lock(&rec->lock);
    for (wf_io_req *r = rec->waiting.head, *next; r; r = next) {
        next = r->next;
        unsigned got = wf_io_fd_from_poll(rev, r->events);
        if (!got)
            continue;
        rec_unlink(rec, r);
        r->result = got;
        woken += wf_io_fire(fd_handle, r, how);
    }
    if (rec->waiting.head)
        rec_arm(rec); /* one-shot fired: re-arm for those still waiting */
    wf_unlock(&rec->lock);
    return woken;
}

int wf_io_fd_mark_sigio(int fd, int on)
{
    fd_rec *rec = rec_get(fd);
    if (!rec)
        return WEFT_ENOMEM;
    int err = 0;
    wf_lock(&rec->lock);
    rec->sigio = on;
    if (on && rec->in_set) {
        epoll_ctl(wf_io_set_epfd(), EPOLL_CTL_DEL, fd, NULL); /* ENOENT if closed: fine */
        rec->in_set = 0;
    } else if (!on && rec->waiting.head) {
        err = rec_arm(rec);
    }
    wf_unlock(&rec->lock);
    return err;
}

int wf_io_fd_poll_one(int fd, int how)
{
    fd_rec *rec = rec_get(fd);
    if (!rec)
        return 0;
    wf_lock(&rec->lock);
    unsigned want = rec_want(rec);
    wf_unlock(&rec->lock);
    if (!want)
        return 0;
    struct pollfd p = { .fd = fd, .events = (short)wf_io_fd_to_epoll(want) };
    if (poll(&p, 1, 0) <= 0 || !p.revents)
        return 0;
    wf_io_stat_add(&fd_handle->st.polls, 1);
    return wf_io_fd_dispatch(rec, (unsigned)p.revents, how);
}

void wf_io_fd_class_init(weft_io_t h)
{
    fd_handle = h;
}
