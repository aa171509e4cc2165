/* How Weft's kernel threads ask the kernel for a CPU: a short kernel time
 * slice for each of them, and a higher weight for the server threads.
 *
 * Every wait ends in the kernel at some point (a worker asleep in the I/O
 * server's poll set, the server thread in epoll_wait), and a wake-up is
 * only as fast as the kernel runs the woken thread. On a machine whose
 * CPUs are busy (our compute threads, other processes), Linux's EEVDF
 * scheduler lets the running task finish its slice unless the woken one
 * asks for a shorter one (PREEMPT_SHORT, Linux >= 6.12; older kernels
 * ignore the request). So the server threads ask for WF_SERVER_SLICE_NS
 * and the workers for WF_WORKER_SLICE_FACTOR times that: a woken server
 * thread preempts a busy worker, and a woken worker preempts other
 * processes' default slices. The slice is a latency request, not a share
 * of the CPU.
 *
 * A short slice is not enough when the server thread ran a moment ago:
 * EEVDF lets a woken task preempt only if it is "eligible" (has not had
 * more than its weight's share lately). So the server threads also run
 * WF_SERVER_NICE_BOOST below the process's nice value where the process
 * may raise a priority (root, CAP_SYS_NICE, or an RLIMIT_NICE that
 * allows it); they sleep nearly all the time, so their share hardly moves.
 * Lowering the workers' priority instead would need no privilege, but
 * gives away the program's share of the machine to every other process.
 *
 * Both are heuristics with A/B switches (WEFT_DISABLE=kernel-slice,
 * server-nice); their measured gains are in docs/performance-notes.md.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched/sched_internal.h"
#include "util/tuning.h"

#define NICE_MIN (-20)

/* struct sched_attr of the kernel ABI (linux/sched/types.h clashes with
 * glibc's sched.h). */
struct kernel_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

void wf_kernel_slice_apply(int worker)
{
    struct kernel_sched_attr a;
    if (!wf_tuning_on(WF_H_KERNEL_SLICE))
        return;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.policy = 0; /* SCHED_OTHER */
    a.nice = getpriority(PRIO_PROCESS, 0); /* keep the thread's nice */
    a.runtime = (uint64_t)WF_SERVER_SLICE_NS * (worker ? WF_WORKER_SLICE_FACTOR : 1);
    syscall(SYS_sched_setattr, 0, &a, 0); /* refused or ignored: no harm */
}

/* The calling server thread's nice: WF_SERVER_NICE_BOOST below the
 * process's (its main thread's), or as far below as RLIMIT_NICE allows
 * (not at all without it or CAP_SYS_NICE). Linux: PRIO_PROCESS with 0 is
 * the calling thread, with the process id its main thread. */
static void server_weight_apply(void)
{
    struct rlimit rl;
    errno = 0;
    int base = getpriority(PRIO_PROCESS, (id_t)getpid());
    int cur = getpriority(PRIO_PROCESS, 0);
    if (!wf_tuning_on(WF_H_SERVER_NICE) || errno != 0)
        return;
    int want = base - WF_SERVER_NICE_BOOST < NICE_MIN ? NICE_MIN : base - WF_SERVER_NICE_BOOST;
    if (want >= cur)
        return;
    if (setpriority(PRIO_PROCESS, 0, want) == 0 || getrlimit(RLIMIT_NICE, &rl) != 0)
        return;
    int floor = rl.rlim_cur >= 40 ? NICE_MIN : 20 - (int)rl.rlim_cur;
    if (floor < cur)
        setpriority(PRIO_PROCESS, 0, floor > want ? floor : want);
}

void wf_sched_helper_init(void)
{
    wf_sched_helper_affinity();
    server_weight_apply(); /* first: the slice request restates the nice */
    wf_kernel_slice_apply(0);
}
