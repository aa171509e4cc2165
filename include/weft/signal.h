/* Weft signals: process signals delivered to user-level threads (ARIADNE's
 * signal-activated threads).
 *
 * weft_sig_set(sig) installs Weft's handler for `sig`; from then on a
 * thread calls weft_sig_wait(sig) to sleep until the signal arrives (a ULT
 * leaves its worker to others; an external thread sleeps in the kernel),
 * and any thread may weft_sig_raise(sig) to act as if it had arrived,
 * without a system call. Weft's handler only records the delivery; the
 * waiters are woken outside signal context, at the scheduler's next safe
 * point or by Weft's signal thread, whichever comes first (typically a few
 * microseconds), and run at raised priority (WEFT_PRIO_HIGH), preempting a
 * compute thread if every worker is busy. Waiting costs no CPU.
 *
 * Two semantics, chosen per signal with weft_sig_set_mode():
 *   WEFT_SIG_WAKE_ALL (default, ARIADNE): a delivery wakes every thread
 *     waiting on the signal at that moment, each exactly once. A delivery
 *     that finds no waiter is not kept: a later weft_sig_wait waits for the
 *     next delivery. (ARIADNE's multi-protocol SIGIO use: every receive
 *     thread wakes and checks its own socket.)
 *   WEFT_SIG_WAKE_ONE (POSIX sigwait-like): a delivery wakes one waiter,
 *     the one that has waited longest. A delivery that finds no waiter is
 *     kept pending and the next weft_sig_wait returns at once, consuming
 *     it. At most one delivery is pending per signal: deliveries that find
 *     one pending already are merged into it, as the kernel merges a
 *     standard signal that is already pending.
 * Counting. Every delivery (by the kernel or by weft_sig_raise) is
 * recorded exactly once, whatever the runtime is doing when it arrives
 * (even inside a critical section of the scheduler): none is lost, none
 * is dispatched twice. Deliveries that arrive before Weft dispatched the
 * previous one are dispatched together: under WAKE_ALL they wake the
 * current waiters once; under WAKE_ONE each wakes one waiter (or becomes
 * the pending one). Note that the kernel itself merges a standard
 * (non-real-time) signal sent again before the first was handled.
 *
 * Supported: every catchable asynchronous signal, among them SIGHUP,
 * SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGCHLD, SIGIO, SIGPIPE,
 * SIGALRM, SIGWINCH and the real-time signals SIGRTMIN..SIGRTMAX. Refused
 * (WEFT_EINVAL): SIGKILL and SIGSTOP (cannot be caught), the fault signals
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS and SIGABRT (they concern
 * the faulting thread, not waiters; Weft uses SIGSEGV/SIGBUS for stack
 * overflows), SIGURG (Weft's preemption signal) and the signals the C
 * library reserves between 32 and SIGRTMIN.
 */
#ifndef WEFT_SIGNAL_H
#define WEFT_SIGNAL_H

#include <stdint.h>
#include <weft/errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Wake-up semantics of a signal (see above). */
#define WEFT_SIG_WAKE_ALL 0
#define WEFT_SIG_WAKE_ONE 1

/* ----------------------------------------------------------- handlers */

/* Install Weft's handler for `sig` (ARIADNE's a_setsig). The action that
 * was installed before (default or ignore) is saved, and restored by
 * weft_sig_clear. Setting a signal Weft already handles does nothing. The
 * runtime need not be started (external threads may wait).
 * Errors: WEFT_EINVAL (unsupported signal, see above), WEFT_EBUSY (another
 * handler than SIG_DFL or SIG_IGN is installed for sig: Weft does not
 * replace it), WEFT_EAGAIN (Weft's signal thread could not be started).
 * Context: ULT or external. Blocks: briefly (the first call starts Weft's
 * signal thread). */
int weft_sig_set(int sig);

/* Remove Weft's handler for `sig` and restore the action saved by
 * weft_sig_set (ARIADNE's a_clearsig). Threads waiting on sig return
 * WEFT_ECANCELED; a pending delivery and deliveries not dispatched yet are
 * dropped. The mode is kept.
 * Errors: WEFT_EINVAL (unsupported, or not set).
 * Context: ULT or external. Blocks: briefly (clearing the last signal
 * stops Weft's signal thread). */
int weft_sig_clear(int sig);

/* Choose the wake-up semantics of `sig`: WEFT_SIG_WAKE_ALL (the default)
 * or WEFT_SIG_WAKE_ONE; it applies from the next delivery, whether or not
 * the signal is set. Leaving WAKE_ONE drops a pending delivery.
 * Errors: WEFT_EINVAL (unsupported signal or unknown mode).
 * Context: ULT or external. Blocks: no. */
int weft_sig_set_mode(int sig, int mode);

/* The wake-up semantics of `sig`, or WEFT_EINVAL (unsupported signal).
 * Context: any but signal. Blocks: no. */
int weft_sig_get_mode(int sig);

/* ------------------------------------------------------------- waiting */

/* Block the caller until `sig` is delivered (ARIADNE's a_waitsig): a ULT
 * blocks alone, its worker runs other threads; an external thread sleeps
 * in the kernel. Under WAKE_ONE a pending delivery is consumed and the
 * call returns at once.
 * Errors: WEFT_EINVAL (unsupported signal, or not set),
 * WEFT_ECANCELED (weft_sig_clear(sig) was called meanwhile).
 * Context: ULT or external. Blocks: yes. */
int weft_sig_wait(int sig);

/* Like weft_sig_wait, but give up at `deadline` (absolute CLOCK_MONOTONIC
 * ns, as weft_now()): WEFT_FOREVER waits forever, 0 only consumes a
 * pending delivery if there is one. A time-out never swallows a delivery:
 * one that arrives as the deadline passes either wakes the caller (0) or,
 * if the time-out won the race, is not spent on it (under WAKE_ONE it goes
 * to the next waiter or stays pending). weft_wait_any's WEFT_CLAUSE_SIGNAL
 * follows the same rule when another clause wins.
 * Errors: those of weft_sig_wait, and WEFT_ETIMEDOUT (the deadline passed
 * first; never returned before it).
 * Context: ULT or external. Blocks: yes, until the deadline at most. */
int weft_sig_wait_until(int sig, int64_t deadline);

/* Deliver `sig` to its waiters as if the kernel had delivered it, without
 * a system call (ARIADNE's a_raisesig): the waiters are woken before it
 * returns, following the signal's mode. The process's own handlers and
 * signal mask are not involved.
 * Errors: WEFT_EINVAL (unsupported signal, or not set).
 * Context: ULT or external (not a signal handler: use kill() there).
 * Blocks: no. */
int weft_sig_raise(int sig);

/* ----------------------------------------------------------- inspection */

/* Number of threads waiting on `sig` now (a snapshot), or WEFT_EINVAL
 * (unsupported signal). Context: any but signal. Blocks: no. */
int weft_sig_waiters(int sig);

/* Number of deliveries of `sig` (by the kernel or weft_sig_raise)
 * dispatched since it was last set, or WEFT_EINVAL (unsupported signal).
 * Context: any but signal. Blocks: no. */
int64_t weft_sig_count(int sig);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_SIGNAL_H */
