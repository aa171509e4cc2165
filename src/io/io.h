/* The I/O server's internal interface, shared by the files of src/io/.
 * Nothing above this layer includes it (the MPI shim sees include/ only).
 *
 * Objects:
 *   struct weft_io   - an event class (a "handle"): user-registered (poll,
 *                      group, block callbacks) or built in (fds, epoll);
 *                      what differs is its ops table (wf_io_ops).
 *   wf_io_req        - one waiting request, on the waiter's stack; it is
 *                      linked in its owner's list (a user handle's list, or
 *                      an fd record's list) while `queued`.
 *
 * Locks, outermost first (never taken in the other order):
 *   wf_io_reg_lock   - the registry list of handles;
 *   h->lock          - a user handle's request list, its group()/poll()
 *                      calls and its polling state (SANR window); for the
 *                      fd class only "a poll is in progress";
 *   fd record lock   - an fd's request list and epoll arming
 *                      (backend_epoll.c);
 *   the scheduler's run-queue locks (inside wf_wait_wake_urgent).
 * All are wf_lock spin locks (critical sections on workers). Safe points
 * only ever trylock, so a busy handle is skipped, never waited for.
 *
 * Request life cycle: a waiter links its request, then blocks. Whoever
 * detects it ready unlinks it (queued = 0) and wakes the waiter *while still
 * holding the owner's lock*; after the wake it never touches the request
 * again (the waiter may have returned). A waiter woken for another reason
 * (deadline, another clause, cancel) takes the owner's lock and unlinks its
 * request if still queued. h->users counts waiters inside a wait on h, so
 * that weft_io_unregister frees h only once they have all left.
 */
#ifndef WF_IO_H
#define WF_IO_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <weft/io.h>

#include "sched/sched.h"

/* Detection attribution (statistics). */
enum { WF_DET_IMMEDIATE, WF_DET_POLL, WF_DET_BLOCK, WF_DET_SIGNAL };

/* Blocker states (h->blk_state), see blocking.c. */
enum { WF_BLK_SLEEP = 0, WF_BLK_ENGAGED = 1, WF_BLK_STOP = 2 };

/* SANR polling period, fixed point: WF_IO_TICK_FP units per tick. */
#define WF_IO_TICK_FP 256u

typedef struct wf_io_req {
    struct wf_io_req *next, *prev; /* owner's list; guarded by its lock */
    wf_wait *wait;                 /* shared by all clauses of a wait */
    void *arg;                     /* IO: the caller's argument */
    int reason;                    /* wake reason on detection (clause) */
    int queued;                    /* 1 while linked; guarded by the lock */
    unsigned events;               /* FD: wanted, epoll bits */
    unsigned result;               /* FD: ready, WEFT_IO_* bits */
    int64_t start_ns;              /* wait start, for the latency */
    /* wake-path trace (trace.c), written by the detector before the wake */
    int64_t tr_fire, tr_engage, tr_enter, tr_ret;
    int tr_how, tr_fire_w;
} wf_io_req;

typedef struct wf_io_ops {
    /* One non-blocking detection round at a safe point (or by the poller):
     * test, wake what is ready. Returns the number woken, or -1 if the
     * handle was busy and skipped. Called without any handle lock. */
    int (*test)(weft_io_t h, int how);
    /* One blocking detection round, on the handle's blocker thread. */
    void (*block)(weft_io_t h);
} wf_io_ops;

struct weft_io {
    const wf_io_ops *ops;
    weft_io_params p;
    char name[32];
    void (*dtor)(void *ctx);   /* frees p.ctx at unregister (pm2.c) */
    int lock;
    wf_io_req *head, *tail;    /* waiting requests, oldest first */
    int nreq;                  /* atomic reads outside the lock */
    uint64_t gen;              /* bumped at every list change */
    int dead;                  /* unregistered; guarded by lock */
    int users;                 /* atomic: waiters inside a wait on h */
    int builtin;               /* the fd class: never unregistered */
    /* adaptation (adapt.c; relaxed atomics) and polling state */
    uint32_t period_fp, period_min, period_max;
    uint8_t win_empty, win_busy, spin_long, spin_short;
    int64_t spin_ns;
    int64_t wake_ns;           /* measured cost of a sleep (wf_io_adapt_wake) */
    int reports_wake;          /* atomic: block() has called weft_io_note_wake */
    uint64_t last_poll_tick;
    int64_t last_poll_ns;
    int64_t last_wait_ns;
    /* passive detection */
    int has_block;
    uint32_t blk_state;        /* WF_BLK_*; atomic */
    int wblock;                /* atomic: worker asleep in block(), or -1 (idle_block.c) */
    pthread_t blk_thread;
    int blk_started;
    int64_t tr_engage, tr_enter, tr_ret; /* trace.c: the blocker's last round */
    /* statistics, atomic increments */
    weft_io_stats st;
    struct weft_io *reg_next;  /* guarded by wf_io_reg_lock */
};

/* ------------------------------------------------------------ registry.c */

extern int wf_io_reg_lock;
extern struct weft_io *wf_io_registry;
extern int wf_io_nwaiting;     /* atomic: requests waiting, all handles */
extern int wf_io_nevery;       /* atomic: those on frequency-0 handles */
extern uint32_t wf_io_epoch;   /* atomic: bumped at each link/unlink and
                                  blocker disengagement (detect.c) */

void wf_io_init(void);         /* idempotent: env, hooks, poller thread */
weft_io_strategy wf_io_strategy(void);
int64_t wf_io_spin_ns(void);
int wf_io_spin_explicit(void); /* 1 if WEFT_IO_SPIN_US was set */
/* Register a handle with given ops (NULL: the user ops of wait.c). */
weft_io_t wf_io_register_ops(const weft_io_params *p, const wf_io_ops *ops,
                             void (*dtor)(void *));
void wf_io_enter_user(weft_io_t h);  /* users++ */
void wf_io_leave_user(weft_io_t h);  /* users-- */
weft_io_t wf_io_set_current(weft_io_t h); /* returns the previous one */

static inline int64_t wf_io_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---------------------------------------------------------- idle_block.c */

/* In idle_deadline (wf_io_reg_lock held): 1 if the calling worker will
 * sleep in h's block() instead of engaging h's blocker. */
int wf_io_idle_claim(weft_io_t h);
/* Whether h may be served that way (adaptive, block and unblock given). */
int wf_io_idle_qualifies(weft_io_t h);
/* 1 while a worker sleeps (or is about to) in h's block(). */
int wf_io_watched(weft_io_t h);
/* Engage h's blocker unless a worker sleeps in its block(). */
void wf_io_engage_unwatched(weft_io_t h);
/* The scheduler's idle_block and idle_interrupt hooks. */
int wf_io_idle_block(int64_t deadline);
void wf_io_idle_interrupt(int index);
/* The calling worker drops a claim it did not use (it is awake). */
void wf_io_idle_release(void);
/* 1 once if the calling worker just woke from h's block(): poll h now,
 * spin budget or not. */
int wf_io_idle_woke_from(weft_io_t h);
/* Unregister (h out of the registry): wait until no worker is in h's
 * block() and no interrupt is on its way to it. */
void wf_io_idle_quiesce(weft_io_t h);

/* 1 on a kernel thread while detect.c's idle_poll runs poll callbacks
 * (weft_io_idle_poll). */
extern __thread int wf_io_idle_polling;

/* ---------------------------------------------------------------- wait.c */

#define WF_IO_BLOCK_SLICE_MS 100 /* block() timeout: bounds unregister's wait */

extern const wf_io_ops wf_io_user_ops;
/* Run h's block() for at most one slice, as h's current callback and with
 * the trace stamps (blocker thread or idle worker); returns its result. */
int wf_io_call_block(weft_io_t h);
/* Link r in user handle h (h->lock held): nreq, group(). */
void wf_io_link(weft_io_t h, wf_io_req *r);
/* Unlink r from h (h->lock held): nreq, group(). */
void wf_io_unlink(weft_io_t h, wf_io_req *r);
/* Poll h until nothing more is ready, waking what is found (h->lock
 * held). `own`, if found, counts as an immediate detection. */
int wf_io_poll_locked(weft_io_t h, int how, const wf_io_req *own);
/* Add r to h for a wait (immediate test included). 0, or WEFT_ECANCELED. */
int wf_io_req_add(weft_io_t h, wf_io_req *r);
/* Remove r from h if still queued. */
void wf_io_req_remove(weft_io_t h, wf_io_req *r);
/* Wake r's waiter (caller holds r's owner lock, r already unlinked). */
int wf_io_fire(weft_io_t h, wf_io_req *r, int how);

/* -------------------------------------------------------------- detect.c */

/* Served by the safe points / poller in the current strategy? */
int wf_io_poll_served(weft_io_t h);
/* Round of polling of h from a safe point or the poller (SANR update). */
int wf_io_poll_round(weft_io_t h, int how);
/* After publishing a request on h: hand over per strategy. */
void wf_io_after_publish(weft_io_t h);
/* Until when (ns) a waiter on h, whose wait started at `start`, may poll
 * h itself before parking; 0 if it must park at once. */
int64_t wf_io_in_place_until(weft_io_t h, int64_t start);
/* The poller's safety net: engage the blocker of every handle whose
 * waiters nobody polls (no idle worker awake) while it sleeps. Returns 1
 * if some blocker-served handle had waiters and a sleeping blocker. */
int wf_io_check_unattended(void);
/* 1 if some worker is idle and awake: it polls every poll-served handle
 * with waiters about every microsecond (idle_poll). */
int wf_io_idle_worker_polls(void);
int wf_io_hooks_install(void);
int64_t wf_io_tick_ns(void);

/* --------------------------------------------------------------- adapt.c */

void wf_io_adapt_init(weft_io_t h);  /* period and spin budget */
void wf_io_adapt_period(weft_io_t h, int found);
void wf_io_adapt_spin(weft_io_t h, int64_t latency_ns);
/* One measured wake-up lag of a block() (event -> seen); raises or lowers
 * the spin budget's floor. */
void wf_io_adapt_wake(weft_io_t h, int64_t lag_ns);

/* ------------------------------------------------------------ blocking.c */

int wf_io_blocker_start(weft_io_t h);   /* for handles with block */
void wf_io_blocker_stop(weft_io_t h);
void wf_io_engage(weft_io_t h);         /* wake h's blocker */
void wf_io_poller_start(void);
void wf_io_poller_kick(void);           /* a poll-served handle has waiters */

/* ------------------------------------------------------- backend_epoll.c */

weft_io_t wf_io_fd_handle(void);        /* creates the epoll set once */
/* Arm r (events, reason, wait set) on fd. 0, or -errno (EPERM: fd type
 * not pollable by epoll, e.g. a regular file: always ready). */
int wf_io_fd_add(int fd, wf_io_req *r);
void wf_io_fd_remove(int fd, wf_io_req *r);
unsigned wf_io_fd_to_epoll(unsigned weft_events);
unsigned wf_io_fd_from_poll(unsigned revents, unsigned wanted);
/* One poll(2) of fd, no wait: ready WEFT_IO_* events, 0, or -EBADF. */
int wf_io_fd_test(int fd, unsigned events);
/* SIGIO mode of fd's record (sigio.c): on takes it out of the epoll set,
 * off re-arms it for its waiters. 0 or a WEFT_E* code. */
int wf_io_fd_mark_sigio(int fd, int on);
/* poll(2) fd for its waiters' events, no wait, and wake those ready
 * (counted as `how`). Returns the number woken. */
int wf_io_fd_poll_one(int fd, int how);

/* --------------------------------------------------------------- sigio.c */

/* Make the SIGIO dispatcher run a round (a request was linked on a SIGIO
 * fd). Context: any, including a signal handler. */
void wf_io_sigio_kick(void);

/* ------------------------------------------------------------- trace.c */

extern int wf_io_tracing;      /* WEFT_IO_TRACE set; read relaxed */
void wf_io_trace_init(void);   /* at start-up: reads WEFT_IO_TRACE */
/* Record r's detection (before its waiter is woken). */
void wf_io_trace_fire(weft_io_t h, wf_io_req *r, int how);
/* The waiter of r runs again: keep r's timestamps. */
void wf_io_trace_done(weft_io_t h, const wf_io_req *r);
/* Timestamp one step of h's blocker (field: tr_engage, tr_enter, tr_ret). */
static inline void wf_io_trace_stamp(int64_t *field)
{
    if (__atomic_load_n(&wf_io_tracing, __ATOMIC_RELAXED))
        __atomic_store_n(field, wf_io_now(), __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------- stats.c */

/* delta 1 counts a detection, -1 takes it back (a waker that lost). */
void wf_io_stat_detect(weft_io_t h, int how, int64_t latency_ns, int delta);
void wf_io_stat_add(uint64_t *counter, uint64_t n);
void wf_io_stats_at_exit(void);
/* Print h's statistics on fd (at exit, or when h is unregistered). */
void wf_io_stats_print_one(int fd, weft_io_t h);
extern int wf_io_stats_on;     /* WEFT_IO_STATS=1 */

#endif /* WF_IO_H */
