/* The I/O server's internal interface, shared by the files of src/io/.
 * Nothing above this layer includes it (the MPI shim sees include/ only).
 *
 * Objects:
 *   struct weft_io - an event class (a "handle"): user-registered (poll,
 *                    group, block callbacks, maybe a pollfd) or the
 *                    built-in fd class (weft_fd_wait and friends).
 *   wf_io_req      - one waiting request, on the waiter's stack; linked in
 *                    its owner's list (a handle's, or an fd record's)
 *                    while `queued`.
 *   the poll set   - one epoll set (pollset.c) holding every fd the server
 *                    watches: the fd class's fds, each handle's pollfd,
 *                    and an eventfd for interrupts. Whoever sleeps there
 *                    (one thread at a time) wakes for any event class.
 *
 * The routes by which a waiter is detected are tabled at the top of
 * include/weft/io.h: an idle worker (detect.c's poller entry: poll(0)
 * while it spins, then a sleep in the poll set), the server thread (in
 * the same set while every worker is busy; detect.c's policy, server.c's
 * thread), and a busy worker's safe points (detect.c's at_switch),
 * besides the waiter's own first test and weft_io_poll (request.c). A
 * class with block() and no pollfd has a blocker thread of its own.
 *
 * Files, each using only those above it in this list: registry.c (the
 * list, the strategy), stats.c, adapt.c (polling periods), pollset.c (the
 * epoll mechanism), request.c (requests, poll rounds), fdclass.c (fd
 * records), server.c (the server's threads), events.c (the set's events
 * to their owners, a sleep in the set), detect.c (the routes), class.c
 * (start-up, register, unregister), and the public calls on top: wait.c,
 * fd.c, sigio.c, any.c, pm2.c.
 *
 * Locks, outermost first (never taken in the other order):
 *   wf_io_reg_lock - the registry list of handles;
 *   h->lock        - a user handle's request list and its group()/poll()
 *                    calls; for the fd class only "a poll is in progress";
 *   fd record lock - an fd's request list and its arming (fdclass.c);
 *   the scheduler's run-queue locks (inside wf_wait_wake_urgent).
 * All are wf_lock locks (critical sections on workers). Safe points only
 * ever trylock, so a busy handle is skipped, never waited for.
 *
 * Request life cycle: a waiter links its request, then blocks. Whoever
 * detects it ready unlinks it (queued = 0) and wakes the waiter *while
 * still holding the owner's lock*; after the wake it never touches the
 * request again (the waiter may have returned). A waiter woken for another
 * reason (deadline, another clause, cancel) takes the owner's lock and
 * unlinks its request if still queued. h->users counts waiters inside a
 * wait on h, so that weft_io_unregister frees h only once they have all
 * left.
 */
#ifndef WF_IO_H
#define WF_IO_H

#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <time.h>
#include <weft/io.h>

#include "sched/sched.h"
#include "util/sanr.h"

/* Detection attribution (statistics). */
enum { WF_DET_IMMEDIATE, WF_DET_POLL, WF_DET_BLOCK, WF_DET_SIGNAL };

/* Polling period, fixed point: WF_IO_TICK_FP units per scheduler tick. */
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
} wf_io_req;

/* A queue of waiting requests, oldest first, guarded by its owner's lock. */
typedef struct wf_req_list {
    wf_io_req *head, *tail;
} wf_req_list;

/* Appends r to l and marks it queued. Does not block. */
void wf_req_list_push(wf_req_list *l, wf_io_req *r);
/* Removes a queued r from l and marks it not queued. Does not block. */
void wf_req_list_remove(wf_req_list *l, wf_io_req *r);

/* A kernel thread of the server's (server.c): the server thread, or a
 * class's blocker. It sleeps until engaged, then runs `round` while
 * `round` returns 1, and sleeps again. */
typedef struct wf_io_thread {
    uint32_t state;          /* atomic: WF_IOT_* */
    pthread_t pthread;
    int started;
    int (*round)(void *arg);  /* one detection round; 0: nothing left to do */
    int (*needed)(void *arg); /* asked again after disengaging */
    void *arg;
} wf_io_thread;

enum { WF_IOT_IDLE = 0, WF_IOT_ENGAGED = 1, WF_IOT_STOP = 2 };

struct weft_io {
    weft_io_params p;
    char name[32];
    void (*dtor)(void *ctx);   /* frees p.ctx at unregister (pm2.c) */
    int builtin;               /* the fd class: never unregistered */
    int lock;
    wf_req_list waiting;       /* guarded by lock */
    int nreq;                  /* atomic reads outside the lock */
    uint64_t gen;              /* bumped at every list change */
    int dead;                  /* unregistered; guarded by lock */
    int users;                 /* atomic: waiters inside a wait on h */
    int fd;                    /* the class's pollfd in the poll set, or -1 */
    int armed;                 /* atomic: fd armed (one-shot) in the set */
    int kicked;                /* atomic: weft_io_kick since the last poll */
    int asleep;                /* p.sleeping(ctx, 1) was called; under
                                  wf_io_reg_lock */
    /* polling period (adapt.c; relaxed atomics) */
    uint32_t period_fp, period_min, period_max;
    wf_sanr period_rule;
    int64_t last_poll_ns;
    wf_io_thread blocker;      /* a class with block() and no fd */
    int has_blocker;
    weft_io_stats st;          /* atomic increments */
    struct weft_io *reg_next;  /* guarded by wf_io_reg_lock */
};

static inline int64_t wf_io_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int wf_io_has_waiters(weft_io_t h)
{
    return __atomic_load_n(&h->nreq, __ATOMIC_SEQ_CST) > 0;
}

/* ------------------------------------------------------------ registry.c */

extern int wf_io_reg_lock;
extern struct weft_io *wf_io_registry;
extern int wf_io_nwaiting;     /* atomic: requests waiting, all handles */
extern int wf_io_nblocked;     /* atomic: those on classes with a blocker */

void wf_io_strategy_from_env(void);   /* WEFT_IO_STRATEGY */
weft_io_strategy wf_io_strategy(void);
void wf_io_strategy_set(weft_io_strategy s);
void wf_io_registry_add(weft_io_t h);
void wf_io_registry_remove(weft_io_t h);
/* 1 if h is on the registry list (registry lock held). */
int wf_io_registered(weft_io_t h);
void wf_io_enter_user(weft_io_t h);  /* users++ */
void wf_io_leave_user(weft_io_t h);  /* users-- */
weft_io_t wf_io_set_current(weft_io_t h); /* returns the previous one */
/* weft_io_idle_poll's flag for the calling kernel thread; returns the
 * previous value. */
int wf_io_set_idle_polling(int on);

/* --------------------------------------------------------------- class.c */

void wf_io_init(void);         /* idempotent: env, poll set, server thread */
/* Register a handle; `builtin` for the fd class. NULL if out of memory. */
weft_io_t wf_io_register_handle(const weft_io_params *p, void (*dtor)(void *), int builtin);
weft_io_t wf_io_fd_handle(void);        /* creates the fd class once */

/* --------------------------------------------------------------- adapt.c */

void wf_io_adapt_init(weft_io_t h);  /* the polling period */
void wf_io_adapt_period(weft_io_t h, int found);
/* Length of a scheduler tick (ns): the unit of classes' periods. */
int64_t wf_io_tick_ns(void);
/* Time between two polls of h at its current period (ns). */
int64_t wf_io_period_ns(weft_io_t h);

/* ------------------------------------------------------------- request.c */

/* Link r in user handle h (h->lock held): nreq, group(). */
void wf_io_link(weft_io_t h, wf_io_req *r);
/* Unlink r from h (h->lock held): nreq, group(). */
void wf_io_unlink(weft_io_t h, wf_io_req *r);
/* Poll h until nothing more is ready, waking what is found (h->lock
 * held). `own`, if found, counts as an immediate detection. */
int wf_io_poll_locked(weft_io_t h, int how, const wf_io_req *own);
/* One round of a user class: poll h unless another thread is polling it
 * (trylock). Returns how many were woken, or -1 if h was busy. */
int wf_io_poll_round(weft_io_t h, int how);
/* Record a round of h that found `found` ready (period adaptation). */
void wf_io_mark_polled(weft_io_t h, int found);
/* A blocker's block() returned idx (set generation gen before it). */
void wf_io_take_block_result(weft_io_t h, int idx, uint64_t gen);
/* Add r to h for a wait (the waiter's own test included). 0, or
 * WEFT_ECANCELED. */
int wf_io_req_add(weft_io_t h, wf_io_req *r);
/* Remove r from h if still queued. */
void wf_io_req_remove(weft_io_t h, wf_io_req *r);
/* Wake r's waiter (caller holds r's owner lock, r already unlinked). */
int wf_io_fire(weft_io_t h, wf_io_req *r, int how);

/* -------------------------------------------------------------- detect.c */

/* A wait on h was just published: make sure a route will detect it. */
void wf_io_cover(weft_io_t h);
/* Installs the scheduler hooks and the poller entry (idempotent). */
int wf_io_hooks_install(void);
/* Whether workers' polls (spins, switches) may detect h's waiters under
 * the current strategy. */
int wf_io_safe_points_poll(weft_io_t h);
/* Whether requests wait that the server thread (or a worker asleep in the
 * poll set) is to detect: any but those of classes with a blocker. */
int wf_io_server_waiting(void);
/* Poll every class with waiters that only polling detects and whose
 * period is due at `now`; returns how many were woken, and when the next
 * one falls due in *next (-1: none). */
int wf_io_poll_due(int64_t now, int how, int64_t *next);
/* The server thread: started once, engaged while waits need it. */
void wf_io_server_start(void);
void wf_io_server_engage(void);
int wf_io_server_engaged(void);

/* -------------------------------------------------------------- events.c */

/* A round of any class: a user class's poll round, or, for the fd class,
 * a check of the poll set whose events go to their owners. Registry lock
 * held. Returns how many were woken, or -1 if the class was busy. */
int wf_io_poll_class(weft_io_t h, int how);
/* Sleep in the poll set as `who` (a worker index, or
 * WF_IO_SLEEPER_SERVER) until an event, an interrupt or `deadline`
 * (absolute ns, -1: none), then give each event to its owner. Returns how
 * many waiters were woken, or -1 if another thread sleeps there. */
int wf_io_sleep_in_set(int64_t deadline, int who);

/* ------------------------------------------------------------- pollset.c */

#define WF_IO_SLEEPER_NONE (-1)
#define WF_IO_SLEEPER_SERVER (-2)
/* Low bit of a class's epoll data.ptr (fd records are aligned: bit 0). */
#define WF_IO_HANDLE_TAG ((uintptr_t)1)

/* Create the poll set once. 0, or WEFT_ENOMEM. */
int wf_io_set_init(void);
/* The set's epoll fd (fdclass.c arms its records there). */
int wf_io_set_epfd(void);
/* Add a handle's pollfd (armed, one-shot). 0 or -errno. */
int wf_io_set_add_handle(weft_io_t h);
void wf_io_set_remove_handle(weft_io_t h);
/* Arm h's fd again if an event disarmed it. */
void wf_io_set_arm(weft_io_t h);
/* Who sleeps in the set now (WF_IO_SLEEPER_*, or a worker index). */
int wf_io_set_sleeper(void);
/* Make the sleeper return. Any thread, not a signal handler. */
void wf_io_set_interrupt(void);
/* The set's events now, without sleeping (interrupts left out). */
int wf_io_set_check(struct epoll_event *ev, int max);
/* Claim the set for a sleep as `who`; 0 if another thread has it. */
int wf_io_set_claim(int who);
/* The claimant sleeps until an event, an interrupt or `deadline` and
 * returns the events (interrupts drained, left out); it still holds the
 * set. */
int wf_io_set_wait(struct epoll_event *ev, int max, int64_t deadline);
/* The claimant gives the set back. */
void wf_io_set_release(void);

/* -------------------------------------------------------------- server.c */

int wf_io_thread_start(wf_io_thread *t, const char *name);
void wf_io_thread_engage(wf_io_thread *t);
int wf_io_thread_engaged(wf_io_thread *t);
/* From t's round: sleep until `deadline` (-1: none) or a state change. */
void wf_io_thread_nap(wf_io_thread *t, int64_t deadline);
void wf_io_thread_stop(wf_io_thread *t);
/* A class with block() and no pollfd: its blocker thread. */
int wf_io_blocker_start(weft_io_t h);
void wf_io_blocker_engage(weft_io_t h);
void wf_io_blocker_stop(weft_io_t h);

/* ------------------------------------------------------------- fdclass.c */

/* The fd class's handle, once class.c created it. */
void wf_io_fd_class_init(weft_io_t h);
/* Arm r (events, reason, wait set) on fd. 0; WF_IO_FD_SIGIO if the fd is
 * in SIGIO mode (the caller kicks the dispatcher, wf_io_sigio_kick: the fd
 * may have become ready before r was linked); or -errno (EPERM: fd type
 * not pollable by epoll, e.g. a regular file: always ready). */
int wf_io_fd_add(int fd, wf_io_req *r);
#define WF_IO_FD_SIGIO 1
void wf_io_fd_remove(int fd, wf_io_req *r);
unsigned wf_io_fd_to_epoll(unsigned weft_events);
unsigned wf_io_fd_from_poll(unsigned revents, unsigned wanted);
/* One poll(2) of fd, no wait: ready WEFT_IO_* events, 0, or -EBADF. */
int wf_io_fd_test(int fd, unsigned events);
/* An event the poll set reported for a record (its epoll data.ptr):
 * wake the waiters whose events match, re-arm for the others. */
int wf_io_fd_dispatch(void *rec, unsigned revents, int how);
/* SIGIO mode of fd's record (sigio.c): on takes it out of the poll set,
 * off re-arms it for its waiters. 0 or a WEFT_E* code. */
int wf_io_fd_mark_sigio(int fd, int on);
/* poll(2) fd for its waiters' events, no wait, and wake those ready
 * (counted as `how`). Returns the number woken. */
int wf_io_fd_poll_one(int fd, int how);

/* --------------------------------------------------------------- sigio.c */

/* Make the SIGIO dispatcher run a round (a request was linked on a SIGIO
 * fd). Context: any, including a signal handler. */
void wf_io_sigio_kick(void);

/* ------------------------------------------------------------- stats.c */

/* delta 1 counts a detection, -1 takes it back (a waker that lost). */
void wf_io_stat_detect(weft_io_t h, int how, int64_t latency_ns, int delta);
void wf_io_stat_add(uint64_t *counter, uint64_t n);
void wf_io_stats_from_env(void);      /* WEFT_IO_STATS */
void wf_io_stats_at_exit(void);
/* Print h's statistics on fd (at exit, or when h is unregistered). */
void wf_io_stats_print_one(int fd, weft_io_t h);
extern int wf_io_stats_on;     /* WEFT_IO_STATS=1 */

#endif /* WF_IO_H */
