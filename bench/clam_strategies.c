/* bench/clam, the receive-thread schedules: how the receiver process's
 * receive thread gets control beside the work threads (all at
 * CLAM_WORK_PRIO, round robin on one worker). Each activation reads every
 * queued datagram (clam_rx_drain), then waits or yields.
 *
 * Weft's I/O server (the thread blocks in weft_fd_wait; the server decides
 * how the socket's readiness is detected and wakes the thread at raised
 * priority, preempting a work thread if need be):
 *   polling  WEFT_IO_POLLING: polled at safe points (switches, ticks) and
 *            by the server thread's timer when no worker polled;
 *   signal   weft_fd_set_sigio: the kernel signals each datagram and Weft's
 *            SIGIO dispatcher wakes the thread;
 *   blocker  WEFT_IO_BLOCKING: a server kernel thread sleeps in epoll;
 *   default  nothing set: WEFT_IO_ADAPTIVE at Weft's default quantum.
 * The paper's five, with Weft's primitives:
 *   SPR    the work level is time-sliced at the paper's fixed 50 ms (500
 *          us here, weft_prio_set_slice); the receive thread shares that
 *          level and its slices: it drains, then weft_thread_yield (paper
 *          Fig. 4c);
 *   SNR    as SPR, but while it drains the receive thread raises itself to
 *          a level whose slicing is off (weft_prio_clear_slice), so no
 *          tick preempts it; it drops back to the work level to yield;
 *   SANR   SNR whose activations feed CLAM's rule (clam_adapt.c), which
 *          sets the work level's slice T (weft_prio_set_slice);
 *   SINR   the socket raises SIGIO on each datagram (O_ASYNC, F_SETOWN);
 *          the receive thread sleeps in weft_sig_wait(SIGIO) at the
 *          unsliced level, work threads keep the fixed slice. WAKE_ONE
 *          keeps a signal that arrives while the thread drains, so none
 *          is lost. Weft wakes the thread at once, preempting a work
 *          thread; Ariadne ran it when the current slice ended;
 *   SAINR  SINR plus the rule of SANR; the paper's timer thread, which
 *          activates the receive thread every second so that T can grow
 *          back in silence, is the deadline of weft_sig_wait_until.
 */
#include "clam.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <weft.h>

/* The unsliced level a nonpreemptive receive thread drains at. */
#define NONPREEMPT_PRIO (CLAM_WORK_PRIO + 1)

typedef struct receiver {
    clam_strategy strategy;
    int fd;
    clam_rx_counters *c;
    clam_adapt adapt;
} receiver;

static receiver rx; /* one receive thread per process */

/* One activation: drain, count, and (adaptive schedules) adapt T. */
static void activate(receiver *r)
{
    int packets = clam_rx_drain(r->fd, r->c);
    clam_rx_counters *c = r->c;
    __atomic_store_n(&c->activations, c->activations + 1, __ATOMIC_RELAXED);
    if (r->strategy != CLAM_SANR && r->strategy != CLAM_SAINR)
        return;
    if (clam_adapt_step(&r->adapt, packets))
        clam_check(weft_prio_set_slice(CLAM_WORK_PRIO, r->adapt.slice_ns),
              "weft_prio_set_slice");
    __atomic_store_n(&c->slice_sum_ns, c->slice_sum_ns + r->adapt.slice_ns,
                     __ATOMIC_RELAXED);
}

/* ------------------------------------------------------ the I/O server */

static void *io_server_thread(void *arg)
{
    receiver *r = arg;
    for (;;) {
        clam_check(weft_fd_wait(r->fd, WEFT_IO_READ, WEFT_FOREVER),
                   "weft_fd_wait");
        activate(r);
    }
    return NULL;
}

/* ------------------------------------------------ slicing with yields */

static void *sliced_thread(void *arg)
{
    receiver *r = arg;
    weft_thread_t self = weft_thread_self();
    int nonpreemptive = r->strategy != CLAM_SPR;
    for (;;) {
        if (nonpreemptive)
            clam_check(weft_thread_set_priority(self, NONPREEMPT_PRIO),
                  "weft_thread_set_priority");
        activate(r);
        if (nonpreemptive)
            clam_check(weft_thread_set_priority(self, CLAM_WORK_PRIO),
                  "weft_thread_set_priority");
        weft_thread_yield();
    }
    return NULL;
}

/* ----------------------------------------------------- SIGIO-activated */

static void *sigio_thread(void *arg)
{
    receiver *r = arg;
    int64_t tick = weft_now() + CLAM_TIMER_PERIOD_NS;
    for (;;) {
        int64_t deadline = r->strategy == CLAM_SAINR ? tick : WEFT_FOREVER;
        int rc = weft_sig_wait_until(SIGIO, deadline);
        if (rc == WEFT_ETIMEDOUT)
            tick += CLAM_TIMER_PERIOD_NS;
        else
            clam_check(rc, "weft_sig_wait_until");
        activate(r);
    }
    return NULL;
}

/* The socket signals SIGIO to this process for every datagram. */
static int start_sigio(int fd)
{
    int rc = weft_sig_set(SIGIO);
    if (rc == 0)
        rc = weft_sig_set_mode(SIGIO, WEFT_SIG_WAKE_ONE);
    if (rc == 0 && (fcntl(fd, F_SETOWN, getpid()) != 0 ||
                    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC |
                                           O_NONBLOCK) != 0))
        rc = -errno;
    return rc;
}

/* ---------------------------------------------------------------- set-up */

/* The paper's schedules: work threads sliced at the fixed 50 ms (scaled),
 * the nonpreemptive level not sliced at all. */
static int set_up_slices(void)
{
    int rc = weft_prio_set_slice(CLAM_WORK_PRIO, CLAM_SLICE_FIXED_NS);
    return rc != 0 ? rc : weft_prio_clear_slice(NONPREEMPT_PRIO);
}

static int set_up_weft(clam_strategy s, int fd)
{
    int rc;
    switch (s) {
    case CLAM_POLLING: return weft_io_set_strategy(WEFT_IO_POLLING);
    case CLAM_BLOCKER: return weft_io_set_strategy(WEFT_IO_BLOCKING);
    case CLAM_SIGNAL: return weft_fd_set_sigio(fd, 1);
    case CLAM_DEFAULT: return 0;
    case CLAM_SINR:
    case CLAM_SAINR:
        rc = start_sigio(fd);
        return rc != 0 ? rc : set_up_slices();
    default: return set_up_slices();
    }
}

static void *(*thread_body(clam_strategy s))(void *)
{
    if (!clam_strategy_is_paper(s))
        return io_server_thread;
    return s == CLAM_SINR || s == CLAM_SAINR ? sigio_thread : sliced_thread;
}

int clam_strategy_start(clam_strategy s, int fd, clam_rx_counters *c)
{
    int rc = set_up_weft(s, fd);
    if (rc != 0)
        return rc;
    rx.strategy = s;
    rx.fd = fd;
    rx.c = c;
    clam_adapt_init(&rx.adapt, CLAM_SLICE_FIXED_NS);
    weft_thread_attr attr;
    weft_thread_attr_init(&attr);
    attr.detached = 1;
    attr.name = "receive";
    attr.priority = s == CLAM_SINR || s == CLAM_SAINR ? NONPREEMPT_PRIO
                                                      : CLAM_WORK_PRIO;
    return weft_thread_create(NULL, &attr, thread_body(s), &rx);
}
