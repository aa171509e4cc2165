/* The poll set: one epoll set that holds every fd the I/O server watches -
 * the fd class's fds (fdclass.c), each event class's pollfd, and an
 * eventfd for interrupts - so that whichever thread sleeps there wakes for
 * any event class (Go's netpoll: one epoll set, one M blocked in it,
 * netpollBreak to wake it).
 *
 * Contract:
 *   - at most one thread sleeps in the set at a time (`sleeper`, claimed
 *     by CAS): an idle worker past its spin (detect.c) or the server
 *     thread (server.c). Others may check it without sleeping
 *     (wf_io_set_poll: a spinning worker, a busy worker's safe point);
 *   - interrupt() makes the sleeper return: a write to the eventfd, at
 *     most one pending (wake_pending). The eventfd is level-triggered and
 *     only a sleeper reads it, before it gives the set up, so a check that
 *     harvests it does not swallow it. A worker about to sleep also asks
 *     the scheduler whether it was woken since it announced its sleep
 *     (the waker interrupts only a worker that looks asleep);
 *   - a class's pollfd is registered one-shot, data.ptr tagged: an event
 *     disarms it (armed = 0); whoever then polls the class re-arms it if
 *     waiters remain (wait.c), as does a wait that starts, so an fd that
 *     stays readable while nobody waits (unexpected MPI messages) never
 *     spins the sleeper;
 *   - weft_io_kick(h): a completion outside the class's fd (another
 *     thread's progress) sets h->kicked, then interrupts the sleeper if
 *     there is one; the sleeper claims the set, then looks for kicked
 *     classes before it sleeps (seq_cst both: one of the two sees the
 *     other), and polls them after it wakes. Every poll of h clears it.
 * The sleep's timeout is the caller's deadline, to the nanosecond
 * (epoll_pwait2), so a worker asleep here also wakes for the earliest
 * timer.
 *
 * Handles are touched only under wf_io_reg_lock and while registered
 * (registry.c), so an event harvested for a handle being unregistered is
 * dropped. Rejected: one epoll set per worker (a class's fd in several
 * sets wakes every sleeper for one event), and waking sleepers with a
 * signal (EINTR), which reaches the wrong thread under process signals.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "io/io.h"

#define MAX_EVENTS 64
#define HANDLE_TAG ((uintptr_t)1)

static struct {
    int epfd, evfd;
    int sleeper;      /* atomic: WF_IO_SLEEPER_NONE, _SERVER or a worker */
    int wake_pending; /* atomic: the eventfd was written, not yet read */
} set = { -1, -1, WF_IO_SLEEPER_NONE, 0 };

int wf_io_set_init(void)
{
    set.epfd = epoll_create1(EPOLL_CLOEXEC);
    set.evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    if (set.epfd < 0 || set.evfd < 0 || epoll_ctl(set.epfd, EPOLL_CTL_ADD, set.evfd, &ev) < 0)
        return WEFT_ENOMEM;
    return 0;
}

int wf_io_set_epfd(void)
{
    return set.epfd;
}

int wf_io_set_sleeper(void)
{
    return __atomic_load_n(&set.sleeper, __ATOMIC_SEQ_CST);
}

/* --------------------------------------------------------- class fds */

static int ctl(int op, weft_io_t h)
{
    struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT,
                              .data.ptr = (void *)((uintptr_t)h | HANDLE_TAG) };
    return epoll_ctl(set.epfd, op, h->fd, &ev) < 0 ? -errno : 0;
}

int wf_io_set_add_handle(weft_io_t h)
{
    if (set.epfd < 0)
        return WEFT_ENOMEM;
    __atomic_store_n(&h->armed, 1, __ATOMIC_RELAXED);
    return ctl(EPOLL_CTL_ADD, h);
}

void wf_io_set_remove_handle(weft_io_t h)
{
    epoll_ctl(set.epfd, EPOLL_CTL_DEL, h->fd, NULL);
}

void wf_io_set_arm(weft_io_t h)
{
    if (!__atomic_exchange_n(&h->armed, 1, __ATOMIC_ACQ_REL))
        ctl(EPOLL_CTL_MOD, h);
}

/* ------------------------------------------------------- interrupts */

void wf_io_set_interrupt(void)
{
    uint64_t one = 1;
    if (!__atomic_exchange_n(&set.wake_pending, 1, __ATOMIC_SEQ_CST) &&
        write(set.evfd, &one, sizeof one) < 0) {
        /* the counter is saturated: an interrupt is pending anyway */
    }
}

static void drain_interrupt(void)
{
    uint64_t v;
    if (read(set.evfd, &v, sizeof v) < 0) {
        /* EAGAIN: drained already */
    }
    __atomic_store_n(&set.wake_pending, 0, __ATOMIC_SEQ_CST);
}

void weft_io_kick(weft_io_t h)
{
    if (!h)
        return;
    __atomic_store_n(&h->kicked, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&set.sleeper, __ATOMIC_SEQ_CST) != WF_IO_SLEEPER_NONE)
        wf_io_set_interrupt();
}

/* --------------------------------------------------------- dispatch */

static int registered(weft_io_t h)
{
    for (weft_io_t r = wf_io_registry; r; r = r->reg_next)
        if (r == h)
            return 1;
    return 0;
}

/* A class's fd fired: poll the class (if still registered). Registry
 * lock held. */
static int handle_event(weft_io_t h, int how)
{
    if (!registered(h))
        return 0;
    __atomic_store_n(&h->armed, 0, __ATOMIC_RELEASE);
    int woken = wf_io_poll_round(h, how);
    return woken > 0 ? woken : 0;
}

/* Registry lock held. */
static int dispatch(struct epoll_event *ev, int n, int how)
{
    int woken = 0;
    for (int i = 0; i < n; i++) {
        void *p = ev[i].data.ptr;
        if (!p) {
            continue; /* an interrupt: the sleeper drains it */
        } else if ((uintptr_t)p & HANDLE_TAG) {
            woken += handle_event((weft_io_t)((uintptr_t)p & ~HANDLE_TAG), how);
        } else {
            woken += wf_io_fd_dispatch(p, ev[i].events, how);
        }
    }
    return woken;
}

/* Called by a poll round of the fd class, registry lock held. */
int wf_io_set_poll(int how)
{
    struct epoll_event ev[MAX_EVENTS];
    int n = epoll_wait(set.epfd, ev, MAX_EVENTS, 0);
    return n > 0 ? dispatch(ev, n, how) : 0;
}

/* ------------------------------------------------------------ sleep */

/* Before sleeping: arm the fds of classes with waiters that an event
 * disarmed; 1 if a class was kicked since its last poll (do not sleep). */
static int prepare(void)
{
    int kicked = 0;
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        if (!wf_io_has_waiters(h))
            continue;
        if (h->fd >= 0)
            wf_io_set_arm(h);
        kicked |= __atomic_load_n(&h->kicked, __ATOMIC_SEQ_CST);
    }
    wf_unlock(&wf_io_reg_lock);
    return kicked;
}

/* After waking: poll the classes kicked meanwhile. Registry lock held. */
static int poll_kicked(void)
{
    int woken = 0;
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next)
        if (__atomic_load_n(&h->kicked, __ATOMIC_SEQ_CST) && wf_io_has_waiters(h))
            woken += wf_io_poll_round(h, WF_DET_BLOCK) > 0;
    return woken;
}

static int wait_until(struct epoll_event *ev, int64_t deadline)
{
    if (deadline < 0)
        return epoll_wait(set.epfd, ev, MAX_EVENTS, -1);
    int64_t left = deadline - wf_io_now();
    struct timespec ts = { 0, 0 };
    if (left > 0) {
        ts.tv_sec = (time_t)(left / 1000000000);
        ts.tv_nsec = (long)(left % 1000000000);
    }
    return epoll_pwait2(set.epfd, ev, MAX_EVENTS, &ts, NULL);
}

/* An interrupt among the events: drained while the set is still ours, so
 * that a sleeper after us never meets wake_pending set for an interrupt
 * already read. */
static void drain_if_interrupted(struct epoll_event *ev, int n)
{
    for (int i = 0; i < n; i++)
        if (!ev[i].data.ptr)
            drain_interrupt();
}

/* A worker that was woken before it blocks (wf_sched_idle_woken), or a
 * class kicked meanwhile, makes the sleep a check. */
int wf_io_set_sleep(int64_t deadline, int who)
{
    struct epoll_event ev[MAX_EVENTS];
    int none = WF_IO_SLEEPER_NONE;
    if (set.epfd < 0 || !__atomic_compare_exchange_n(&set.sleeper, &none, who, 0,
                                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        return -1;
    int check = prepare() || wf_sched_idle_woken();
    int n = wait_until(ev, check ? 0 : deadline);
    drain_if_interrupted(ev, n);
    __atomic_store_n(&set.sleeper, WF_IO_SLEEPER_NONE, __ATOMIC_SEQ_CST);
    int prev = wf_io_set_idle_polling(1);
    wf_lock(&wf_io_reg_lock);
    int woken = n > 0 ? dispatch(ev, n, WF_DET_BLOCK) : 0;
    woken += poll_kicked();
    wf_unlock(&wf_io_reg_lock);
    wf_io_set_idle_polling(prev);
    return woken;
}
