/* What is done with the poll set's events (pollset.c): each goes to its
 * owner - a class's fd to a poll round of that class, an fd record's to
 * its waiters (fdclass.c) - and a sleep in the set is claim, prepare,
 * wait, dispatch.
 *
 * Preparing a sleep: the fds of classes with waiters that an event
 * disarmed are armed again, and a class kicked since its last poll, or a
 * worker that was woken since it announced its sleep (the scheduler's
 * wf_sched_idle_woken: it may have made a thread runnable on itself, or a
 * waker found it before it blocked), turns the sleep into a check. After
 * the sleep the classes kicked meanwhile are polled. A class whose events
 * land in memory (p.sleeping) is told before the sleep that its doorbell
 * must ring from now on, and after it that it may stop.
 *
 * Everything here runs under wf_io_reg_lock, and a class's event is
 * dropped unless the class is still registered: unregistering takes the
 * class out of the registry first.
 */
#include "io/io.h"

#define MAX_EVENTS 64

/* A class's fd fired: poll the class (if still registered). */
static int handle_event(weft_io_t h, int how)
{
    if (!wf_io_registered(h))
        return 0;
    __atomic_store_n(&h->armed, 0, __ATOMIC_RELEASE);
    int woken = wf_io_poll_round(h, how);
    return woken > 0 ? woken : 0;
}

static int dispatch(struct epoll_event *ev, int n, int how)
{
    int woken = 0;
    for (int i = 0; i < n; i++) {
        void *p = ev[i].data.ptr;
        if ((uintptr_t)p & WF_IO_HANDLE_TAG)
            woken += handle_event((weft_io_t)((uintptr_t)p & ~WF_IO_HANDLE_TAG), how);
        else
            woken += wf_io_fd_dispatch(p, ev[i].events, how);
    }
    return woken;
}

int wf_io_fd_class_round(weft_io_t fdh, int how)
{
    struct epoll_event ev[MAX_EVENTS];
    if (!wf_trylock(&fdh->lock))
        return -1;
    int n = wf_io_set_check(ev, MAX_EVENTS);
    int woken = dispatch(ev, n, how);
    wf_io_mark_polled(fdh, woken);
    wf_unlock(&fdh->lock);
    return woken;
}

int wf_io_poll_class(weft_io_t h, int how)
{
    return h->builtin ? wf_io_fd_class_round(h, how) : wf_io_poll_round(h, how);
}

/* A class with a doorbell is told first, then asked whether something
 * landed already: only if requests wait on it (the order matters: a wait
 * that starts after the question polls the class itself). */
static int doorbell_armed(weft_io_t h)
{
    if (h->fd < 0 || !h->p.sleeping)
        return 0;
    h->asleep = 1;
    if (!h->p.sleeping(h->p.ctx, 1) || !wf_io_has_waiters(h))
        return 0;
    __atomic_store_n(&h->kicked, 1, __ATOMIC_SEQ_CST); /* polled after the check */
    return 1;
}

static void doorbells_quiet(void)
{
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next)
        if (h->asleep) {
            h->asleep = 0;
            h->p.sleeping(h->p.ctx, 0);
        }
}

/* 1 if the sleep must be a check (see the head comment). */
static int prepare(void)
{
    int check = wf_sched_idle_woken();
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next) {
        check |= doorbell_armed(h);
        if (!wf_io_has_waiters(h))
            continue;
        if (h->fd >= 0)
            wf_io_set_arm(h);
        check |= __atomic_load_n(&h->kicked, __ATOMIC_SEQ_CST);
    }
    return check;
}

static int poll_kicked(void)
{
    int woken = 0;
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next)
        if (__atomic_load_n(&h->kicked, __ATOMIC_SEQ_CST) && wf_io_has_waiters(h))
            woken += wf_io_poll_class(h, WF_DET_BLOCK) > 0;
    return woken;
}

int wf_io_sleep_in_set(int64_t deadline, int who)
{
    struct epoll_event ev[MAX_EVENTS];
    if (!wf_io_set_claim(who))
        return -1;
    wf_lock(&wf_io_reg_lock);
    int check = prepare();
    wf_unlock(&wf_io_reg_lock);
    int n = wf_io_set_wait(ev, MAX_EVENTS, check ? 0 : deadline);
    wf_lock(&wf_io_reg_lock);
    doorbells_quiet(); /* before the set is given back: the next sleeper arms them again */
    wf_unlock(&wf_io_reg_lock);
    wf_io_set_release();
    int prev = wf_io_set_idle_polling(1);
    wf_lock(&wf_io_reg_lock);
    int woken = dispatch(ev, n, WF_DET_BLOCK) + poll_kicked();
    wf_unlock(&wf_io_reg_lock);
    wf_io_set_idle_polling(prev);
    return woken;
}
