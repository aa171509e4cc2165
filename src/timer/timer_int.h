/* Private to src/timer/: the timer queues, the heap and argument map they
 * are made of, the timer service, the host pool and the event internals.
 *
 * Locks, from outer to inner (never taken the other way round):
 *   fire_lock   (fire.c) serialises the firing of expired nodes, so
 *               FUNCTION events run one at a time, in deadline order;
 *   q->lock     (one per queue) guards the queue's heap, argument map,
 *               sequence counter and event count;
 *   pool_lock   (host.c) guards the host pool and its event FIFOs; also
 *               taken by the hosts' post-execution hook, on the switch path
 *               (no scheduler lock is held there; the hook then wakes a
 *               host, which takes run-queue locks inside it).
 * All three are wf_lock spin locks (a runtime critical section on a
 * worker). No lock is held while an event's function runs, except
 * fire_lock for FUNCTION events.
 */
#ifndef WF_TIMER_INT_H
#define WF_TIMER_INT_H

#include <stdint.h>

#include "timer/timer.h"

#define WF_NO_DEADLINE INT64_MAX

/* What a queued wf_tnode is (wf_tnode.type). */
enum { WF_TN_TIMEOUT = 1, WF_TN_EVENT = 2 };

/* ------------------------------------------------------------ theap.c */

/* A 4-ary min-heap of nodes ordered by (deadline, seq). Entries keep the
 * deadline beside the pointer, so a comparison touches no node. */
typedef struct wf_theap_ent {
    int64_t key;
    wf_tnode *node;
} wf_theap_ent;

typedef struct wf_theap {
    wf_theap_ent *ent; /* slot i lives at ent[i]; see theap.c for layout */
    void *mem;         /* the allocation behind ent */
    int64_t n, cap;
} wf_theap;

int wf_theap_insert(wf_theap *h, wf_tnode *n);  /* 0 or WEFT_ENOMEM */
void wf_theap_remove(wf_theap *h, wf_tnode *n); /* n must be in h */
wf_tnode *wf_theap_min(const wf_theap *h);      /* NULL if empty */
void wf_theap_free(wf_theap *h);                /* h must be empty */

/* ----------------------------------------------------------- argmap.c */

struct weft_event;

/* Events of one queue by argument (ARIADNE's cancel by parameter): a hash
 * of intrusive singly linked chains, resized incrementally. Guarded by the
 * queue lock. */
typedef struct wf_argmap {
    struct weft_event **tab[2]; /* tab[1] only while a resize is running */
    uint64_t mask[2];           /* bucket count - 1 */
    uint64_t count;
    uint64_t moved;             /* buckets of tab[0] already moved */
} wf_argmap;

int wf_argmap_add(wf_argmap *m, struct weft_event *e); /* 0 or WEFT_ENOMEM */
void wf_argmap_del(wf_argmap *m, struct weft_event *e);
/* The pending event with argument `arg` and the smallest (deadline, seq). */
struct weft_event *wf_argmap_earliest(wf_argmap *m, void *arg);
void wf_argmap_free(wf_argmap *m); /* m must be empty */

/* ----------------------------------------------------------- tqueue.c */

typedef struct wf_tqueue {
    int lock;
    wf_theap heap;
    wf_argmap args;
    uint64_t seq;
    int64_t nevents; /* events (not timeouts) queued; atomic reads */
    int64_t next;    /* earliest deadline or WF_NO_DEADLINE; atomic */
} wf_tqueue;

extern wf_tqueue wf_tq[2]; /* indexed by weft_event_queue */

/* The clock of queue `q`. */
int64_t wf_tq_clock(int q);

/* Insert `n` (n->deadline and n->queue set). Lock held. Returns 1 if it is
 * now the earliest node of its queue, 0 if not, WEFT_ENOMEM. */
int wf_tq_insert_locked(wf_tqueue *q, wf_tnode *n);
/* Remove `n` (queued in q). Lock held. */
void wf_tq_remove_locked(wf_tqueue *q, wf_tnode *n);
/* Pop up to `max` nodes due at `now` into out[]; each is handed to its
 * type's claim function (still under the lock). Returns how many. */
int wf_tq_pop_due(wf_tqueue *q, int64_t now, wf_tnode **out, int max);
/* Free the memory of empty queues (at shut-down). */
void wf_tq_release_memory(void);
/* Nodes of any kind queued on both queues (a snapshot). */
int64_t wf_tq_total(void);

/* ------------------------------------------------------------- fire.c */

/* Start the timer layer (hooks, service thread) if it is not running.
 * Cheap when running. Returns 0 or a WEFT_E* code (the layer then retries
 * at the next call; queued nodes still fire at switches and idle time). */
int wf_timer_ensure_started(void);
/* Fire every node of queue q due by its clock, in deadline order. Returns
 * how many fired, or -1 if another context is firing (it fires them). */
int wf_timer_fire_due(int q);
/* When to look again after a -1 from wf_timer_fire_due. */
int64_t wf_timer_busy_retry(void);
/* Workers in their idle loop (a snapshot). */
int wf_timer_idle_workers(void);
/* 1 while the calling kernel thread runs a FUNCTION event. */
int wf_timer_in_function(void);
void wf_timer_set_in_function(int on);
/* Abort with "weft: timer: <message>". */
_Noreturn void wf_timer_fatal(const char *msg);

/* ---------------------------------------------------------- service.c */

int wf_svc_start(void); /* 0 or -errno of pthread_create */
void wf_svc_stop(void);
/* A node earlier than every other of queue q was queued: make the service
 * thread look again (not needed when the caller is the service itself). */
void wf_timer_poke(int q, int64_t deadline);
/* The kernel's recent wake-up lateness for a timed sleep (an EWMA), ns. */
int64_t wf_svc_lateness(void);
/* Make the service run a round now (e.g. for wf_host_maintain). */
void wf_svc_kick(void);

/* ---------------------------------------------------------- timeout.c */

/* Called under the queue lock when a timeout node is popped as due. */
void wf_timeout_claim(wf_tnode *n);
/* Called without locks, after the claim: wake the waiter. */
void wf_timeout_fire(wf_tnode *n);

/* ------------------------------------------------------------ event.c */

/* Event states (weft_event.state). Moves under the queue lock while the
 * event is queued; by compare-and-swap once it has been popped. */
enum { EV_PENDING = 0, EV_QUEUED, EV_RUNNING, EV_DONE, EV_CANCELLED };

struct weft_event {
    wf_tnode node;
    void (*fn)(void *);
    void *arg;
    struct weft_event *hnext;           /* argmap chain; queue lock */
    struct weft_event *fnext;           /* host FIFO; pool lock */
    int kind, prio, sensitive;          /* from the attribute */
    uint32_t state;                     /* EV_*; atomic */
    uint32_t refs;                      /* queue/host + the caller's handle */
};

/* Under the queue lock, when the event is popped as due. */
void wf_event_claim(wf_tnode *n);
/* After the claim, no lock held: run it here or hand it to a host. */
void wf_event_fire(wf_tnode *n);
/* Run a fired THREAD or OPTIMISTIC event on the calling host thread, at
 * its priority, unless it was cancelled meanwhile; drops the queue's
 * reference. */
void wf_event_run_hosted(struct weft_event *e);

/* ------------------------------------------------------------- host.c */

/* Hand a fired THREAD or OPTIMISTIC event to a host thread. */
void wf_host_submit(struct weft_event *e);
/* Run by the service thread at every round: create the runner host that a
 * promotion asked for (hooks may not create threads). Cheap otherwise. */
void wf_host_maintain(void);
/* Stop every host thread and free the pool, once submitted events have
 * finished (waits up to 100 ms for them). Returns WEFT_EBUSY (and stops
 * nothing) if one still runs. Context: a ULT other than a host. */
int wf_host_stop_all(void);

/* ------------------------------------------------------------ clock.c */

/* Timer slack of the calling kernel thread down to 1 ns (once per thread):
 * a futex or nanosleep deadline then expires when asked, not up to 50 us
 * later (the Linux default). */
void wf_timer_precise_slack(void);
/* Sleep the calling kernel thread until weft_now() >= deadline. */
void wf_timer_kernel_sleep_until(int64_t deadline);

#endif /* WF_TIMER_INT_H */
