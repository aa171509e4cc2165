/* Weft time: a monotonic clock, sleeps that block only the calling
 * user-level thread, and timed events (ARIADNE's a_schevnt family).
 *
 * Times are int64_t nanoseconds on CLOCK_MONOTONIC. Blocking calls take an
 * absolute deadline; WEFT_FOREVER waits forever, 0 tries once.
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

/* Current CPU time of the calling process in nanoseconds (the clock of the
 * CPU-time event queue). Context: any. Blocks: no. */
int64_t weft_cpu_now(void);

/* Block the calling ULT for at least `ns` nanoseconds (never returns
 * early); its worker runs other threads meanwhile. From an external thread
 * it sleeps the kernel thread. ns <= 0 returns at once.
 * Errors: none (returns 0). Context: ULT or external. Blocks: yes. */
int weft_sleep(int64_t ns);

/* Block the calling ULT until weft_now() >= deadline.
 * Errors: none (returns 0). Context: ULT or external. Blocks: yes. */
int weft_sleep_until(int64_t deadline);

/* ------------------------------------------------------------ timed events */

typedef struct weft_event *weft_event_t;
#define WEFT_EVENT_NULL ((weft_event_t)0)

/* How an event's function runs when its time comes. */
typedef enum weft_event_kind {
    /* A plain function, on whatever stack detects the expiry (a switch, a
     * tick, the timer service). It must be short and must not block, yield
     * or wait; debug builds abort with a message if it tries. */
    WEFT_EVENT_FUNCTION = 0,
    /* Runs on a pooled host ULT at the attribute's priority; may block.
     * Delay-sensitive events get a host of their own; delay-tolerant ones
     * may share one host, in deadline order. */
    WEFT_EVENT_THREAD = 1,
    /* Runs as a plain function until it would block; then it is promoted
     * to a host thread transparently and finishes there. */
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
    int priority;           /* host thread priority; default WEFT_PRIO_HIGH */
    int delay_sensitive;    /* THREAD kind: own host thread; default 1 */
} weft_event_attr;

/* Fill `attr` with the defaults above. Context: any. Blocks: no. */
void weft_event_attr_init(weft_event_attr *attr);

/* Schedule fn(arg) at absolute time `when` on the attribute's queue
 * (attr may be NULL for the defaults). A time already past fires at the
 * next safe point. On success *out (if not NULL) is a handle for
 * weft_event_cancel; it stays valid until the event has run or been
 * cancelled (and then until weft_event_release).
 * Errors: WEFT_EINVAL (fn NULL, bad attribute), WEFT_ENOMEM.
 * Context: ULT, external, or inside another event. Blocks: no. */
int weft_event_at(weft_event_t *out, int64_t when, const weft_event_attr *attr,
                  void (*fn)(void *), void *arg);

/* Same, `delay` nanoseconds from now (on the event's queue clock). */
int weft_event_after(weft_event_t *out, int64_t delay, const weft_event_attr *attr,
                     void (*fn)(void *), void *arg);

/* Cancel a pending event. Returns 1 if it was cancelled before it ran, 0 if
 * it already ran or is running (ARIADNE: a_deschevnt's NULL), WEFT_EINVAL
 * for a NULL handle. May be called from inside the event's own function.
 * Context: any but signal. Blocks: no. */
int weft_event_cancel(weft_event_t ev);

/* Release the handle returned by weft_event_at/after once the caller no
 * longer needs it (after the event ran, or was cancelled).
 * Context: any but signal. Blocks: no. */
void weft_event_release(weft_event_t ev);

/* Cancel the earliest pending event on `queue` whose argument is `arg`
 * (ARIADNE's a_cnclevnt_rt / a_cnclevnt_vt). Returns 1 if one was
 * cancelled, 0 if none was found. Context: any but signal. Blocks: no. */
int weft_event_cancel_arg(weft_event_queue queue, void *arg);

/* Number of events pending on all queues (a snapshot). Context: any.
 * Blocks: no. */
int64_t weft_event_pending(void);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_TIMER_H */
