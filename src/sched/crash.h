/* Private to src/sched/: how the fatal-signal report (crash.c) shares
 * SIGSEGV and SIGBUS with the stack-overflow handler (overflow.c).
 *
 * The overflow handler owns those two signals while the runtime runs and
 * passes every fault that is not an overflow to the action it found when
 * it was installed. The report does not replace it: it becomes that saved
 * action, provided it was the default one (no program or sanitizer
 * handler is being bypassed). weft_fini then restores the report's handler
 * with the rest, and a later weft_init saves it again.
 */
#ifndef WF_SCHED_CRASH_H
#define WF_SCHED_CRASH_H

#include <signal.h>

typedef void (*wf_sigaction_fn)(int sig, siginfo_t *si, void *uctx);

/* If the overflow handler is installed for `sig` and would pass a fault
 * to the default action, make it pass faults to `fn` (called with SIGINFO
 * arguments) instead; 1 if so, else 0. Context: external or ULT, not a
 * signal handler. Blocks: no. */
int wf_overflow_adopt(int sig, wf_sigaction_fn fn);

/* Undo wf_overflow_adopt: if the overflow handler passes faults of `sig`
 * to `fn`, make it pass them to the default action again. Context and
 * Blocks: as wf_overflow_adopt. */
void wf_overflow_unadopt(int sig, wf_sigaction_fn fn);

#endif
