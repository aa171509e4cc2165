/* Clocks: the monotonic clock of the real-time queue, the process CPU-time
 * clock of the CPU-time queue, timer slack, and the precise sleep of a
 * kernel thread (external callers of weft_sleep, never a worker).
 *
 * Clocks. weft_now() is CLOCK_MONOTONIC through the vDSO (~20 ns, no
 * system call, async-signal-safe). weft_cpu_now() is CLOCK_PROCESS_CPUTIME_ID,
 * a real system call (~0.3-1 us, summing every thread of the process), so
 * the layer reads it only on the timer service thread, at most every
 * WF_TIMER_CPU_POLL_MIN_NS (service.c), never on the switch path.
 * Rejected: POSIX CPU-time timers (timer_create on a CPU clock). On the
 * 2-vCPU development VMs they never fired (no signal in 10 minutes), so
 * the CPU-time queue is polled instead; see service.c for the precision.
 *
 * Timer slack. Linux delays a sleeping thread's timer expiry by up to its
 * "timer slack" (50 us by default) to batch wake-ups. For a sub-20 us goal
 * that is the largest error term, so the service thread and the workers
 * (through the idle_deadline hook, once per kernel thread) set theirs to
 * 1 ns. An external thread calling weft_sleep gets 1 ns for the duration of
 * the sleep only and its own slack back afterwards (two prctl calls, ~1 us,
 * against a sleep of at least microseconds).
 */
#include <errno.h>
#include <sys/prctl.h>
#include <time.h>

#include "timer/timer_int.h"

#define NS_PER_S 1000000000LL

static __thread int slack_set __attribute__((tls_model("initial-exec")));

static int64_t read_clock(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

int64_t weft_now(void)
{
    return read_clock(CLOCK_MONOTONIC);
}

int64_t weft_cpu_now(void)
{
    return read_clock(CLOCK_PROCESS_CPUTIME_ID);
}

int64_t wf_tq_clock(int q)
{
    return q == WEFT_QUEUE_CPU ? weft_cpu_now() : weft_now();
}

void wf_timer_precise_slack(void)
{
    if (slack_set)
        return;
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    slack_set = 1;
}

void wf_timer_kernel_sleep_until(int64_t deadline)
{
    int had_precise = slack_set;
    int old_slack = had_precise ? 1 : prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    if (!had_precise)
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    struct timespec ts = {(time_t)(deadline / NS_PER_S), (long)(deadline % NS_PER_S)};
    /* EINTR (a signal) sleeps again; the deadline is absolute. */
    while (weft_now() < deadline)
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    if (!had_precise && old_slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)old_slack, 0UL, 0UL, 0UL);
}
