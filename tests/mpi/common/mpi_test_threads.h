/* Threads for the MPI test programs: Weft user-level threads when built
 * against Weft's mpi.h (WEFT_MPI defined), pthreads otherwise, so one
 * source runs under both libraries. A failure stops the rank (CHECK). */
#ifndef MPI_TEST_THREADS_H
#define MPI_TEST_THREADS_H

#include <pthread.h>
#include <stdint.h>

#include "mpi_test_util.h"

#ifdef WEFT_MPI
#include <weft.h>
typedef weft_thread_t mt_thread;
#else
typedef pthread_t mt_thread;
#endif

/* Start fn(arg) in a new thread. */
static inline void mt_start(mt_thread *t, void *(*fn)(void *), intptr_t arg)
{
#ifdef WEFT_MPI
    CHECK(weft_thread_create(t, NULL, fn, (void *)arg) == 0, "weft_thread_create");
#else
    CHECK(pthread_create(t, NULL, fn, (void *)arg) == 0, "pthread_create");
#endif
}

/* Wait for t to end. */
static inline void mt_join(mt_thread t)
{
#ifdef WEFT_MPI
    CHECK(weft_thread_join(t, NULL) == 0, "weft_thread_join");
#else
    CHECK(pthread_join(t, NULL) == 0, "pthread_join");
#endif
}

#endif /* MPI_TEST_THREADS_H */
