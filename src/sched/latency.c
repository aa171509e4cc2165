/* How Weft's kernel threads get a CPU back fast when the machine is busy:
 * a short kernel time slice for each of them, and detection of CPU
 * contention so that idle workers stop spinning when spinning hurts.
 *
 * Why. A Weft process hands every wait to the kernel at some point (a
 * worker sleeps on its futex, a blocker in epoll_wait), and a wake-up is
 * only as fast as the kernel makes the woken thread run. On a machine whose
 * CPUs are all busy (compute threads of ours, other processes), Linux's
 * EEVDF scheduler lets the running task finish its slice unless the wakee
 * asks for a shorter one; at HZ=250 the slice ends at a tick, so a woken
 * thread waited up to 4 ms: measured with WEFT_IO_TRACE, the
 * bench/mpi_reactivity p99 of ~3 ms was made of exactly such waits (blocker
 * woken late, or a woken worker run late). A task that asks for a short
 * slice (sched_setattr's sched_runtime, Linux >= 6.12) preempts the
 * current one when it wakes (EEVDF's PREEMPT_SHORT). Its CPU share is
 * unchanged (the slice is a latency request, not a weight), so Weft's
 * server threads (blockers, poller) ask for WEFT_KERNEL_SLICE_US (default
 * 100 us; 0 keeps the kernel's default, and the kernel's floor is 100 us)
 * and its workers for WORKER_SLICE_FACTOR times that. Shorter only, not
 * equal: with equal slices nobody preempts anybody, and a blocker woken
 * beside a spinning (or computing) worker of its own process waited for
 * the tick - 2.2 ms on average, measured with perf sched in the
 * idle-block stress test, where ~5% of events took over a millisecond to
 * reach their waiter (now ~0.1%). Workers' 300 us still preempt other
 * processes' default slices (0.75 ms and more). Older kernels ignore the
 * request (harmless).
 *
 * Weight. A short slice is not enough when the server thread ran just
 * before: EEVDF lets a woken task preempt only if it is "eligible", i.e.
 * has not had more than its weight's share of the CPU lately. A blocker
 * that ran 15 us to deliver a message and is woken again 10 us later,
 * when the echo thread's next wait starts, is not: the worker must first
 * run about as long as the blocker did, and the kernel looks again only at
 * its next tick. Measured with bench/mpi_reactivity's program and perf
 * sched: 0.5-1.5% of echoes under compute took 1-4 ms, each the blocker
 * sitting runnable until a tick. So the server threads ask for a nice
 * value SERVER_NICE_BOOST below the process's (WEFT_SERVER_NICE; weight x9
 * at the default 10): a blocker's run then costs a tenth as much of its
 * share, and its wake-ups preempt. The share itself hardly moves, since
 * they sleep nearly all the time. Raising a priority needs CAP_SYS_NICE
 * or an RLIMIT_NICE that allows it (ulimit -e); without either they keep
 * the process's nice and the tail stays. The weight alone moved the wait
 * elsewhere (the blocker, now preempting, met the engine lock held by the
 * worker's poll and yielded to it: engine/lock.h); with both, 3000 echoes
 * at N=1 and at N=10 had 0-5 over a millisecond, against 8-38 before (3
 * seeds each, quiet host; 93 against 198 summed over 5 alternating pairs
 * on a noisier one), and the mean echo fell from ~57 to ~45 us (8 and 6
 * alternating pairs). Cost: where several threads of a rank ping-pong
 * (osu_like mt_latency, 4 pairs) a round trip takes 1.1-1.3x as long
 * (6 pairs), since the blocker's wake-ups now preempt a worker that would
 * have found the messages at its next switch; nice 5 kept ~1.1x of that
 * and lost most of the tail's gain. Lowering the workers' priority
 * instead, which needs no privilege, worked as well (nice 5), but it gives
 * away the program's share of the machine to every other process;
 * rejected.
 *
 * Spinning under contention. An idle worker that spins (polling for an
 * event due any moment) is runnable, not asleep: when the kernel takes its
 * CPU away it waits for its next turn like any runnable task, and it lost
 * the wake-up preemption a sleeper would get. The trace showed it: the
 * pong detected by a spinning worker 3 ms late. So an idle worker watches
 * the clock between its polls (worker.c): a pause of 5 us or more means it
 * was off its CPU, and if its count of involuntary context switches
 * (getrusage) went up meanwhile, another task of this machine ran there.
 *
 * Sharing a CPU. The first such observation puts the worker in the shared
 * mode for SHARED_NS (renewed by each later one): it yields (sched_yield)
 * between idle polls. The task that ran is often a rank of the same job,
 * when ranks outnumber the CPUs, and it often produces the very event the
 * spinner waits for; it got the CPU only when the kernel ended the
 * spinner's slice. Yielding, a runnable task on the CPU runs at once, and
 * with nobody else runnable a yield returns at once (a system call, ~0.3
 * us). Measured (2 ranks sharing one CPU, 8 B ping-pong over TCP): 31 -> 15
 * us one-way; 4 ranks on 2 CPUs, 8 B allreduce ~110 -> ~60 us. Open MPI's
 * yield_when_idle does the same, for the whole run, when it knows the node
 * is oversubscribed.
 *
 * A program that knows its CPUs are shared by design (MPI ranks that
 * outnumber the cores) says so with weft_set_cpus_shared: its idle workers
 * then always yield. Observation alone misses a neighbour that sleeps:
 * yields that let nobody run do not renew the mode, it lapses, and the
 * neighbour, woken, waits for the spinner's slice to end at a tick (equal
 * slices do not preempt each other): a 4-rank bcast on 2 CPUs went from
 * ~35 to 40-150 us per call that way. Open MPI's yield_when_idle is
 * likewise set for the whole run of an oversubscribed job.
 *
 * Contention. A yielding worker whose neighbour then kept the CPU for
 * OFF_CPU_NS or more (a task that computes, not a rank that answers a
 * message and yields back) records contention for CONTENDED_NS, during
 * which idle workers (and the I/O server's spin budget, via
 * wf_sched_contended) sleep at once instead of spinning, and wake-ups are
 * served by the kernel within the short slice above. Contention is one
 * long turn given away, not the sum of short ones: summed, four ranks per
 * CPU looked contended at every round and slept instead (8 ranks on 2
 * CPUs, 8 B allreduce ~305 -> ~220 us). A spinner first yields, and only
 * then judges: a non-yielding spinner is off its CPU for the neighbour's
 * whole slice even when the neighbour only answers messages, and judged
 * contended by that, two ranks sharing a CPU slept at every message for
 * their first 50 ms (~150 us one-way instead of ~12).
 *
 * Hypervisor. On a virtual machine the host takes a virtual CPU away now
 * and then, for tens of microseconds or more. That pause counts no context
 * switch, so it is not mistaken for a neighbour: no task here wanted the
 * CPU, and yielding or sleeping gives it to nobody. Judged by pauses
 * alone, two ranks with a CPU each yielded at nearly every idle poll
 * (~1 yield a message, renewed by each long yield), and slept for 50 ms
 * after each long pause.
 *
 * Rejected: reading /proc/loadavg (a 5 s average, and other processes'
 * load says nothing about our CPUs' turns); never spinning (a ping-pong on
 * idle cores then pays two cross-CPU wake-ups per message, ~40 us, where
 * polling costs ~5 us); yielding always (a yield per poll added ~0.6 us to
 * a ping-pong across two idle CPUs); wall time minus thread CPU time as
 * the sign of a neighbour (it counts the hypervisor's pauses too).
 *
 * Invariants: contended_until only moves forward (relaxed max).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched/sched_internal.h"

#define DEFAULT_SLICE_US 100
#define WORKER_SLICE_FACTOR 3
#define SERVER_NICE_BOOST 10
#define NICE_MIN (-20)
#define OFF_CPU_NS (100 * 1000LL)      /* runnable, not running: descheduled */
#define CONTENDED_NS (50 * 1000 * 1000LL)
#define SHARED_NS (10 * 1000 * 1000LL)

/* struct sched_attr of the kernel ABI (linux/sched/types.h clashes with
 * glibc's sched.h). */
struct kernel_sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

static long slice_us = DEFAULT_SLICE_US;
static long server_boost = SERVER_NICE_BOOST;
static int64_t contended_until; /* atomic */
static int cpus_shared;         /* atomic: weft_set_cpus_shared */

int wf_latency_config(void)
{
    int err = wf_env_long("WEFT_KERNEL_SLICE_US", 0, 100 * 1000, &slice_us);
    if (err > 0 && slice_us > 0 && slice_us < 100) {
        fprintf(stderr, "weft: WEFT_KERNEL_SLICE_US must be 0 or at least 100\n");
        return WEFT_EINVAL;
    }
    if (err < 0)
        return err;
    err = wf_env_long("WEFT_SERVER_NICE", 0, 39, &server_boost);
    return err < 0 ? err : 0;
}

void wf_latency_slice_apply(int worker)
{
    struct kernel_sched_attr a;
    if (slice_us <= 0)
        return;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.policy = SCHED_OTHER;
    a.nice = getpriority(PRIO_PROCESS, 0); /* keep the thread's nice */
    a.runtime = (uint64_t)slice_us * 1000 * (worker ? WORKER_SLICE_FACTOR : 1);
    syscall(SYS_sched_setattr, 0, &a, 0); /* refused or ignored: no harm */
}

/* The calling server thread's nice: server_boost below the process's (its
 * main thread's), or as far below as RLIMIT_NICE allows (not at all
 * without it or CAP_SYS_NICE). Linux: PRIO_PROCESS with 0 is the calling
 * thread, with the process id its main thread. */
static void server_weight_apply(void)
{
    struct rlimit rl;
    errno = 0;
    int base = getpriority(PRIO_PROCESS, (id_t)getpid());
    int cur = getpriority(PRIO_PROCESS, 0);
    if (server_boost == 0 || errno != 0)
        return;
    int want = base - (int)server_boost < NICE_MIN ? NICE_MIN : base - (int)server_boost;
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
    wf_latency_slice_apply(0);
}

/* The other task's turn: the pause, or, unless the program said its CPUs
 * are shared, no more than the time the worker was off its CPU. A poll
 * can itself take long (a hook moving 64 KiB of MPI data, the kernel's
 * loopback work in the same system call): judged by the pause alone, two
 * ranks bound to a CPU each, briefly preempted by the I/O server's poller,
 * found their CPUs contended at nearly every long poll under
 * WEFT_IO_STRATEGY=polling and slept. Where ranks share CPUs by design
 * the pause stays the measure: a neighbour is there to take the turn, and
 * judged by the off-CPU time, 8 ranks on 2 CPUs spun where they had slept
 * and ran allreduce ~5% slower (8 B to 1 MiB, alternating A/B). */
void wf_latency_note_off_cpu(int64_t pause_ns, int64_t off_ns)
{
    int declared = __atomic_load_n(&cpus_shared, __ATOMIC_RELAXED);
    int64_t turn = declared || off_ns > pause_ns ? pause_ns : off_ns;
    if (turn < OFF_CPU_NS)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t until = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + CONTENDED_NS;
    int64_t cur = __atomic_load_n(&contended_until, __ATOMIC_RELAXED);
    while (cur < until && !__atomic_compare_exchange_n(&contended_until, &cur, until, 1,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void wf_latency_note_shared(int64_t *shared_until, int64_t now)
{
    *shared_until = now + SHARED_NS;
}

void weft_set_cpus_shared(int shared)
{
    __atomic_store_n(&cpus_shared, shared != 0, __ATOMIC_RELAXED);
}

int wf_sched_cpu_shared(int64_t now)
{
    wf_worker *w = wf_worker_self();
    return __atomic_load_n(&cpus_shared, __ATOMIC_RELAXED) || (w && now < w->shared_until);
}

int wf_sched_contended(void)
{
    struct timespec ts;
    int64_t until = __atomic_load_n(&contended_until, __ATOMIC_RELAXED);
    if (until == 0)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec < until;
}

int wf_sched_nready(void)
{
    return __atomic_load_n(&wf_g.nready, __ATOMIC_RELAXED);
}
