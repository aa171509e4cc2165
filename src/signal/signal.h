/* The signal layer's interface to the layers above it (the I/O server's
 * weft_wait_any). signal_int.h stays private to src/signal/.
 *
 * A signal clause of an any-wait shares one wf_wait with the other
 * clauses, so it cannot be the node queued in the signal's waiter list
 * (weft_sig_wait's own waiters are). It queues a wf_sig_waiter instead:
 * a node (on the caller's stack) that points to the shared wf_wait and
 * names the wake reason (the clause index). A delivery that picks the
 * node wakes the wf_wait with that reason. If another clause (or the
 * deadline) already won the wf_wait, the wake returns 0 and the delivery
 * is not spent on the node: under WEFT_SIG_WAKE_ONE it goes to the next
 * waiter, or is kept pending for the next weft_sig_wait when none is left.
 */
#ifndef WF_SIGNAL_H
#define WF_SIGNAL_H

#include "sched/sched.h"

typedef struct wf_sig_waiter {
    struct wf_sig_waiter *next, *prev; /* private: the signal's list */
    wf_wait *wait;                     /* private: woken on delivery */
    int reason;                        /* private: its wake reason */
    int sig;                           /* private */
    int queued;                        /* private: slot lock */
} wf_sig_waiter;

/* Arm `node` on `sig`: the next delivery (by the mode's rules) wakes `w`
 * with `reason` through wf_wait_wake_urgent; weft_sig_clear wakes it with
 * WEFT_ECANCELED. Under WAKE_ONE a pending delivery is consumed at once
 * (w is woken before this returns; if w was already won, the delivery
 * stays pending). Returns 0, or WEFT_EINVAL (unsupported or not set).
 * Context: ULT or external, not a signal handler. Blocks: no. */
int wf_sig_wait_start(int sig, wf_sig_waiter *node, wf_wait *w, int reason);

/* Withdraw `node` if it is still queued; safe after a delivery or a
 * cancellation took it, and after a failed wf_sig_wait_start. Once it
 * returns, no waker touches node (or its wf_wait) any more.
 * Context: ULT or external. Blocks: no (spin lock). */
void wf_sig_wait_stop(wf_sig_waiter *node);

#endif /* WF_SIGNAL_H */
