/* The timer service: one kernel thread that fires timers when no worker
 * would see them in time (every worker busy computing, nothing switching),
 * and that alone polls the CPU-time queue.
 *
 * It sleeps on a futex (absolute CLOCK_MONOTONIC deadline, 1 ns timer
 * slack) until the earliest deadline, fires what is due (fire.c) and
 * sleeps again; an arm that becomes the new earliest deadline pokes it
 * (one futex wake). Three refinements, for a process whose workers are
 * all busy (figures: docs/performance-notes.md):
 *   - staying warm: Linux's EEVDF scheduler (6.6+) lets a thread that
 *     slept long wait for a busy CPU's current slice when it wakes, while
 *     one that sleeps ~1 ms at a time preempts at once. So within
 *     WF_TIMER_WARM_HORIZON_NS of a deadline the service sleeps at most
 *     WF_TIMER_WARM_CHUNK_NS at a time: <= 1000 short wake-ups/s, only
 *     then;
 *   - spinning the last microseconds: when no worker is idle, nobody else
 *     is awake at the deadline and the kernel wakes the service late; it
 *     wakes that much early (its own lateness, learnt as an EWMA of its
 *     timed sleeps, at most WF_TIMER_SPIN_MAX_NS) and spins to the
 *     deadline.
 *     That spin is taken from compute threads, and only while a deadline
 *     is that close: nothing when timers are rare or workers idle. It
 *     brings weft_sleep's wake-ups under compute closer to the deadline;
 *   - the lateness EWMA also tells idle workers how early to wake (fire.c).
 * Each round also creates a host thread if the host pool asked for one
 * (wf_host_maintain: a runner promoted inside a hook, which may not create
 * threads itself).
 * Rejected: running the service at a real-time priority (needs privileges
 * users do not have); a shorter EEVDF slice through sched_setattr (tried:
 * no effect on these wake-ups).
 *
 * The CPU-time queue: a CPU-clock read is a system call, so only the
 * service reads it. CPU time advances at most `ncpus` times faster than
 * wall time, so with d ns of CPU time left the service sleeps d / ncpus of
 * wall time (at least WF_TIMER_CPU_POLL_MIN_NS) and looks again. A
 * CPU-time event thus fires at most ~ncpus x 100 us of CPU time late (200 us on 2 CPUs),
 * never early, for at most 10,000 polls per second while one is that close.
 *
 * The service blocks every signal, so process signals (the signal layer's)
 * never land on it. All its state is atomic or its own.
 */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "timer/timer_int.h"
#include "util/cpu.h"
#include "util/tuning.h"


static __thread int is_service __attribute__((tls_model("initial-exec")));

static pthread_t svc_thread;
static uint32_t svc_word;                   /* futex; bumped by every poke */
static int svc_stop;                        /* atomic */
static int64_t svc_target = WF_NO_DEADLINE; /* atomic: earliest it serves */
static int64_t late_ewma = 20000;           /* atomic: its timed-wake lateness */
static int64_t ncpus = 1;

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

int64_t wf_svc_lateness(void)
{
    return __atomic_load_n(&late_ewma, __ATOMIC_RELAXED);
}

/* -------------------------------------------------------------- rounds */

/* Fire what is due on the CPU queue; the wall time to look again. */
static int64_t cpu_round(void)
{
    int64_t next = __atomic_load_n(&wf_tq[WEFT_QUEUE_CPU].next, __ATOMIC_ACQUIRE);
    if (next == WF_NO_DEADLINE)
        return WF_NO_DEADLINE;
    int64_t cpu = weft_cpu_now();
    if (next <= cpu)
        return wf_timer_fire_due(WEFT_QUEUE_CPU) < 0 ? wf_timer_busy_retry() : weft_now();
    int64_t wall = (next - cpu) / ncpus;
    wall = wall < WF_TIMER_CPU_POLL_MIN_NS ? WF_TIMER_CPU_POLL_MIN_NS
                                           : min64(wall, WF_TIMER_CPU_POLL_MAX_NS);
    return weft_now() + wall;
}

/* Fire what is due; the time the service must look again. */
static int64_t service_round(void)
{
    wf_host_maintain();
    int64_t until = WF_NO_DEADLINE;
    if (wf_timer_fire_due(WEFT_QUEUE_REAL) < 0)
        until = wf_timer_busy_retry();
    until = min64(until, __atomic_load_n(&wf_tq[WEFT_QUEUE_REAL].next, __ATOMIC_SEQ_CST));
    return min64(until, cpu_round());
}

/* ------------------------------------------------------------ sleeping */

/* When to wake, this time, for `until` (see "staying warm"). */
static int64_t sleep_target(int64_t until)
{
    if (until == WF_NO_DEADLINE)
        return WF_NO_DEADLINE;
    int64_t now = weft_now();
    if (until - now > WF_TIMER_WARM_HORIZON_NS)
        return until - WF_TIMER_WARM_HORIZON_NS;
    return min64(until, now + WF_TIMER_WARM_CHUNK_NS);
}

/* Where the spin before `until` starts (see "spinning"). */
static int64_t spin_start(int64_t until)
{
    if (wf_timer_idle_workers() > 0)
        return until;
    return until - min64(wf_svc_lateness(), WF_TIMER_SPIN_MAX_NS);
}

static void spin_until(uint32_t gen, int64_t until)
{
    while (weft_now() < until && __atomic_load_n(&svc_word, __ATOMIC_RELAXED) == gen)
        wf_cpu_relax();
}

/* Learn the kernel's wake-up lateness from a sleep that timed out. */
static void note_lateness(uint32_t gen, int64_t wake)
{
    int64_t late = weft_now() - wake;
    if (late < 0 || late > WF_TIMER_LATE_MAX_NS ||
        __atomic_load_n(&svc_word, __ATOMIC_RELAXED) != gen)
        return; /* poked, or an outlier (descheduled) */
    int64_t e = __atomic_load_n(&late_ewma, __ATOMIC_RELAXED);
    __atomic_store_n(&late_ewma, e + (late - e) / 8, __ATOMIC_RELAXED);
}

/* Sleep (and maybe spin) towards `until`, unless poked (gen changes). */
static void sleep_towards(uint32_t gen, int64_t until)
{
    int64_t wake = sleep_target(until);
    int spin = wake == until && until != WF_NO_DEADLINE;
    if (spin)
        wake = spin_start(until);
    if (wake > weft_now()) {
        wf_futex_wait_until(&svc_word, gen, wake == WF_NO_DEADLINE ? WEFT_FOREVER : wake);
        if (wake != WF_NO_DEADLINE)
            note_lateness(gen, wake);
    }
    if (spin)
        spin_until(gen, until);
}

/* Sleep protocol against wf_timer_poke (a Dekker pair, both seq_cst):
 *   service: gen = word; fire; store svc_target; re-read next;
 *            sleep while word == gen;
 *   arm:     store next (new minimum); load svc_target; if earlier:
 *            word++, wake.
 * Either the service sees the new minimum, or the arm sees the target the
 * service is about to sleep towards, and wakes it. The stop flag is read
 * after gen for the same reason: a stop that bumps the word after that
 * read is seen, or its bump ends the sleep. */
static void *service_main(void *arg)
{
    (void)arg;
    wf_sched_helper_init(); /* not worker 0's pin; Weft's short slice */
    is_service = 1;
    wf_timer_precise_slack();
    pthread_setname_np(pthread_self(), "weft-timer");
    for (;;) {
        uint32_t gen = __atomic_load_n(&svc_word, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&svc_stop, __ATOMIC_SEQ_CST))
            break;
        int64_t until = service_round();
        __atomic_store_n(&svc_target, until, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&wf_tq[WEFT_QUEUE_REAL].next, __ATOMIC_SEQ_CST) < until)
            continue;
        if (until > weft_now())
            sleep_towards(gen, until);
    }
    return NULL;
}

void wf_timer_poke(int q, int64_t deadline)
{
    if (is_service)
        return; /* it looks at the queues again before it sleeps */
    if (q == WEFT_QUEUE_REAL && deadline >= __atomic_load_n(&svc_target, __ATOMIC_SEQ_CST))
        return;
    __atomic_fetch_add(&svc_word, 1, __ATOMIC_SEQ_CST);
    wf_futex_wake(&svc_word, 1);
}

void wf_svc_kick(void)
{
    __atomic_fetch_add(&svc_word, 1, __ATOMIC_SEQ_CST);
    wf_futex_wake(&svc_word, 1);
}

/* --------------------------------------------------------- start, stop */

/* Created with every signal blocked (it inherits the creator's mask). */
int wf_svc_start(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    ncpus = n > 0 ? n : 1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    __atomic_store_n(&svc_stop, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&svc_target, WF_NO_DEADLINE, __ATOMIC_SEQ_CST);
    int rc = pthread_create(&svc_thread, NULL, service_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc ? -rc : 0;
}

void wf_svc_stop(void)
{
    __atomic_store_n(&svc_stop, 1, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&svc_word, 1, __ATOMIC_SEQ_CST);
    wf_futex_wake(&svc_word, 1);
    pthread_join(svc_thread, NULL);
}
