/* Progress and blocking: the engine as an event class of Weft's I/O server.
 *
 * Design (the PM2 paper's MPI handle, generalised): at MPI_Init the engine
 * registers one handle with the I/O server. A thread that must wait
 * (MPI_Wait*, MPI_Probe, MPI_Buffer_detach, MPI_Finalize...) describes
 * what it waits for in a wmpi_waiter and calls weft_io_wait(handle,
 * waiter): only that thread blocks; a ULT leaves its worker to compute
 * threads, a plain pthread sleeps in the kernel. The server then detects
 * completion for every waiter at once:
 *   group()  (each time the set of waiters changes) copies the waiters
 *            into an array - the paper's request array for MPI_Testany;
 *   poll()   (at scheduler safe points, serialised with group) runs one
 *            short progress pass (64 KiB per peer at most: it runs inside
 *            a runtime critical section; on an idle worker, which
 *            weft_io_idle_poll tells, up to 1 MiB written, and read too
 *            when ranks share CPUs), if nobody else is
 *            running one, and returns the index of a ready waiter: one
 *            progress pass and one scan serve every waiting thread
 *            (aggregation);
 *   block()  (on the server's blocker kernel thread, when polling is not
 *            worth it) sleeps in epoll_wait on the transports' fd and a
 *            wake-up eventfd, then runs progress; the server's poll round
 *            that follows finds who is ready. An idle worker may run it
 *            too, as its sleep (the server's idle_block.c); unblock()
 *            writes the eventfd to pull it out. block() also tells the
 *            server what the sleep cost: the lag from the kernel's
 *            receive timestamp of the data that ended it to its reading
 *            (weft_io_note_wake: where sleeps cost more than the default
 *            spin cap, the adaptive spin budget rises to about twice that);
 *   test()   (a lone waiter, before it joins the set: the server's
 *            wait.c) runs poll()'s progress pass and tests that waiter
 *            only, so a short wait ends without the set changing twice.
 * Completions that happen outside block() (a loopback send from another
 * thread, a completion found by a poll) must wake a sleeping block():
 * wmpi_kick() bumps a generation counter and, if block() sleeps, writes the
 * eventfd. block() does not sleep if the generation moved since the last
 * poll scan (so a completion between that scan and the sleep is not lost):
 * the completer publishes the flag, then the generation (seq_cst), then
 * reads `sleepers`; block() raises `sleepers`, then compares generations.
 *
 * The caller first tries one progress pass and a test itself, so a
 * request that completes at once (an eager send the socket took whole)
 * costs no trip through the server.
 *
 * Rejected: a progress thread (a kernel thread spinning or sleeping on the
 * sockets and waking waiters): it duplicates the I/O server's blocker and
 * loses its adaptive poll-then-block policy and aggregation.
 *
 * Invariants: at most one thread runs transport progress (the engine
 * lock); a waiter stays valid while linked in the server's list.
 * Locking: progress runs under the engine lock; poll() only ever tries it
 * (a safe point must not wait); group()/poll() are serialised by the
 * server and own the waiter array; block() takes the engine lock normally
 * (it runs on a kernel thread of its own).
 */
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "engine/internal.h"

static struct {
    wmpi_waiter **arr; /* group()'s copy of the waiting set */
    int n, cap;
    uint64_t polled_gen; /* atomic: wmpi_eng.gen at the last poll scan */
} set;

void wmpi_progress_split_locked(size_t rx_budget, size_t tx_budget)
{
    if (wmpi_eng.tp)
        wmpi_eng.tops->progress(wmpi_eng.tp, rx_budget, tx_budget);
}

void wmpi_progress_locked(size_t budget)
{
    wmpi_progress_split_locked(budget, budget);
}

/* Make a sleeping (or the next) block() return. */
static void write_wakefd(void)
{
    uint64_t one = 1;

    if (wmpi_eng.wakefd >= 0 && write(wmpi_eng.wakefd, &one, sizeof one) < 0) {
        /* the counter is saturated: a wake-up is pending anyway */
    }
}

void wmpi_kick(void)
{
    __atomic_add_fetch(&wmpi_eng.gen, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&wmpi_eng.sleepers, __ATOMIC_SEQ_CST) > 0)
        write_wakefd();
}

/* --------------------------------------------------- the I/O server's side */

static void io_group(void *ctx)
{
    void *arg;
    int n = 0;

    (void)ctx;
    WEFT_IO_FOR_EACH_REQUEST(wmpi_eng.io, arg) {
        if (n == set.cap) {
            int cap = set.cap ? 2 * set.cap : 16;
            wmpi_waiter **a = realloc(set.arr, (size_t)cap * sizeof *a);
            if (!a)
                wmpi_fatal("out of memory for the set of waiting threads");
            set.arr = a;
            set.cap = cap;
        }
        set.arr[n++] = arg;
    }
    set.n = n;
}

/* A poll's progress pass. At a safe point it stays short. An idle worker
 * (or a waiting thread polling in its place) delays nobody: it reads
 * wmpi_eng.idle_budget (init.c) and, where that left nothing to read,
 * writes all the socket takes, up to 1 MiB per peer. Against 64 KiB, in
 * alternating launches on 2 CPUs: 1 MiB ping-pong 0.86x the time, 1 MiB
 * streaming 1.08-1.15x the bandwidth (medians of two series). */
static void poll_progress(void)
{
    if (weft_io_idle_poll())
        wmpi_progress_split_locked(wmpi_eng.idle_budget, WMPI_BUDGET_THREAD);
    else
        wmpi_progress_locked(WMPI_BUDGET_POLL);
}

/* One progress pass, unless another thread holds the engine: it makes
 * the progress (a poll must not wait). */
static void try_poll_progress(void)
{
    if (wmpi_lock_try_brief(&wmpi_eng.lock)) {
        poll_progress();
        wmpi_unlock_engine();
    }
}

static int io_poll(void *ctx)
{
    (void)ctx;
    try_poll_progress();
    __atomic_store_n(&set.polled_gen,
                     __atomic_load_n(&wmpi_eng.gen, __ATOMIC_SEQ_CST),
                     __ATOMIC_SEQ_CST);
    for (int i = 0; i < set.n; i++)
        if (wmpi_waiter_ready(set.arr[i]))
            return i;
    return -1;
}

/* A lone waiter's own test, before it joins the waiting set (the I/O
 * server's test callback): the same progress pass as a poll's, then its
 * own waiter only. */
static int io_test(void *ctx, void *arg)
{
    (void)ctx;
    try_poll_progress();
    return wmpi_waiter_ready(arg);
}

static void drain_wakefd(void)
{
    uint64_t v;

    if (read(wmpi_eng.wakefd, &v, sizeof v) < 0) {
        /* EAGAIN: nothing to drain */
    }
}

/* The receive time of the first data the transport read since the last
 * call (1), or nothing (0); forgets it. Under the engine lock. */
static int took_arrival(int64_t *arrival_ns, int64_t *seen_ns)
{
    return wmpi_eng.tp && wmpi_eng.tops->arrival &&
           wmpi_eng.tops->arrival(wmpi_eng.tp, arrival_ns, seen_ns);
}

static int io_block(void *ctx, int timeout_ms)
{
    struct epoll_event ev[4];
    int64_t arrival, seen;
    int n = 0;

    (void)ctx;
    if (wmpi_eng.tp && wmpi_eng.tops->arrival_reset) /* what was read before */
        wmpi_eng.tops->arrival_reset(wmpi_eng.tp);    /* the sleep did not end it */
    __atomic_add_fetch(&wmpi_eng.sleepers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&wmpi_eng.gen, __ATOMIC_SEQ_CST) ==
        __atomic_load_n(&set.polled_gen, __ATOMIC_SEQ_CST))
        n = epoll_wait(wmpi_eng.epfd, ev, 4, timeout_ms);
    __atomic_sub_fetch(&wmpi_eng.sleepers, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < n; i++)
        if (ev[i].data.fd == wmpi_eng.wakefd)
            drain_wakefd();
    wmpi_lock_engine();
    wmpi_progress_locked(WMPI_BUDGET_THREAD);
    if (took_arrival(&arrival, &seen))
        weft_io_note_wake(arrival, seen);
    wmpi_unlock_engine();
    return -1; /* the server's poll round that follows finds the ready */
}

/* An idle worker sleeps in block() and the scheduler has other work for
 * it. */
static void io_unblock(void *ctx)
{
    (void)ctx;
    write_wakefd();
}

/* ------------------------------------------------------------ set-up */

static int watch(int fd)
{
    struct epoll_event ev = { .events = EPOLLIN };

    ev.data.fd = fd;
    return epoll_ctl(wmpi_eng.epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int wmpi_io_start(void)
{
    weft_io_params p = { .name = "mpi", .poll = io_poll, .group = io_group,
                         .block = io_block, .frequency = 0, .unblock = io_unblock,
                         .test = io_test };
    int tfd = wmpi_eng.tp ? wmpi_eng.tops->pollfd(wmpi_eng.tp) : -1;

    wmpi_eng.epfd = epoll_create1(EPOLL_CLOEXEC);
    wmpi_eng.wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wmpi_eng.epfd < 0 || wmpi_eng.wakefd < 0)
        goto fail;
    if (watch(wmpi_eng.wakefd) < 0 || (tfd >= 0 && watch(tfd) < 0))
        goto fail;
    wmpi_eng.io = weft_io_register(&p);
    if (wmpi_eng.io == WEFT_IO_NULL)
        goto fail;
    return 0;
fail:
    wmpi_io_stop();
    return WEFT_ENOMEM;
}

void wmpi_io_stop(void)
{
    if (wmpi_eng.io != WEFT_IO_NULL)
        weft_io_unregister(wmpi_eng.io);
    wmpi_eng.io = WEFT_IO_NULL;
    if (wmpi_eng.epfd >= 0)
        close(wmpi_eng.epfd);
    if (wmpi_eng.wakefd >= 0)
        close(wmpi_eng.wakefd);
    wmpi_eng.epfd = wmpi_eng.wakefd = -1;
    free(set.arr);
    set.arr = NULL;
    set.n = set.cap = 0;
}

/* ------------------------------------------------------------- waiting */

int wmpi_block(wmpi_waiter *w)
{
    int err;

    /* Already done (an eager send the socket took at once): a progress
     * pass would cost an epoll_wait on the message's critical path. */
    if (wmpi_waiter_ready(w))
        return 0;
    if (wmpi_lock_try(&wmpi_eng.lock)) {
        wmpi_progress_locked(WMPI_BUDGET_THREAD);
        wmpi_unlock_engine();
    }
    if (wmpi_waiter_ready(w))
        return 0;
    err = weft_io_wait(wmpi_eng.io, w);
    return err == WEFT_ECANCELED ? WEFT_ESTATE : err;
}
