/* The engine lock: a test-and-set spin lock that yields while it waits.
 *
 * Why not weft_mutex_t: the I/O server calls the engine's poll() callback
 * at scheduler safe points, where nothing may block or switch; poll() only
 * ever *tries* the lock, and a weft mutex's owner bookkeeping is not meant
 * for that context. Why not a plain spin lock: a ULT holding it may be
 * preempted; a waiter that spun for its whole quantum would delay the
 * holder. So waiters spin a little, then weft_thread_yield() (which, from a
 * plain pthread, is sched_yield()). Critical sections are short (queue
 * operations and non-blocking socket calls), so a holder is rarely
 * preempted inside one (~1 us against a 10 ms quantum).
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
    int held; /* private: 0 free, 1 held */
} wmpi_lock;

#define WMPI_LOCK_INITIALIZER { 0 }

static inline int wmpi_lock_try(wmpi_lock *l)
{
    return !__atomic_load_n(&l->held, __ATOMIC_RELAXED) &&
           !__atomic_exchange_n(&l->held, 1, __ATOMIC_ACQUIRE);
}

static inline void wmpi_lock_take(wmpi_lock *l)
{
    for (unsigned spins = 0; !wmpi_lock_try(l); spins++) {
        if (spins < 64)
            wmpi_cpu_relax();
        else
            weft_thread_yield();
    }
}

static inline void wmpi_lock_release(wmpi_lock *l)
{
    __atomic_store_n(&l->held, 0, __ATOMIC_RELEASE);
}

#endif /* WMPI_LOCK_H */
