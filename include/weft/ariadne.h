/* ARIADNE's names for Weft's timers, signals, hooks and time slices, so
 * that code written against the interface of "Signals, timers, and
 * continuations for multithreaded user-level protocols" (Gomez, Ramos,
 * Rego) compiles and runs unchanged. Opt-in: not included by <weft.h>,
 * because it defines short macro names (REAL, EXEC, ALL, ...).
 *
 * Mapping (ARIADNE -> Weft):
 *   a_sleep(s, u, t)           weft_sleep (REAL); EXEC sleeps until the
 *                              process has used that much more CPU time
 *   a_schevnt(fn, p, tv, fl)   weft_event_at / weft_event_after
 *   a_deschevnt(ev)            weft_event_cancel + weft_event_release
 *   a_cnclevnt_rt/_vt(p)       weft_event_cancel_arg on the REAL/CPU queue
 *   a_setsig / a_clearsig      weft_sig_set / weft_sig_clear (wake-all)
 *   a_raisesig / a_waitsig     weft_sig_raise / weft_sig_wait
 *   a_setschdf / a_setdschdf   weft_thread_set_pre_hook / _post_hook
 *   a_defslice(t, p, s, u)     weft_prio_set_slice (p == ALL: every level)
 *   a_clearslice()             weft_prio_clear_slice on every level
 *   a_initslice()              every level sliced with the default quantum
 *
 * Flags of a_schevnt (OR-ed; the host priority goes in the upper half,
 * pr << 16): ABSEVNT / RELEVNT (absolute / relative time), PRIEVNT (thread-
 * bound, delay-sensitive: a host thread of its own), MPREVNT (thread-bound,
 * delay-tolerant: may share a host), neither (a plain function, which must
 * not block), RTQEVNT / VTQEVNT (real-time / CPU-time queue). OPTEVNT is a
 * Weft extension: an optimistic handler (a function until it blocks).
 *
 * Each name has the context, blocking behaviour and errors of the Weft
 * call it maps to (the headers in include/weft/); those ARIADNE declares void drop
 * Weft's error code, as ARIADNE had none to give.
 *
 * Differences, all documented where they apply:
 *   - priorities: ARIADNE's 0..8 map onto Weft's 0..7 (8 becomes 7);
 *   - absolute real times are time-of-day (gettimeofday) as in ARIADNE and
 *     are converted to the monotonic clock when the event is scheduled;
 *     absolute CPU times are process CPU time (weft_cpu_now);
 *   - a_defslice's timer type is accepted but Weft slices on real time
 *     (a running thread's real and CPU time advance together);
 *   - memory: the record behind a handle from a_schevnt is freed by
 *     a_deschevnt; an event that is never passed to a_deschevnt keeps its
 *     ~100-byte record for the life of the process (use weft_event_after
 *     with out == NULL for fire-and-forget events). a_setschdf/a_setdschdf
 *     allocate a 3-word record per call, kept until the process exits
 *     (ARIADNE's hooks take one argument, Weft's two: the record adapts).
 */
#ifndef WEFT_ARIADNE_H
#define WEFT_ARIADNE_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/time.h>
#include <weft/signal.h>
#include <weft/sync.h>
#include <weft/thread.h>
#include <weft/timer.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- constants */

#define REAL 0    /* real-time timer (SIGALRM in ARIADNE) */
#define EXEC 1    /* virtual (CPU-time) timer (SIGVTALRM in ARIADNE) */
#define ALL  (-1) /* every priority level (a_defslice) */

#define ABSEVNT 0x01UL /* t is an absolute time */
#define RELEVNT 0x02UL /* t is relative to now */
#define PRIEVNT 0x04UL /* delay-sensitive thread-bound event */
#define MPREVNT 0x08UL /* delay-tolerant thread-bound event */
#define RTQEVNT 0x10UL /* real-time event queue */
#define VTQEVNT 0x20UL /* CPU-time event queue */
#define OPTEVNT 0x40UL /* Weft: optimistic event handler */

#define RTEQ WEFT_QUEUE_REAL /* the queues a_cnclevnt_* look in */
#define VTEQ WEFT_QUEUE_CPU

/* ARIADNE's thread control block; a weft_thread_t converts to it. */
struct tca;

/* ------------------------------------------------------- helpers (private) */

static inline int weft_ariadne_prio(long p)
{
    return p < WEFT_PRIO_MIN ? WEFT_PRIO_MIN : p > WEFT_PRIO_MAX ? WEFT_PRIO_MAX : (int)p;
}

static inline int64_t weft_ariadne_ns(unsigned long s, unsigned long u)
{
    return (int64_t)s * 1000000000 + (int64_t)u * 1000;
}

static inline void weft_ariadne_post_sem(void *sem)
{
    weft_sem_post((weft_sem_t *)sem);
}

/* Block until the process has used `ns` more nanoseconds of CPU time. */
static inline void weft_ariadne_cpu_sleep(int64_t ns)
{
    weft_sem_t sem;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.queue = WEFT_QUEUE_CPU;
    weft_sem_init(&sem, 0);
    if (weft_event_after(NULL, ns, &a, weft_ariadne_post_sem, &sem) == 0)
        weft_sem_wait(&sem);
    weft_sem_destroy(&sem);
}

static inline void weft_ariadne_event_attr(weft_event_attr *a, unsigned long fl)
{
    weft_event_attr_init(a);
    a->queue = (fl & VTQEVNT) ? WEFT_QUEUE_CPU : WEFT_QUEUE_REAL;
    a->priority = weft_ariadne_prio((long)(fl >> 16));
    if (fl & (PRIEVNT | MPREVNT)) {
        a->kind = WEFT_EVENT_THREAD;
        a->delay_sensitive = (fl & PRIEVNT) != 0;
    } else if (fl & OPTEVNT) {
        a->kind = WEFT_EVENT_OPTIMISTIC;
    }
}

/* An absolute ARIADNE time on `queue`'s clock, as Weft wants it. */
static inline int64_t weft_ariadne_abs(int64_t t, weft_event_queue queue)
{
    struct timeval now;
    if (queue == WEFT_QUEUE_CPU)
        return t;
    gettimeofday(&now, NULL);
    return weft_now() + (t - weft_ariadne_ns((unsigned long)now.tv_sec,
                                             (unsigned long)now.tv_usec));
}

static inline void *weft_ariadne_exdp(weft_event_queue queue, void *p)
{
    static char cancelled; /* a non-NULL answer; ARIADNE returns the record */
    return weft_event_cancel_arg(queue, p) == 1 ? (void *)&cancelled : NULL;
}

/* Pre/post hooks: ARIADNE's take (void *), Weft's (thread, void *). */
typedef struct weft_ariadne_hook {
    struct weft_ariadne_hook *next;
    void (*fn)(void *);
    void *arg;
} weft_ariadne_hook;

static inline void weft_ariadne_call_hook(weft_thread_t t, void *rec)
{
    weft_ariadne_hook *h = (weft_ariadne_hook *)rec;
    (void)t;
    h->fn(h->arg);
}

/* A new record, chained on a list so that it stays reachable. */
static inline weft_ariadne_hook *weft_ariadne_hook_new(void (*f)(void *), void *p)
{
    static weft_ariadne_hook *all;
    weft_ariadne_hook *h = (weft_ariadne_hook *)malloc(sizeof *h);
    if (!h)
        return NULL;
    h->fn = f;
    h->arg = p;
    h->next = __atomic_load_n(&all, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(&all, &h->next, h, 0, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED))
        ;
    return h;
}

static inline int weft_ariadne_set_hook(int post, struct tca *t, void (*f)(void *), void *p)
{
    weft_thread_t th = (weft_thread_t)(void *)t;
    weft_ariadne_hook *h = f ? weft_ariadne_hook_new(f, p) : NULL;
    if (f && !h)
        return WEFT_ENOMEM;
    if (post)
        return weft_thread_set_post_hook(th, h ? weft_ariadne_call_hook : NULL, h);
    return weft_thread_set_pre_hook(th, h ? weft_ariadne_call_hook : NULL, h);
}

/* ------------------------------------------------------------ time slices */

/* Time-slice level p (or ALL levels) with a quantum of s seconds and u
 * microseconds; t (REAL or EXEC) is accepted, Weft slices on real time. */
static inline void a_defslice(int t, int p, unsigned long s, unsigned long u)
{
    int64_t q = weft_ariadne_ns(s, u);
    (void)t;
    if (q > 0 && q < 10000)
        q = 10000; /* Weft's smallest quantum: 10 us */
    if (p != ALL) {
        weft_prio_set_slice(weft_ariadne_prio(p), q);
        return;
    }
    for (int l = WEFT_PRIO_MIN; l <= WEFT_PRIO_MAX; l++)
        weft_prio_set_slice(l, q);
}

/* Stop time-slicing at every level. */
static inline void a_clearslice(void)
{
    for (int l = WEFT_PRIO_MIN; l <= WEFT_PRIO_MAX; l++)
        weft_prio_clear_slice(l);
}

/* Every level time-sliced with the default quantum (Weft's start state). */
static inline void a_initslice(void)
{
    for (int l = WEFT_PRIO_MIN; l <= WEFT_PRIO_MAX; l++)
        weft_prio_set_slice(l, 0);
}

/* ---------------------------------------------------------- timed events */

/* Suspend the calling thread for s seconds and u microseconds, measured on
 * the REAL or the EXEC (process CPU time) timer. */
static inline void a_sleep(unsigned long s, unsigned long u, int t)
{
    if (t == EXEC)
        weft_ariadne_cpu_sleep(weft_ariadne_ns(s, u));
    else
        weft_sleep(weft_ariadne_ns(s, u));
}

/* Schedule fn(p) at time *t as flags `fl` say; returns the event (for
 * a_deschevnt), or NULL if it could not be scheduled. */
static inline void *a_schevnt(void (*fn)(void *), void *p, struct timeval *t,
                              unsigned long fl)
{
    weft_event_attr a;
    weft_event_t ev = WEFT_EVENT_NULL;
    int64_t when = weft_ariadne_ns((unsigned long)t->tv_sec, (unsigned long)t->tv_usec);
    int rc;
    weft_ariadne_event_attr(&a, fl);
    if (fl & ABSEVNT)
        rc = weft_event_at(&ev, weft_ariadne_abs(when, a.queue), &a, fn, p);
    else
        rc = weft_event_after(&ev, when, &a, fn, p);
    return rc == 0 ? (void *)ev : NULL;
}

/* Cancel an event from a_schevnt: non-NULL if it was cancelled before it
 * ran, NULL if it had already run (or p is NULL). Frees its record. */
static inline void *a_deschevnt(void *p)
{
    weft_event_t ev = (weft_event_t)p;
    if (!ev)
        return NULL;
    int cancelled = weft_event_cancel(ev) == 1;
    weft_event_release(ev);
    return cancelled ? p : NULL;
}

#define a_schevnt_r_t(f, p, pr, t) \
    a_schevnt(f, p, t, (((unsigned long)(pr) << 16) | PRIEVNT | RELEVNT | RTQEVNT))
#define a_schevnt_r_vt(f, p, pr, t) \
    a_schevnt(f, p, t, (((unsigned long)(pr) << 16) | PRIEVNT | RELEVNT | VTQEVNT))
#define a_schevnt_a_rt(f, p, pr, t) \
    a_schevnt(f, p, t, (((unsigned long)(pr) << 16) | PRIEVNT | ABSEVNT | RTQEVNT))
#define a_schevnt_a_vt(f, p, pr, t) \
    a_schevnt(f, p, t, (((unsigned long)(pr) << 16) | PRIEVNT | ABSEVNT | VTQEVNT))
/* The paper's list also spells it this way. */
#define a_schevnt_a_r_t(f, p, pr, t) a_schevnt_a_rt(f, p, pr, t)

/* Cancel the earliest pending event whose parameter is p on the real-time
 * (rt) or CPU-time (vt) queue: non-NULL if one was cancelled, else NULL. */
#define a_cnclevnt_rt(p) weft_ariadne_exdp(RTEQ, (void *)(p))
#define a_cnclevnt_vt(p) weft_ariadne_exdp(VTEQ, (void *)(p))
#define a_cnclevnt_r_t(p) a_cnclevnt_rt(p) /* the paper's list spelling */

/* --------------------------------------------------------------- signals */

static inline void a_setsig(int sig)   { (void)weft_sig_set(sig); }
static inline void a_clearsig(int sig) { (void)weft_sig_clear(sig); }
static inline void a_raisesig(int sig) { (void)weft_sig_raise(sig); }
static inline void a_waitsig(int sig)  { (void)weft_sig_wait(sig); }

/* ----------------------------------------------- pre/post-execution hooks */

/* Run f(p) just before thread t runs, each time it is given control. */
static inline int a_setschdf(struct tca *t, void (*f)(void *), void *p)
{
    return weft_ariadne_set_hook(0, t, f, p);
}

/* Run f(p) each time thread t yields control or is preempted. */
static inline int a_setdschdf(struct tca *t, void (*f)(void *), void *p)
{
    return weft_ariadne_set_hook(1, t, f, p);
}

#ifdef __cplusplus
}
#endif
#endif /* WEFT_ARIADNE_H */
