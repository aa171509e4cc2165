/* The timer layer's interface to the layers above it (signals, I/O, MPI
 * through the public API). Everything else in src/timer/ is private.
 *
 * A wf_timeout is a caller-owned, allocation-free timer that wakes a
 * wf_wait (sched.h) with WEFT_ETIMEDOUT at an absolute deadline, through
 * wf_wait_wake_urgent, so the woken thread runs promptly. Typical use, for
 * any timed wait:
 *
 *     wf_wait w; wf_timeout to;
 *     wf_wait_init(&w);
 *     publish &w where the waker finds it;
 *     wf_timeout_start(&to, &w, deadline);
 *     int reason = wf_wait_block(&w, release, arg);
 *     wf_timeout_stop(&to);             // always, before `to` goes away
 *     if (reason == WEFT_ETIMEDOUT) unpublish &w (the waker lost the race)
 *
 * Only one waker wins a wf_wait (sched.h), so a timeout and a real wake-up
 * never both take effect.
 *
 * Precision: the expiry is detected at the next context switch or idle
 * check of any worker, or by the timer service thread (a kernel thread
 * sleeping until the earliest deadline with 1 ns timer slack), whichever
 * comes first; typically 5-30 us late, never early.
 */
#ifndef WF_TIMER_H
#define WF_TIMER_H

#include <stdint.h>
#include <weft/timer.h>

#include "sched/sched.h"

/* A node of the timer queues (a 4-ary min-heap per clock), embedded in
 * every timed object. Private to src/timer/. */
typedef struct wf_tnode {
    int64_t deadline; /* on its queue's clock, ns */
    uint64_t seq;     /* arming order: equal deadlines fire first-armed first */
    int64_t index;    /* slot in the heap, -1 while not queued */
    uint32_t type;    /* what it is (timeout or event), for the firing code */
    uint32_t queue;   /* weft_event_queue */
} wf_tnode;

typedef struct wf_timeout {
    /* private */
    wf_tnode node;
    wf_wait *wait;
    uint32_t state; /* atomic: idle, armed, firing, fired, stopped */
} wf_timeout;

/* Arm `t` to wake `w` with WEFT_ETIMEDOUT at `deadline` (CLOCK_MONOTONIC
 * ns). deadline < 0 (WEFT_FOREVER) arms nothing. A deadline already past
 * wakes at once. Aborts with a message if the timer queue cannot grow (out
 * of memory). Context: ULT or external. Blocks: no. */
void wf_timeout_start(wf_timeout *t, wf_wait *w, int64_t deadline);

/* Disarm `t`. Returns 1 if it had not fired, 0 if it fired (or was never
 * armed). After it returns the timer no longer touches `t` or its wait.
 * Context: ULT or external. Blocks: no (may spin briefly while the timer
 * fires on another CPU). */
int wf_timeout_stop(wf_timeout *t);

#endif /* WF_TIMER_H */
