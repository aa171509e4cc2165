/* Weft's I/O event server: the scheduler detects the events threads wait
 * for (messages, sockets, any pollable request) and wakes them.
 *
 * An event class is registered once with callbacks (PM2's
 * thread_IO_register; <weft/pm2_io.h> offers the paper's own names);
 * threads then wait with one blocking call (weft_io_wait) that blocks only
 * the calling user-level thread. The server aggregates every waiting
 * request of a handle: one `poll` serves them all. How events are
 * detected is chosen by the server, never by the caller
 * (weft_io_strategy). A woken waiter runs at raised priority
 * (WEFT_PRIO_HIGH for its next turn) and, if every worker is busy,
 * preempts a lower-priority thread.
 *
 * Who wakes my waiting thread, and when (the default, adaptive strategy):
 *
 * | route | who detects            | when                                    | file            |
 * |-------|------------------------|-----------------------------------------|-----------------|
 * | 1     | an idle worker         | it spins: polls every class with        | sched/worker.c, |
 * |       |                        | waiters about every microsecond, for    | io/detect.c,    |
 * |       |                        | the spin budget (50-500 us, adaptive);  | io/pollset.c    |
 * |       |                        | then one idle worker sleeps in the poll |                 |
 * |       |                        | set (every class's fd, the fd waits, an |                 |
 * |       |                        | interrupt eventfd) and the event wakes  |                 |
 * |       |                        | it: it runs the waiter itself           |                 |
 * | 2     | the server thread      | no worker is idle and a busy one runs a | io/server.c,    |
 * |       |                        | thread that computes (its last run, or  | io/detect.c     |
 * |       |                        | this one, went through a tick): it      |                 |
 * |       |                        | sleeps in the same poll set and, on an  |                 |
 * |       |                        | event, wakes the waiter urgently (a     |                 |
 * |       |                        | compute thread is preempted for it)     |                 |
 * | 3     | a busy worker          | at a context switch, for classes whose  | io/detect.c     |
 * |       |                        | polling period is due (frequency 0:     |                 |
 * |       |                        | every switch); for every class with     |                 |
 * |       |                        | waiters while its threads run short     |                 |
 * |       |                        | and nobody else detects                 |                 |
 * | -     | the waiting thread     | once, as its wait starts; and any       | io/wait.c       |
 * |       | or the program         | thread through weft_io_poll (MPI_Test)  |                 |
 *
 * A class with a block() callback and no pollfd is detected by a blocker
 * thread of its own (route 2's kind); a class with neither is polled, on
 * a timer by route 1's sleeper or route 2 when nobody switches. A message
 * that lands while every worker computes is detected by route 2 and
 * preempts a compute thread.
 *
 * Time: deadlines are absolute weft_now() nanoseconds (CLOCK_MONOTONIC);
 * WEFT_FOREVER waits forever, 0 tests once without blocking.
 */
#ifndef WEFT_IO_H
#define WEFT_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <weft/errno.h>
#include <weft/timer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- event classes */

typedef struct weft_io *weft_io_t;
#define WEFT_IO_NULL ((weft_io_t)0)

typedef struct weft_io_params {
    const char *name; /* for statistics and messages; copied (31 chars) */
    /* Test the waiting requests: -1 if none is ready, else the index of a
     * ready one, counted in WEFT_IO_FOR_EACH_REQUEST order (the order the
     * last group() call saw: oldest first). The server wakes that request's
     * waiter, calls group() and polls again, until -1 or no request is
     * left. Runs at a scheduler safe point (inside a runtime critical
     * section), on an idle worker, or on a server kernel thread;
     * serialised per handle with group() and with requests being added or
     * removed. Must be short and must not block, yield, wait or call
     * weft_io_wait (weft_io_idle_poll says when it may take its time).
     * Required. */
    int (*poll)(void *ctx);
    /* The set of waiting requests changed (exactly one was added or
     * removed): rebuild whatever poll() needs, typically with
     * WEFT_IO_FOR_EACH_REQUEST. Runs on the thread that made the change
     * (a waiter, a detector, weft_io_unregister); serialised like poll(),
     * same restrictions. May be NULL. */
    void (*group)(void *ctx);
    /* Optional: an fd that is readable whenever poll() may find a request
     * ready (a socket, an epoll fd of several, an eventfd doorbell);
     * called once, at registration. The server keeps it in its one poll
     * set while requests wait, so whichever thread sleeps there wakes for
     * it. Completions that do not show on it (another thread's progress)
     * are announced with weft_io_kick. The class keeps the fd open until
     * it is unregistered. NULL, or a result < 0: no fd. */
    int (*pollfd)(void *ctx);
    /* Optional, with pollfd, for a class whose events land in memory (a
     * shared-memory ring) and reach its fd only when the class makes them
     * (a doorbell its senders ring): called with asleep = 1 just before a
     * thread sleeps in the poll set, and with asleep = 0 once it woke.
     * With asleep = 1 the class makes its fd fire for the next event from
     * now on, then looks once more: it returns 1 if poll() may already
     * find something (the sleep becomes a check), else 0; the result of
     * asleep = 0 is ignored. Called whether or not requests wait, at most
     * one sleeper at a time, serialised with the other sleepers' calls (not
     * with poll()). Must not block. */
    int (*sleeping)(void *ctx, int asleep);
    /* Optional, for a class without pollfd: blocking detection, run on the
     * handle's own blocker kernel thread while requests wait: wait up to
     * timeout_ms (the server passes a slice of 100 ms; honour it,
     * unregistering waits for it) for one of the waiting requests to be
     * ready; return its index as poll() does, or -1. It runs concurrently
     * with poll() and group() (not under their serialisation): it must not
     * iterate the requests. Typically it sleeps on a kernel object and
     * returns -1, and the server's poll() that follows finds the request;
     * an index it returns is used only if no request was added or removed
     * meanwhile. Ignored when pollfd gives an fd. */
    int (*block)(void *ctx, int timeout_ms);
    /* Scheduler ticks between two polls at context switches (a tick is
     * min(1 ms, quantum)); 0 = at every switch. The server adapts the
     * period between frequency/8 and 8*frequency from recent history
     * (CLAM's SANR rule); idle workers poll regardless of it, and a class
     * that only polling can detect is polled at that period in time when
     * nobody switches. */
    unsigned frequency;
    void *ctx; /* passed to the callbacks */
} weft_io_params;

/* Register an event class. Returns its handle, or WEFT_IO_NULL if p is
 * NULL, p->poll is NULL, or memory is short. Starts the runtime if needed.
 * A class with a block callback and no pollfd gets a blocker kernel
 * thread (asleep until needed). Context: ULT or external. Blocks: no. */
weft_io_t weft_io_register(const weft_io_params *p);

/* Unregister `h` and free it: threads still waiting on it return
 * WEFT_ECANCELED; it returns once they have all left the wait and its
 * blocker thread has returned from block() (at most one 100 ms slice).
 * No wait on `h` may start once this is called.
 * Errors: WEFT_EINVAL (NULL). Context: ULT or external, not a callback.
 * Blocks: briefly (the calling ULT yields while waiters leave; joining the
 * blocker thread blocks its worker). */
int weft_io_unregister(weft_io_t h);

/* Wait until the handle's callbacks report the request `arg` ready.
 * Blocks only the calling ULT (an external pthread sleeps in the kernel).
 * Returns 0 when ready. Errors: WEFT_EINVAL, WEFT_ECANCELED (unregistered).
 * Context: ULT or external, not a callback. Blocks: yes. */
int weft_io_wait(weft_io_t h, void *arg);

/* weft_io_wait with an absolute deadline (weft_now() clock, WEFT_FOREVER,
 * or 0 to test once). Errors: as weft_io_wait, plus WEFT_ETIMEDOUT (the
 * deadline passed first; never returned early).
 * Context: ULT or external, not a callback. Blocks: yes. */
int weft_io_wait_until(weft_io_t h, void *arg, int64_t deadline);

/* Poll `h` now, on the calling thread, and wake the waiters whose requests
 * are ready. For event classes whose events the program itself can make
 * happen outside any wait (a library's progress function run by a thread
 * that tests instead of waiting): their waiters then need not wait for
 * the next safe point or the server's thread. Returns how many waiters were
 * woken: 0 if none is waiting, or if another thread is polling `h` at
 * this moment (that thread finds what is ready). With nobody waiting it
 * costs one atomic load. Errors: WEFT_EINVAL (NULL).
 * Context: ULT or external, not a callback. Blocks: no. */
int weft_io_poll(weft_io_t h);

/* Iteration over the waiting requests of `h`, oldest first, for group()
 * and poll() callbacks only (they hold the handle's serialisation):
 * assigns each request's `arg` (as given to weft_io_wait) to the pointer
 * lvalue `arg` in turn. */
void *weft_io_request_first(weft_io_t h);
void *weft_io_request_next(weft_io_t h, void *it);
void *weft_io_request_arg(void *it);
#define WEFT_IO_FOR_EACH_REQUEST(h, arg)                                   \
    for (void *weft_io_it_ = weft_io_request_first(h);                     \
         weft_io_it_ && (((arg) = weft_io_request_arg(weft_io_it_)), 1);   \
         weft_io_it_ = weft_io_request_next((h), weft_io_it_))

/* The handle whose callback is running on this kernel thread (for
 * callbacks that were registered without knowing their handle), or
 * WEFT_IO_NULL outside callbacks. Context: any. Blocks: no. */
weft_io_t weft_io_current(void);

/* 1 while the calling poll() callback runs on a thread that has nothing
 * else to do - an idle worker, or the server's own thread - so a poll may
 * take its time (move a large message whole) and may wait for a lock the
 * class itself holds briefly; 0 at a safe point between two threads (keep
 * it short: the next thread waits) and outside callbacks.
 * Context: any. Blocks: no. */
int weft_io_idle_poll(void);

/* Something poll() would find ready happened outside the class's pollfd
 * (another thread's progress completed a request): make sure `h` is
 * polled soon. Wakes the thread asleep in the server's poll set, if any;
 * otherwise costs a store and a load (idle workers that spin poll anyway).
 * NULL is ignored. Context: ULT, external, a callback; not a signal
 * handler. Blocks: no. */
void weft_io_kick(weft_io_t h);

/* --------------------------------------------------------------- strategy */

typedef enum weft_io_strategy {
    /* Default: the three routes tabled above. Idle workers poll, then
     * sleep in the poll set; the server thread sleeps there while every
     * worker is busy; busy workers poll at switches. */
    WEFT_IO_ADAPTIVE = 0,
    /* "Enhanced polling" (PM2): poll at switches, on idle workers (for as
     * long as a wait lasts), and from the server thread on a timer at each
     * class's period when no worker polled; nothing sleeps on an fd.
     * Burns idle CPU while threads wait. */
    WEFT_IO_POLLING = 1,
    /* Passive: a class with a passive method (a pollfd, the fd class, a
     * block()) is detected by the server thread (or its blocker) alone,
     * engaged as each wait starts; classes without one are polled. */
    WEFT_IO_BLOCKING = 2,
    /* The paper's baseline: each waiter tests its own handle (or fd) and
     * yields, in a loop; the server does nothing. Burns CPU. */
    WEFT_IO_NAIVE = 3,
} weft_io_strategy;

/* Set the process-wide detection strategy (also WEFT_IO_STRATEGY=adaptive|
 * polling|blocking|naive at start-up). For comparisons and experiments;
 * the default is right for applications. It applies to waits that start
 * afterwards: change it while no thread waits. Errors: WEFT_EINVAL.
 * Context: any but signal. Blocks: no. */
int weft_io_set_strategy(weft_io_strategy s);
weft_io_strategy weft_io_get_strategy(void);

/* ---------------------------------------------------------- file descriptors */

#define WEFT_IO_READ  0x1u /* readable (or peer closed, or error) */
#define WEFT_IO_WRITE 0x4u /* writable */

/* Wait until `fd` is ready for `events` (WEFT_IO_READ | WEFT_IO_WRITE) or
 * `deadline` passes. Returns the ready events among those asked (> 0;
 * errors and hang-ups report as all of them ready). A file epoll cannot
 * watch (a regular file) is always ready. All fds share one epoll set, so
 * waiting on thousands of them costs one kernel thread.
 * Errors: WEFT_EINVAL (no or unknown events), WEFT_ETIMEDOUT, -EBADF,
 * WEFT_ENOMEM. Context: ULT or external. Blocks: yes. */
int weft_fd_wait(int fd, unsigned events, int64_t deadline);

/* Put `fd` in signal-driven mode (on = 1) or back (on = 0). In this mode
 * the kernel signals the fd's readiness (O_ASYNC, F_SETOWN to this
 * process, F_SETSIG to a real-time signal Weft reserves, SIGRTMIN + 7) and
 * Weft's SIGIO dispatcher polls it and wakes its waiters (weft_fd_wait,
 * FD clauses, weft_read...), urgently; detections count as detected_signal
 * of the "fd" class. The fd leaves the epoll set meanwhile. For devices
 * whose driver offers only SIGIO; sockets and pipes are better served by
 * the default. Turn the mode off before closing the fd. If the real-time
 * signal queue overflows, the kernel sends SIGIO instead: install a SIGIO
 * handler if that can happen.
 * Errors: -EBADF, WEFT_EBUSY (another handler owns SIGRTMIN + 7),
 * WEFT_EAGAIN, WEFT_ENOMEM, other -errno of fcntl (the device does not
 * support O_ASYNC). Context: ULT or external. Blocks: briefly (the first
 * call starts the dispatcher thread). */
int weft_fd_set_sigio(int fd, int on);

/* Blocking I/O that blocks only the calling ULT: the call is tried
 * non-blocking and the thread waits in weft_fd_wait when it would block.
 * read/write/accept/connect set O_NONBLOCK on the fd (and leave it set);
 * recv/send use MSG_DONTWAIT and leave the fd's flags alone. write/send
 * return once every byte is written (a partial count only if an error
 * stops them after some bytes), as on a blocking socket; read/recv return
 * what is available. EINTR is retried, never returned.
 * Return the byte count (or the new fd / 0), or a negative WEFT_E* code
 * (-errno). Context: ULT or external. Blocks: yes. */
ssize_t weft_read(int fd, void *buf, size_t len);
ssize_t weft_write(int fd, const void *buf, size_t len);
ssize_t weft_recv(int fd, void *buf, size_t len, int flags);
ssize_t weft_send(int fd, const void *buf, size_t len, int flags);
int weft_accept(int fd, struct sockaddr *addr, socklen_t *addrlen);
int weft_connect(int fd, const struct sockaddr *addr, socklen_t addrlen);

/* ---------------------------------------------------------------- any-wait */

typedef enum weft_clause_kind {
    WEFT_CLAUSE_FD = 1,     /* fd ready for events */
    WEFT_CLAUSE_IO = 2,     /* weft_io_wait(io, arg) would return */
    WEFT_CLAUSE_SIGNAL = 3, /* signal sig delivered (see weft/signal.h) */
} weft_clause_kind;

typedef struct weft_clause {
    weft_clause_kind kind; /* public */
    int fd;                /* public: FD */
    unsigned events;       /* public: FD */
    weft_io_t io;          /* public: IO */
    void *arg;             /* public: IO */
    int sig;               /* public: SIGNAL */
    int result;            /* read-only: FD ready events, else 0 */
} weft_clause;

/* Wait for the first of n clauses (or the deadline; a timer is simply the
 * deadline). Returns the index of the clause that fired; the others are
 * cancelled (their requests withdrawn). Clauses are tested in order, so
 * the lowest ready index wins when several are ready at once. An IO
 * request that became ready just as another clause won is withdrawn like
 * the others: test it again if it matters. A SIGNAL clause waits as
 * weft_sig_wait(sig) would, and never swallows a delivery it did not win
 * with: under WEFT_SIG_WAKE_ONE, a delivery that finds the wait already
 * won by another clause goes to the signal's next waiter or stays pending.
 * Errors: WEFT_EINVAL (a SIGNAL clause's signal unsupported or not set,
 * among others), WEFT_ETIMEDOUT, WEFT_ECANCELED (an IO clause's handle was
 * unregistered, or weft_sig_clear of a SIGNAL clause's signal), -EBADF and
 * other -errno of an FD clause.
 * Context: ULT or external. Blocks: yes. */
int weft_wait_any(weft_clause *clauses, int n, int64_t deadline);

/* --------------------------------------------------------------- statistics */

/* Latency buckets (wait start -> detection): bucket 0 is < 1 us, bucket i
 * (1..14) is [2^(i-1), 2^i) us, bucket 15 is >= 16.4 ms. */
#define WEFT_IO_HIST_BUCKETS 16

typedef struct weft_io_stats {
    uint64_t waits;               /* waits started */
    uint64_t polls;               /* poll() calls (epoll_wait calls for fds) */
    uint64_t detected_poll;       /* detections by polling (safe points,
                                     spinning workers, timed polls, naive
                                     waiters, weft_io_poll) */
    uint64_t detected_block;      /* detections by a thread asleep in the
                                     poll set, or a blocker thread */
    uint64_t detected_signal;     /* detections by the SIGIO dispatcher
                                     (fds in weft_fd_set_sigio mode) */
    uint64_t detected_immediate;  /* ready on the first test, no block */
    uint64_t timeouts;
    uint64_t latency_hist[WEFT_IO_HIST_BUCKETS]; /* wait start -> detection */
} weft_io_stats;

/* Copy the statistics of `h` (each counter exact, the set not a consistent
 * snapshot). Errors: WEFT_EINVAL. Context: any but signal. Blocks: no. */
int weft_io_get_stats(weft_io_t h, weft_io_stats *st);

/* Print every handle's statistics (the built-in "fd" class included) to
 * file descriptor `fd`; also done on stderr at exit when WEFT_IO_STATS=1.
 * Returns 0. Context: any but signal. Blocks: no. */
int weft_io_print_stats(int fd);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_IO_H */
