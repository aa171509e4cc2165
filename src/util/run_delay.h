/* How long the calling kernel thread has waited on a run queue, runnable
 * but not running, since it started: the second field of Linux's
 * /proc/thread-self/schedstat (the scheduler's run_delay, in ns).
 *
 * Why. The I/O server learns what a sleep costs from the lag between an
 * event and its detection (io/adapt.c). Part of that lag can be a queue
 * for a CPU other tasks hold; spinning longer would only lengthen that
 * queue, so the server subtracts it: what remains is the wake-up itself
 * (the interrupt, and on a virtual machine the host resuming a halted
 * virtual CPU, which the guest counts as no run delay).
 */
#ifndef WF_UTIL_RUN_DELAY_H
#define WF_UTIL_RUN_DELAY_H

#include <stdint.h>

/* The calling thread's run delay so far (ns), or -1 if the kernel does not
 * tell (no schedstat file). The file stays open per thread, closed at the
 * thread's exit. Blocks: no (one pread of a proc file, ~1 us). */
int64_t wf_run_delay_ns(void);

#endif /* WF_UTIL_RUN_DELAY_H */
