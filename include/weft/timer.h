/* Weft time: a monotonic clock, sleeps that block only the calling
 * user-level thread, and timed events (ARIADNE's a_schevnt family).
 *
 * Times are int64_t nanoseconds on CLOCK_MONOTONIC. Blocking calls take an
 * absolute deadline; WEFT_FOREVER waits forever, 0 tries once.
 *
 * Precision. Expiry is detected at every context switch, by idle workers
 * (which sleep exactly until the next deadline) and by a timer service
 * kernel thread that sleeps until the earliest deadline, so it does not
 * depend on how often threads switch: a sleeping ULT is typically woken
 * 5-30 us after its deadline, even with every worker busy computing (the
 * wake-up preempts a compute thread). Nothing fires early. Events on the
 * CPU-time queue are polled (Linux CPU-time timers cannot be relied on):
 * they fire at most ~100 us x (number of CPUs) of CPU time late.
 *
 * Capacity: a million pending events and more; arming and cancelling cost
 * ~100 ns each, nearly independent of how many are pending (a 4-ary heap
 * plus a hash of arguments).
 *
 * Shut-down: weft_fini() fails with WEFT_EBUSY while timed events are
 * pending or a THREAD/OPTIMISTIC event is still running (cancel or let
 * them finish first); otherwise it stops the layer's helper threads.
 */
#ifndef WEFT_TIMER_H
#define WEFT_TIMER_H

#include <stdint.h>
#include <weft/errno.h>
#include <weft/thread.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_FOREVER ((int64_t)-1)

/* Current CLOCK_MONOTONIC time in nanoseconds. Context: any (signal too).
 * Blocks: no. */
int64_t weft_now(void);

/* Current CPU time of the calling process in nanoseconds
 * (CLOCK_PROCESS_CPUTIME_ID: every thread of the process; the clock of the
 * CPU-time event queue). A system call, ~0.5 us. Context: any.
 * Blocks: no. */
int64_t weft_cpu_now(void);

/* Block the calling ULT for at least `ns` nanoseconds (never returns
 * early); its worker runs other threads meanwhile, and the ULT runs again
 * at raised priority as soon as the time has come. From an external thread
 * it sleeps the kernel thread (clock_nanosleep on an absolute deadline,
 * 1 ns timer slack). ns <= 0 returns at once. Calling it from a
 * WEFT_EVENT_FUNCTION event aborts the process with a message.
 * Errors: none (returns 0). Context: ULT or external. Blocks: yes. */
int weft_sleep(int64_t ns);

/* Block the calling ULT until weft_now() >= deadline (as weft_sleep; a
 * deadline already past returns at once).
 * Errors: none (returns 0). Context: ULT or external. Blocks: yes. */
int weft_sleep_until(int64_t deadline);

/* ------------------------------------------------------------ timed events */

typedef struct weft_event *weft_event_t;
#define WEFT_EVENT_NULL ((weft_event_t)0)

/* How an event's function runs when its time comes. */
typedef enum weft_event_kind {
    /* A plain function, on whatever stack detects the expiry: the thread
     * resuming at a context switch, an idle worker (64 KiB stack) or the
     * timer service thread. FUNCTION events run one at a time, in deadline
     * order; each must be short and must not block, yield or wait (it may
     * arm, cancel, post semaphores, unlock mutexes). A switch while one
     * runs, or weft_sleep from one, aborts with a message. */
    WEFT_EVENT_FUNCTION = 0,
    /* Runs on a pooled host ULT at the attribute's priority; may block.
     * Delay-sensitive events get a host of their own; delay-tolerant ones
     * share one host, in deadline order (at most 32 queued behind it;
     * beyond that a new one gets its own host). A host at priority >=
     * WEFT_PRIO_HIGH preempts a compute thread to start at once. */
    WEFT_EVENT_THREAD = 1,
    /* Runs as a plain function until it would block; then it is promoted
     * to a host thread transparently and finishes there. Optimistic events
     * are called back to back on a pre-created host ("runner") stack, so a
     * burst costs one thread wake-up, not one per event; a handler that
     * blocks keeps that stack as its own thread and the next events get
     * another runner. */
    WEFT_EVENT_OPTIMISTIC = 2,
} weft_event_kind;

/* Which clock an event's time is measured on. */
typedef enum weft_event_queue {
    WEFT_QUEUE_REAL = 0, /* CLOCK_MONOTONIC (ARIADNE's RTQEVNT) */
    WEFT_QUEUE_CPU = 1,  /* process CPU time (ARIADNE's VTQEVNT) */
} weft_event_queue;

typedef struct weft_event_attr {
    weft_event_kind kind;   /* default WEFT_EVENT_FUNCTION */
    weft_event_queue queue; /* default WEFT_QUEUE_REAL */
    int priority;           /* host thread priority (THREAD, OPTIMISTIC);
                               default WEFT_PRIO_HIGH */
    int delay_sensitive;    /* THREAD kind: own host thread; default 1 */
} weft_event_attr;

/* Fill `attr` with the defaults above. Context: any. Blocks: no. */
void weft_event_attr_init(weft_event_attr *attr);

/* Schedule fn(arg) at absolute time `when` on the attribute's queue
 * (attr may be NULL for the defaults; `when` is on that queue's clock:
 * weft_now() or weft_cpu_now()). A time already past fires at the next
 * safe point. On success *out (if not NULL) is a handle for
 * weft_event_cancel; it stays valid until weft_event_release, which the
 * caller must then call (after the event ran or was cancelled). With
 * out == NULL the event frees itself once it ran or was cancelled by
 * argument. THREAD and OPTIMISTIC events start the runtime if needed (as
 * weft_thread_create does). *out is WEFT_EVENT_NULL on failure.
 * Errors: WEFT_EINVAL (fn NULL, bad attribute), WEFT_ENOMEM, an error of
 * weft_init(), WEFT_ESTATE (a THREAD or OPTIMISTIC event armed from inside
 * a FUNCTION event while the runtime is not running).
 * Context: ULT, external, or inside another event.
 * Blocks: no. */
int weft_event_at(weft_event_t *out, int64_t when, const weft_event_attr *attr,
                  void (*fn)(void *), void *arg);

/* Same, `delay` nanoseconds from now (on the event's queue clock). */
int weft_event_after(weft_event_t *out, int64_t delay, const weft_event_attr *attr,
                     void (*fn)(void *), void *arg);

/* Cancel a pending event. Returns 1 if it was cancelled before it ran
 * (also when it was already due but its function had not started: then it
 * never starts), 0 if it already ran, is running or was cancelled before
 * (ARIADNE: a_deschevnt's NULL), WEFT_EINVAL for a NULL handle. May be
 * called from inside the event's own function (returns 0).
 * Context: any but signal. Blocks: no. */
int weft_event_cancel(weft_event_t ev);

/* Release the handle returned by weft_event_at/after once the caller no
 * longer needs it (after the event ran, or was cancelled). Releasing the
 * handle of a pending event does not cancel it: it still runs, and frees
 * itself afterwards. NULL is ignored.
 * Context: any but signal. Blocks: no. */
void weft_event_release(weft_event_t ev);

/* Cancel the earliest pending event on `queue` whose argument is `arg`
 * (ARIADNE's a_cnclevnt_rt / a_cnclevnt_vt). Returns 1 if one was
 * cancelled, 0 if none was found (or `queue` is not a queue). A handle to
 * the cancelled event, if any, must still be released. O(1) on average
 * (O(k) if k pending events share `arg`).
 * Context: any but signal. Blocks: no. */
int weft_event_cancel_arg(weft_event_queue queue, void *arg);

/* Number of events pending on all queues (a snapshot; events due whose
 * function has not finished are no longer counted). Context: any.
 * Blocks: no. */
int64_t weft_event_pending(void);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_TIMER_H */
