/* The poll set: one epoll set that holds every fd the I/O server watches -
 * the fd class's fds (fdclass.c), each event class's pollfd, and an
 * eventfd for interrupts - so that whichever thread sleeps there wakes for
 * any event class (Go's netpoll: one epoll set, one M blocked in it,
 * netpollBreak to wake it). This file is the mechanism; who sleeps here,
 * and what is done with the events, is detect.c's.
 *
 * Contract:
 *   - at most one thread sleeps in the set at a time: it claims it first
 *     (wf_io_set_claim, a CAS on `sleeper`) and gives it back after the
 *     sleep (wf_io_set_release), once it has undone what it prepared for
 *     the sleep, so that it never undoes the next sleeper's preparation.
 *     Others may check it without sleeping (wf_io_set_check);
 *   - interrupt() makes the sleeper return: a write to the eventfd, at
 *     most one pending (wake_pending). The eventfd is level-triggered and
 *     only a sleeper reads it, before it gives the set back, so a check
 *     that harvests it does not swallow it, and a sleeper after it never
 *     meets wake_pending set for an interrupt already read. The interrupt
 *     events are filtered out of what the callers get;
 *   - a class's pollfd is registered one-shot, data.ptr tagged: an event
 *     disarms it (the caller clears h->armed); whoever then polls the
 *     class re-arms it if waiters remain, as does a wait that starts, so
 *     an fd that stays readable while nobody waits (unexpected MPI
 *     messages) never spins the sleeper;
 *   - weft_io_kick(h): a completion outside the class's fd (another
 *     thread's progress) sets h->kicked, then interrupts the sleeper if
 *     there is one (a kick from inside a poll of h is dropped: that poll
 *     goes on to scan h's waiters); a sleeper claims the set, then looks for kicked
 *     classes before it sleeps (seq_cst both: one of the two sees the
 *     other). Every poll of h clears the flag.
 * The sleep's timeout is the caller's deadline, to the nanosecond
 * (epoll_pwait2), so a worker asleep here also wakes for its timers.
 *
 * Rejected: one epoll set per worker (a class's fd in several sets wakes
 * every sleeper for one event), and waking a sleeper with a signal
 * (EINTR), which reaches the wrong thread under process signals.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "io/io.h"

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
                              .data.ptr = (void *)((uintptr_t)h | WF_IO_HANDLE_TAG) };
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

void weft_io_kick(weft_io_t h)
{
    /* Inside a poll of h, the poll's own scan finds what was completed. */
    if (!h || weft_io_current() == h)
        return;
    __atomic_store_n(&h->kicked, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&set.sleeper, __ATOMIC_SEQ_CST) != WF_IO_SLEEPER_NONE)
        wf_io_set_interrupt();
}

/* Drop the interrupt events; drain the eventfd if `sleeping` (the set is
 * still ours). Returns the number of events left. */
static int filter(struct epoll_event *ev, int n, int sleeping)
{
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].data.ptr) {
            ev[kept++] = ev[i];
            continue;
        }
        uint64_t v;
        if (sleeping && read(set.evfd, &v, sizeof v) >= 0)
            __atomic_store_n(&set.wake_pending, 0, __ATOMIC_SEQ_CST);
    }
    return kept;
}

/* ------------------------------------------------------ check, sleep */

int wf_io_set_check(struct epoll_event *ev, int max)
{
    int n = epoll_wait(set.epfd, ev, max, 0);
    return n > 0 ? filter(ev, n, 0) : 0;
}

int wf_io_set_claim(int who)
{
    int none = WF_IO_SLEEPER_NONE;
    return set.epfd >= 0 && __atomic_compare_exchange_n(&set.sleeper, &none, who, 0,
                                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static int wait_until(struct epoll_event *ev, int max, int64_t deadline)
{
    if (deadline < 0)
        return epoll_wait(set.epfd, ev, max, -1);
    int64_t left = deadline - wf_io_now();
    struct timespec ts = { 0, 0 };
    if (left > 0) {
        ts.tv_sec = (time_t)(left / 1000000000);
        ts.tv_nsec = (long)(left % 1000000000);
    }
    return epoll_pwait2(set.epfd, ev, max, &ts, NULL);
}

int wf_io_set_wait(struct epoll_event *ev, int max, int64_t deadline)
{
    int n = wait_until(ev, max, deadline);
    return n > 0 ? filter(ev, n, 1) : 0;
}

void wf_io_set_release(void)
{
    __atomic_store_n(&set.sleeper, WF_IO_SLEEPER_NONE, __ATOMIC_SEQ_CST);
}
