/* Shared by the files of src/signal/. Private to src/signal/.
 *
 * signal.c owns the per-signal state (installed or not, mode, waiters,
 * pending delivery) and the public API; dispatch.c owns what the OS
 * handler touches (per-signal delivery counters and the "something is
 * pending" mask), Weft's signal thread and the scheduler hooks that
 * dispatch recorded deliveries to signal.c.
 */
#ifndef WF_SIGNAL_INT_H
#define WF_SIGNAL_INT_H

#include <signal.h>
#include <stdint.h>

/* Signal numbers are 1 .. WF_SIG_MAX - 1 (Linux: 64 at most). */
#define WF_SIG_MAX 65

/* 1 if Weft handles `sig` (see include/weft/signal.h), else 0. */
int wf_sig_supported(int sig);

/* signal.c: dispatch `n` (>= 1) deliveries of `sig` to its waiters now.
 * Returns the number of threads woken (0 if sig is not set: the
 * deliveries are dropped). Context: ULT, external, or a scheduler hook;
 * not a signal handler. */
int wf_sig_deliver(int sig, uint32_t n);

/* dispatch.c: start Weft's signal thread and register the scheduler hooks
 * (once). Returns 0 or WEFT_EAGAIN. Called with signal.c's config lock. */
int wf_sig_dispatch_start(void);

/* dispatch.c: stop the signal thread (when no signal is set any more).
 * Called with signal.c's config lock. */
void wf_sig_dispatch_stop(void);

/* dispatch.c: install Weft's OS handler for `sig`, saving the previous
 * action in *old. Returns 0 or -errno. */
int wf_sig_handler_install(int sig, struct sigaction *old);

/* dispatch.c: forget deliveries of `sig` recorded and not yet dispatched
 * (after its handler was removed). */
void wf_sig_forget(int sig);

#endif /* WF_SIGNAL_INT_H */
