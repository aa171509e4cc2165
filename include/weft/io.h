/* Weft's I/O event server: the scheduler detects the events threads wait
 * for (messages, sockets, any pollable request) and wakes them.
 *
 * An event class is registered once with callbacks (PM2's
 * thread_IO_register); threads then wait with one blocking call
 * (weft_io_wait) that blocks only the calling user-level thread. The server
 * aggregates every waiting request of a handle: one `poll` serves them all.
 * How events are detected — polling at the scheduler's safe points, a
 * blocker kernel thread sitting in `block` (or epoll_wait for sockets), or
 * an adaptive mix — is chosen by the server, never by the caller.
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
    const char *name; /* for statistics and messages; copied */
    /* Test the waiting requests: -1 if none is ready, else the index of a
     * ready one, counted in WEFT_IO_FOR_EACH_REQUEST order (the order the
     * last group() call saw). Runs on a worker at a safe point, serialised
     * per handle; must not block. Required. */
    int (*poll)(void *ctx);
    /* The set of waiting requests changed (one was added or removed):
     * rebuild whatever poll() needs, typically with
     * WEFT_IO_FOR_EACH_REQUEST. Serialised with poll(). May be NULL. */
    void (*group)(void *ctx);
    /* Optional blocking detection, run on a blocker kernel thread: wait up
     * to timeout_ms (-1: no limit) for one of the waiting requests to be
     * ready; return its index as poll() does, or -1. */
    int (*block)(void *ctx, int timeout_ms);
    /* Scheduler ticks between two polls; 0 = at every safe point. */
    unsigned frequency;
    void *ctx; /* passed to the callbacks */
} weft_io_params;

/* Register an event class. Returns its handle, or WEFT_IO_NULL if p is
 * NULL, p->poll is NULL, or memory is short. Starts the runtime if needed.
 * Context: ULT or external. Blocks: no. */
weft_io_t weft_io_register(const weft_io_params *p);

/* Unregister `h`: threads still waiting on it return WEFT_ECANCELED.
 * Errors: WEFT_EINVAL (NULL). Context: ULT or external. Blocks: no. */
int weft_io_unregister(weft_io_t h);

/* Wait until the handle's callbacks report the request `arg` ready.
 * Blocks only the calling ULT (an external pthread sleeps in the kernel).
 * Returns 0 when ready. Errors: WEFT_EINVAL, WEFT_ECANCELED (unregistered).
 * Context: ULT or external. Blocks: yes. */
int weft_io_wait(weft_io_t h, void *arg);

/* weft_io_wait with an absolute deadline (weft_now() clock, WEFT_FOREVER,
 * or 0 to poll once). Errors: as weft_io_wait, plus WEFT_ETIMEDOUT.
 * Context: ULT or external. Blocks: yes. */
int weft_io_wait_until(weft_io_t h, void *arg, int64_t deadline);

/* Iteration over the waiting requests of `h`, for group()/poll()/block()
 * callbacks only: assigns each request's `arg` (as given to weft_io_wait)
 * to the pointer lvalue `arg` in turn. */
void *weft_io_request_first(weft_io_t h);
void *weft_io_request_next(weft_io_t h, void *it);
void *weft_io_request_arg(void *it);
#define WEFT_IO_FOR_EACH_REQUEST(h, arg)                                   \
    for (void *weft_io_it_ = weft_io_request_first(h);                     \
         weft_io_it_ && (((arg) = weft_io_request_arg(weft_io_it_)), 1);   \
         weft_io_it_ = weft_io_request_next((h), weft_io_it_))

/* The handle whose callback is running on this worker (for callbacks that
 * were registered without knowing their handle), or WEFT_IO_NULL. */
weft_io_t weft_io_current(void);

/* --------------------------------------------------------------- strategy */

typedef enum weft_io_strategy {
    WEFT_IO_ADAPTIVE = 0, /* default: poll first, then block; adapt period */
    WEFT_IO_POLLING = 1,  /* "enhanced polling": poll at safe points only */
    WEFT_IO_BLOCKING = 2, /* passive: blocker kernel threads at once */
    WEFT_IO_NAIVE = 3,    /* baseline: each waiter tests and yields */
} weft_io_strategy;

/* Set the process-wide detection strategy (also WEFT_IO_STRATEGY=adaptive|
 * polling|blocking|naive at start-up). For comparisons and experiments;
 * the default is right for applications. Errors: WEFT_EINVAL.
 * Context: any but signal. Blocks: no. */
int weft_io_set_strategy(weft_io_strategy s);
weft_io_strategy weft_io_get_strategy(void);

/* ---------------------------------------------------------- file descriptors */

#define WEFT_IO_READ  0x1u /* readable (or peer closed, or error) */
#define WEFT_IO_WRITE 0x4u /* writable */

/* Wait until `fd` is ready for `events` (WEFT_IO_READ | WEFT_IO_WRITE) or
 * `deadline` passes. Returns the ready events (> 0; errors and hang-ups
 * report as ready). Errors: WEFT_EINVAL, WEFT_ETIMEDOUT, -EBADF.
 * Context: ULT or external. Blocks: yes. */
int weft_fd_wait(int fd, unsigned events, int64_t deadline);

/* Blocking I/O that blocks only the calling ULT: the fd is used
 * non-blocking and the thread waits in weft_fd_wait when it would block.
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
 * cancelled. Errors: WEFT_EINVAL, WEFT_ETIMEDOUT, WEFT_ECANCELED.
 * Context: ULT or external. Blocks: yes. */
int weft_wait_any(weft_clause *clauses, int n, int64_t deadline);

/* --------------------------------------------------------------- statistics */

#define WEFT_IO_HIST_BUCKETS 16 /* latency buckets: < 1 us, < 2 us, ... x2 */

typedef struct weft_io_stats {
    uint64_t waits;               /* weft_io_wait calls */
    uint64_t polls;               /* poll() calls */
    uint64_t detected_poll;       /* detections by polling at safe points */
    uint64_t detected_block;      /* detections by a blocker thread */
    uint64_t detected_signal;     /* detections after SIGIO */
    uint64_t detected_immediate;  /* ready on the first test, no block */
    uint64_t timeouts;
    uint64_t latency_hist[WEFT_IO_HIST_BUCKETS]; /* wait start -> detection */
} weft_io_stats;

/* Copy the statistics of `h`. Errors: WEFT_EINVAL.
 * Context: any but signal. Blocks: no. */
int weft_io_get_stats(weft_io_t h, weft_io_stats *st);

/* Print every handle's statistics to file descriptor `fd` (also done at
 * exit when WEFT_IO_STATS=1). Errors: none. Context: any but signal. */
int weft_io_print_stats(int fd);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_IO_H */
