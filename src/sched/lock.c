/* The runtime's short locks (wf_lock): an int that is 0 (free), 1 (held)
 * or 2 (held, and a waiter may sleep on it), taken inside a critical
 * section so that no ULT holding one is ever switched out.
 *
 * A waiter spins briefly, then sleeps on a futex until the release; the
 * release wakes one sleeper if the word said 2 (Drepper, "Futexes are
 * tricky", mutex 2). A sleeper that wakes marks the word 2 again when it
 * takes the lock, so a release after it wakes the next sleeper too.
 *
 * Why sleep, not spin or yield. The holder is a kernel thread (a worker,
 * the poller, a blocker) that the kernel may have descheduled, often on
 * the very CPU the waiter wants to spin on: a blocker woken by a message
 * runs at a higher weight than the worker it preempts (WEFT_SERVER_NICE),
 * and when that worker held the handle's lock in a safe-point poll, the
 * blocker waits for a thread that only its own absence lets run. Spinning
 * burns the whole slice; sched_yield does not help either under EEVDF:
 * the yielding thread's earlier virtual deadline gets it picked again,
 * and the holder ran only when the kernel's tick ended the waiter's turn
 * (bench/mpi_reactivity, 10 compute threads: 1% of round trips took 1-4
 * ms, one 250 Hz tick, the blocker yielding in a loop meanwhile). A futex
 * sleep hands the CPU to the holder at once, and its release wakes the
 * waiter, which then preempts it as its weight allows.
 * The spin first: a holder that runs on another CPU releases within a
 * few microseconds nearly always (these sections are a few list
 * operations), and a sleep and wake cost tens of microseconds on a
 * virtual machine (an inter-processor interrupt each way). 128 rounds of
 * the pause instruction are 0.5-3 us.
 * The cost for the uncontended: the release is an exchange instead of a
 * store (~10 ns more), to learn whether to wake.
 *
 * The run queues' raw locks (wf_spin_acquire) keep a plain store as their
 * release, on the path of every switch, so nobody is woken: a waiter past
 * its spin naps SPIN_NAP_NS at a time on the lock word instead (a futex
 * wait that returns at once if the word changed). The nap gives the CPU to
 * a holder the waiter preempted - a blocker pushing a woken thread onto
 * the queue of the worker it shares a CPU with - where spinning on would
 * last until the kernel's tick.
 */
#include <stdint.h>
#include <time.h>

#include "sched/sched_internal.h"
#include "util/cpu.h"

enum { LOCK_FREE = 0, LOCK_HELD = 1, LOCK_SLEEPERS = 2 };

#define LOCK_SPINS 128
#define SPIN_NAP_NS (20 * 1000LL)

static int take_if_free(int *l)
{
    int free = LOCK_FREE;
    return __atomic_compare_exchange_n(l, &free, LOCK_HELD, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* Spin while the holder is likely to release soon, then sleep. Whoever
 * finds the word free with its exchange owns the lock (still marked 2). */
static void lock_contended(int *l)
{
    for (int i = 0; i < LOCK_SPINS; i++) {
        if (__atomic_load_n(l, __ATOMIC_RELAXED) == LOCK_FREE && take_if_free(l))
            return;
        wf_cpu_relax();
    }
    while (__atomic_exchange_n(l, LOCK_SLEEPERS, __ATOMIC_ACQUIRE) != LOCK_FREE)
        wf_futex_wait((uint32_t *)l, LOCK_SLEEPERS);
}

void wf_lock(int *l)
{
    wf_rt_enter();
    if (!take_if_free(l))
        lock_contended(l);
}

int wf_trylock(int *l)
{
    wf_rt_enter();
    if (take_if_free(l))
        return 1;
    wf_rt_leave();
    return 0;
}

void wf_unlock(int *l)
{
    if (__atomic_exchange_n(l, LOCK_FREE, __ATOMIC_RELEASE) == LOCK_SLEEPERS)
        wf_futex_wake((uint32_t *)l, 1);
    wf_rt_leave();
}

void wf_spin_wait(int *l)
{
    for (int i = 0; __atomic_load_n(l, __ATOMIC_RELAXED) != LOCK_FREE; i++) {
        if (i < LOCK_SPINS) {
            wf_cpu_relax();
            continue;
        }
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t now_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
        wf_futex_wait_until((uint32_t *)l, LOCK_HELD, now_ns + SPIN_NAP_NS);
    }
}
