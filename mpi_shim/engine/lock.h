/* The engine lock: a test-and-set lock whose waiters spin a little, then
 * wait in a way that depends on who they are.
 *
 * Why not weft_mutex_t: the I/O server calls the engine's poll() callback
 * at scheduler safe points, where nothing may block or switch; poll() only
 * ever *tries* the lock, and a weft mutex's owner bookkeeping is not meant
 * for that context. Why not a plain spin lock: a ULT holding it may be
 * preempted; a waiter that spun for its whole quantum would delay the
 * holder.
 *
 * Waiting, past WMPI_LOCK_SPINS rounds: a waiter yields
 * (weft_thread_yield; from a kernel thread, sched_yield), except a kernel
 * thread - the I/O server's blocker, a plain pthread of the program -
 * whose holder said it is brief (wmpi_lock_try_brief: a poll at a
 * scheduler safe point). That waiter marks the lock contended and sleeps
 * on its futex, and the release wakes it. Why: the blocker, woken by a
 * message while the worker of its CPU held the lock for such a poll,
 * yielded to that worker, which released the lock and went back to its
 * compute thread; the blocker - runnable, not woken - got the CPU back
 * only at the next kernel tick (up to 4 ms; perf sched, bench/mpi_reactivity:
 * most of the slow echoes left once the server threads' weight let their
 * wake-ups preempt, sched/latency.c). Woken by the release, it preempts
 * the worker at once. Not for every holder: behind a ULT in an MPI call
 * (several threads of a rank in MPI at once) the yield is what keeps the
 * blocker out of the way of a worker that detects the messages itself at
 * its switches; sleeping there, each release woke the blocker into the
 * worker's CPU, and 4 pairs of threads ping-ponging 8 B took 2x as long.
 *
 * States of `held`: 0 free, 1 held, 2 held and a kernel thread may sleep
 * on it. Critical sections are short (queue operations and non-blocking
 * socket calls), so contention is rare and the uncontended release is one
 * exchange.
 */
#ifndef WMPI_LOCK_H
#define WMPI_LOCK_H

#include <weft/thread.h>

static inline void wmpi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

typedef struct wmpi_lock {
    int held;  /* private: 0 free, 1 held, 2 held with sleepers */
    int brief; /* private, atomic: the holder took it with wmpi_lock_try_brief */
} wmpi_lock;

#define WMPI_LOCK_SPINS 64

/* lock.c: the slow paths (a kernel thread's sleep, the release's wake). */
void wmpi_lock_sleep(wmpi_lock *l);
void wmpi_lock_wake(wmpi_lock *l);

#define WMPI_LOCK_INITIALIZER { 0, 0 }

static inline int wmpi_lock_try(wmpi_lock *l)
{
    int free = 0;
    return !__atomic_load_n(&l->held, __ATOMIC_RELAXED) &&
           __atomic_compare_exchange_n(&l->held, &free, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

static inline void wmpi_lock_take(wmpi_lock *l)
{
    for (unsigned spins = 0; !wmpi_lock_try(l); spins++) {
        if (spins < WMPI_LOCK_SPINS)
            wmpi_cpu_relax();
        else if (weft_thread_self() == WEFT_THREAD_NULL &&
                 __atomic_load_n(&l->brief, __ATOMIC_RELAXED)) {
            wmpi_lock_sleep(l);
            return;
        } else
            weft_thread_yield();
    }
}

/* wmpi_lock_try for a holder that releases within microseconds and then
 * goes back to other work - a poll at a scheduler safe point: a kernel
 * thread waiting meanwhile sleeps until the release instead of yielding
 * its CPU to it (lock.h's design). */
static inline int wmpi_lock_try_brief(wmpi_lock *l)
{
    if (!wmpi_lock_try(l))
        return 0;
    __atomic_store_n(&l->brief, 1, __ATOMIC_RELAXED);
    return 1;
}

static inline void wmpi_lock_release(wmpi_lock *l)
{
    __atomic_store_n(&l->brief, 0, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&l->held, 0, __ATOMIC_RELEASE) == 2)
        wmpi_lock_wake(l);
}

#endif /* WMPI_LOCK_H */
