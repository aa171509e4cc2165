/* Threads, locks and condition variables for earth_mpi.c, which CMake
 * builds twice: against Weft's mpi.h (WEFT_MPI defined) the threads are
 * Weft user-level threads and the locks Weft's, which block the ULT and
 * not its worker; with mpicc.openmpi they are pthreads. Header-only, on
 * top of mpi_thread.h (thread_start, thread_join, thread_yield).
 */
#ifndef BENCH_EARTH_THREAD_H
#define BENCH_EARTH_THREAD_H

#include <stdint.h>
#include <time.h>

#include "mpi_thread.h"

#ifdef WEFT_MPI
typedef weft_mutex_t lock_t;
typedef weft_cond_t cond_t;
#define EARTH_LIB "weft"
#else
typedef pthread_mutex_t lock_t;
typedef pthread_cond_t cond_t;
#define EARTH_LIB "pthreads"
#endif

static inline void lock_init(lock_t *l, cond_t *c)
{
#ifdef WEFT_MPI
    weft_mutex_init(l);
    weft_cond_init(c);
#else
    pthread_mutex_init(l, NULL);
    pthread_cond_init(c, NULL);
#endif
}

static inline void lock_destroy(lock_t *l, cond_t *c)
{
#ifdef WEFT_MPI
    weft_cond_destroy(c);
    weft_mutex_destroy(l);
#else
    pthread_cond_destroy(c);
    pthread_mutex_destroy(l);
#endif
}

static inline void lock_take(lock_t *l)
{
#ifdef WEFT_MPI
    weft_mutex_lock(l);
#else
    pthread_mutex_lock(l);
#endif
}

static inline void lock_give(lock_t *l)
{
#ifdef WEFT_MPI
    weft_mutex_unlock(l);
#else
    pthread_mutex_unlock(l);
#endif
}

static inline void cond_wait(cond_t *c, lock_t *l)
{
#ifdef WEFT_MPI
    weft_cond_wait(c, l);
#else
    pthread_cond_wait(c, l);
#endif
}

static inline void cond_signal(cond_t *c)
{
#ifdef WEFT_MPI
    weft_cond_signal(c);
#else
    pthread_cond_signal(c);
#endif
}

static inline void cond_broadcast(cond_t *c)
{
#ifdef WEFT_MPI
    weft_cond_broadcast(c);
#else
    pthread_cond_broadcast(c);
#endif
}

/* Sleep the calling thread (a ULT sleeps alone; its worker runs others). */
static inline void thread_sleep_ns(int64_t ns)
{
#ifdef WEFT_MPI
    weft_sleep(ns);
#else
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    nanosleep(&ts, NULL);
#endif
}

/* Compute threads per worker: a Weft user runs many cheap ULTs and lets
 * the scheduler multiplex them; a pthreads program runs one per core. */
#ifdef WEFT_MPI
#define EARTH_THREADS_PER_WORKER 4
#else
#define EARTH_THREADS_PER_WORKER 1
#endif

#endif /* BENCH_EARTH_THREAD_H */
