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
 *   poll()   runs one progress pass and returns the index of a ready
 *            waiter: one progress pass and one scan serve every waiting
 *            thread (aggregation). At a scheduler safe point the pass is
 *            short (64 KiB per peer at most: it runs inside a runtime
 *            critical section) and skipped if another thread holds the
 *            engine; on a thread with nothing else to do (an idle worker,
 *            the server's thread: weft_io_idle_poll) it waits for the
 *            engine and reads and writes up to 1 MiB per peer;
 *   pollfd() is the transports' fd, readable when progress has work: the
 *            server keeps it in its poll set, so whichever thread sleeps
 *            there (an idle worker, or the server thread while every
 *            worker computes) wakes when data arrives;
 *   sleeping() tells shared memory that a thread sleeps on that fd: its
 *            peers ring the doorbell from then on (route.c, shm.c).
 * Completions that happen outside the transport's fd (a loopback send
 * from another thread, a completion found by another thread's progress)
 * announce themselves with weft_io_kick (wmpi_kick), which wakes the
 * thread asleep in the poll set.
 *
 * The caller first tries one progress pass and a test itself, so a
 * request that completes at once (an eager send the socket took whole)
 * costs no trip through the server.
 *
 * Rejected: a progress thread (a kernel thread spinning or sleeping on the
 * sockets and waking waiters): it duplicates the I/O server's own thread
 * and loses its adaptive poll-then-sleep policy and aggregation.
 *
 * Invariants: at most one thread runs transport progress (the engine
 * lock); a waiter stays valid while linked in the server's list.
 * Locking: progress runs under the engine lock; poll() at a safe point
 * only ever tries it (a safe point must not wait); group()/poll() are
 * serialised by the server and own the waiter array.
 */
#include <stdlib.h>

#include "engine/core/internal.h"

static struct {
    wmpi_waiter **arr; /* group()'s copy of the waiting set */
    int n, cap;
} set;

static int wait_spins; /* test_before_parking's rounds (1: the heuristic is off) */

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
 * (or a waiting thread polling in its place) delays nobody: it moves up
 * to 1 MiB per peer each way, so a large message streamed both ways is
 * not cut into a pass per 64 KiB (figures: docs/performance-notes.md). */
static void poll_progress(void)
{
    wmpi_progress_locked(weft_io_idle_poll() ? WMPI_BUDGET_THREAD : WMPI_BUDGET_POLL);
}

/* One progress pass. At a safe point only if no other thread holds the
 * engine (it makes the progress: a safe point must not wait); a thread
 * with nothing else to do waits for it - the holder runs meanwhile
 * (lock.h) - or a server thread woken by the transport's fd would find it
 * still readable and spin. */
static void poll_progress_pass(void)
{
    if (weft_io_idle_poll())
        wmpi_lock_engine();
    else if (!wmpi_lock_try(&wmpi_eng.lock))
        return;
    poll_progress();
    wmpi_unlock_engine();
}

static int io_poll(void *ctx)
{
    (void)ctx;
    poll_progress_pass();
    for (int i = 0; i < set.n; i++)
        if (wmpi_waiter_ready(set.arr[i]))
            return i;
    return -1;
}

static int io_pollfd(void *ctx)
{
    (void)ctx;
    return wmpi_route_pollfd();
}

static int io_sleeping(void *ctx, int asleep)
{
    (void)ctx;
    return wmpi_route_sleeping(asleep);
}

/* ------------------------------------------------------------ set-up */

int wmpi_io_start(void)
{
    weft_io_params p = { .name = "mpi", .poll = io_poll, .group = io_group,
                         .pollfd = io_pollfd, .sleeping = io_sleeping,
                         .frequency = 0 };

    wait_spins = weft_heuristic_on("wait-test") ? WMPI_WAIT_SPINS : 1;
    wmpi_eng.io = weft_io_register(&p);
    return wmpi_eng.io == WEFT_IO_NULL ? WEFT_ENOMEM : 0;
}

void wmpi_io_stop(void)
{
    if (wmpi_eng.io != WEFT_IO_NULL)
        weft_io_unregister(wmpi_eng.io);
    wmpi_eng.io = WEFT_IO_NULL;
    free(set.arr);
    set.arr = NULL;
    set.n = set.cap = 0;
}

/* ------------------------------------------------------------- waiting */

/* Ready when `need` of its requests are done (Wait: 1 of 1; Waitall: n of
 * n; Waitany/Waitsome: 1 of n), or when its condition holds. Reads only
 * atomics (completion flags, engine counters), so poll() tests every
 * waiter without the engine lock; a request waiter's readiness is
 * monotonic (done requests stay done while their owner waits). */
int wmpi_waiter_ready(const wmpi_waiter *w)
{
    int done = 0;

    if (w->kind == WMPI_WAIT_COND)
        return w->cond(w->arg);
    for (int i = 0; i < w->n; i++)
        if (wmpi_request_live(w->reqs[i]) && wmpi_request_done(w->reqs[i]) &&
            ++done >= w->need)
            return 1;
    return 0;
}

/* One progress pass if no other thread runs one, then the test. */
static int test_once(wmpi_waiter *w)
{
    if (wmpi_lock_try(&wmpi_eng.lock)) {
        wmpi_progress_locked(WMPI_BUDGET_THREAD);
        wmpi_unlock_engine();
    }
    return wmpi_waiter_ready(w);
}

/* The caller's own test loop before it parks, while no other thread is
 * ready to run and the rank has its CPUs to itself: a reply that comes
 * within WMPI_WAIT_SPINS passes then costs no switch to the idle loop and
 * back. With CPUs shared, the peer that produces the reply may need this
 * CPU, and the idle loop yields between its polls. */
static int test_before_parking(wmpi_waiter *w)
{
    int spins = weft_cpus_shared() ? 1 : wait_spins;

    for (int i = 0; i < spins; i++) {
        if (test_once(w))
            return 1;
        if (weft_ready_threads() > 0)
            return 0;
    }
    return 0;
}

int wmpi_block(wmpi_waiter *w)
{
    int err;

    /* Already done (an eager send the socket took at once): a progress
     * pass would cost an epoll_wait on the message's critical path. */
    if (wmpi_waiter_ready(w) || test_before_parking(w))
        return 0;
    err = weft_io_wait(wmpi_eng.io, w);
    return err == WEFT_ECANCELED ? WEFT_ESTATE : err;
}
