/* Threads for the MPI programs of bench/ (osu_like_mpi, mpi_reactivity_mpi),
 * which CMake builds twice: against Weft's mpi.h, which defines WEFT_MPI,
 * the threads are Weft user-level threads; with mpicc.openmpi they are
 * pthreads. Header-only.
 */
#ifndef BENCH_MPI_THREAD_H
#define BENCH_MPI_THREAD_H

#ifdef WEFT_MPI
#include <weft.h>
typedef weft_thread_t thread_t;
#else
#include <pthread.h>
#include <sched.h>
typedef pthread_t thread_t;
#endif

/* Start fn(arg) in a new thread; 0 on success. */
static inline int thread_start(thread_t *t, void *(*fn)(void *), void *arg)
{
#ifdef WEFT_MPI
    return weft_thread_create(t, NULL, fn, arg);
#else
    return pthread_create(t, NULL, fn, arg);
#endif
}

/* Wait for t to end; its return value is dropped. */
static inline void thread_join(thread_t t)
{
#ifdef WEFT_MPI
    weft_thread_join(t, NULL);
#else
    pthread_join(t, NULL);
#endif
}

/* Let another thread run. */
static inline void thread_yield(void)
{
#ifdef WEFT_MPI
    weft_thread_yield();
#else
    sched_yield();
#endif
}

#endif /* BENCH_MPI_THREAD_H */
