/* The runtime's one lock: an int that is 0 (free), 1 (held) or 2 (held,
 * and a waiter may sleep on it), taken inside a critical section so that
 * no ULT holding one is ever switched out. The scheduler's run queues, the
 * sync layer's wait queues (and through them every weft_mutex), the timer
 * and I/O layers all use it; nothing else in Weft has futex code of its
 * own but the waits of switch.c.
 *
 * A waiter spins WF_LOCK_SPINS rounds, then sleeps on a futex until the
 * release; the release wakes one sleeper if the word said 2 (Drepper,
 * "Futexes are tricky", mutex 2). A sleeper that wakes marks the word 2
 * again when it takes the lock, so a release after it wakes the next
 * sleeper too.
 *
 * The release reads the word, then stores 0: a plain store, where an
 * exchange (which would see a 2 written at any moment) costs a locked
 * instruction on the path of every switch. A waiter that writes its 2
 * between that read and that store sleeps with nobody to wake it, so a
 * sleep is a nap of at most WF_LOCK_NAP_NS, after which the waiter tries
 * again. The window is a few instructions of a holder that releases just
 * as a waiter gives up spinning; the nap bounds what it costs.
 *
 * Why sleep, not spin or yield. The holder is a kernel thread (a worker,
 * the I/O server's thread) that the kernel may have descheduled, often
 * on the very CPU the waiter wants to spin on: the I/O server's thread,
 * woken by a message, runs at a higher weight than the worker it
 * preempts (kernel.c), and a waiter that spins waits for a thread that
 * only its own absence lets run. sched_yield does not help under EEVDF:
 * the yielding thread's earlier virtual deadline gets it picked again. A
 * futex sleep hands the CPU to the holder at once, and its release wakes
 * the waiter. The spin first: a holder on another CPU releases within a
 * few microseconds nearly always (these sections are a few list
 * operations), and a sleep and wake cost tens of microseconds on a
 * virtual machine.
 */
#include <stdint.h>
#include <time.h>

#include "sched/sched_internal.h"
#include "util/cpu.h"
#include "util/tuning.h"

static int take_if_free(int *l)
{
    int free = WF_LOCK_FREE;
    return __atomic_compare_exchange_n(l, &free, WF_LOCK_HELD, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

/* Sleep until a release wakes us or WF_LOCK_NAP_NS pass (lock.c head:
 * a release may miss a sleeper that marked the word just before it). */
static void nap(int *l)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + WF_LOCK_NAP_NS;
    wf_futex_wait_until((uint32_t *)l, WF_LOCK_SLEEPERS, deadline);
}

/* Spin while the holder is likely to release soon, then sleep. Whoever
 * finds the word free with its exchange owns the lock (still marked 2). */
void wf_lock_contended(int *l)
{
    for (int i = 0; i < WF_LOCK_SPINS; i++) {
        if (__atomic_load_n(l, __ATOMIC_RELAXED) == WF_LOCK_FREE && take_if_free(l))
            return;
        wf_cpu_relax();
    }
    while (__atomic_exchange_n(l, WF_LOCK_SLEEPERS, __ATOMIC_ACQUIRE) != WF_LOCK_FREE)
        nap(l);
}

void wf_lock_wake(int *l)
{
    wf_futex_wake((uint32_t *)l, 1);
}

void wf_lock(int *l)
{
    wf_rt_enter();
    wf_lock_acquire(l);
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
    wf_lock_release(l);
    wf_rt_leave();
}
