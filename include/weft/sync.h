/* Weft synchronisation: mutex, condition variable, counting semaphore,
 * barrier, once and thread-local keys, and the runtime lock.
 *
 * All of them but the runtime lock block the calling user-level thread,
 * never its worker: the worker runs other threads meanwhile. They may also
 * be used by external kernel threads (plain pthreads), which then sleep in
 * the kernel.
 * Objects are caller-owned: initialise them with the *_init function or the
 * static initializer; fields marked private are not to be touched.
 */
#ifndef WEFT_SYNC_H
#define WEFT_SYNC_H

#include <stdint.h>
#include <weft/errno.h>
#include <weft/thread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A FIFO list of blocked waiters, guarded by a spin lock. Private. */
typedef struct weft_waitq {
    int   lock;   /* private */
    void *head;   /* private */
    void *tail;   /* private */
} weft_waitq;
#define WEFT_WAITQ_INITIALIZER { 0, 0, 0 }

/* ----------------------------------------------------------- runtime lock */

/* The lock Weft's own internals use (the scheduler's run queues, the wait
 * queues behind every primitive below, the I/O server), for state that a
 * program shares with code the scheduler runs outside any thread - the
 * I/O server's poll() callbacks above all. Its holder runs in a runtime
 * critical section, so the scheduler never switches it out (a preemption
 * waits for the release); a waiter spins briefly, then sleeps in the
 * kernel, its worker with it, until the release. So: sections of a few
 * microseconds that never block, wait, yield or call weft_io_wait.
 * Zero-initialised or WEFT_RTLOCK_INITIALIZER; no destroy needed. */
typedef struct weft_rtlock {
    int word; /* private: 0 free, 1 held, 2 held with sleepers */
} weft_rtlock_t;
#define WEFT_RTLOCK_INITIALIZER { 0 }

/* Take `l`, waiting (spin, then kernel sleep) while another holds it. Not
 * recursive. Context: ULT, external, I/O callbacks that may wait
 * (weft_io_idle_poll says 1); not a signal handler.
 * Blocks: the kernel thread, never the ULT alone. */
void weft_rtlock_lock(weft_rtlock_t *l);

/* Take `l` if it is free: 1 if taken, 0 if busy. Context: any but signal
 * (every I/O callback). Blocks: no. */
int weft_rtlock_trylock(weft_rtlock_t *l);

/* Release `l` (held by the caller). Context: as weft_rtlock_lock.
 * Blocks: no. */
void weft_rtlock_unlock(weft_rtlock_t *l);

/* ------------------------------------------------------------------ mutex */

typedef struct weft_mutex {
    int           state;   /* private: lock, waiters, waking, hand-off bits */
    weft_thread_t owner;   /* private: holder, for the error checks */
    weft_waitq    waiters; /* private */
} weft_mutex_t;
#define WEFT_MUTEX_INITIALIZER { 0, 0, WEFT_WAITQ_INITIALIZER }

/* Initialise an unlocked mutex. Errors: WEFT_EINVAL (m NULL).
 * Context: any but signal. Blocks: no. */
int weft_mutex_init(weft_mutex_t *m);

/* Destroy an unlocked mutex. Errors: WEFT_EINVAL, WEFT_EBUSY (locked).
 * Context: any but signal. Blocks: no. */
int weft_mutex_destroy(weft_mutex_t *m);

/* Lock `m`, blocking the caller while another thread holds it. Not
 * recursive. Ownership belongs to the calling ULT (it stays the owner when
 * it migrates between workers) or, for an external thread, to that kernel
 * thread. A ULT and external threads may share one mutex.
 * Fairness: waiters are woken in FIFO order, but a running thread may take
 * a just-released mutex before the woken waiter (barging, for throughput);
 * once a waiter has waited about 1 ms, unlock hands the mutex directly to
 * the oldest waiter, so no waiter starves.
 * Errors: WEFT_EINVAL, WEFT_EDEADLK (the caller holds it).
 * Context: ULT or external. Blocks: yes. */
int weft_mutex_lock(weft_mutex_t *m);

/* Lock `m` if it is free. Errors: WEFT_EINVAL, WEFT_EBUSY (held, by the
 * caller or another thread).
 * Context: ULT or external. Blocks: no. */
int weft_mutex_trylock(weft_mutex_t *m);

/* Unlock `m`, waking the longest waiter (if any); see weft_mutex_lock
 * for who gets the mutex next.
 * Errors: WEFT_EINVAL, WEFT_EPERM (the caller does not hold it).
 * Context: ULT or external. Blocks: no. */
int weft_mutex_unlock(weft_mutex_t *m);

/* -------------------------------------------------------------- condition */

typedef struct weft_cond {
    weft_waitq waiters; /* private */
} weft_cond_t;
#define WEFT_COND_INITIALIZER { WEFT_WAITQ_INITIALIZER }

/* Initialise a condition variable. Errors: WEFT_EINVAL.
 * Context: any but signal. Blocks: no. */
int weft_cond_init(weft_cond_t *c);

/* Destroy `c`. Errors: WEFT_EINVAL, WEFT_EBUSY (threads wait on it).
 * Context: any but signal. Blocks: no. */
int weft_cond_destroy(weft_cond_t *c);

/* Atomically unlock `m` and wait for a signal on `c`; `m` is locked again
 * on return. Spurious wake-ups are possible: wait in a loop.
 * Errors: WEFT_EINVAL, WEFT_EPERM (the caller does not hold m).
 * Context: ULT or external. Blocks: yes. */
int weft_cond_wait(weft_cond_t *c, weft_mutex_t *m);

/* Wake one waiter of `c` (none: nothing happens). Errors: WEFT_EINVAL.
 * Context: ULT or external. Blocks: no. */
int weft_cond_signal(weft_cond_t *c);

/* Wake every waiter of `c`. Errors: WEFT_EINVAL.
 * Context: ULT or external. Blocks: no. */
int weft_cond_broadcast(weft_cond_t *c);

/* -------------------------------------------------------------- semaphore */

typedef struct weft_sem {
    int64_t    count;   /* private */
    weft_waitq waiters; /* private */
} weft_sem_t;

/* Initialise a counting semaphore with `value` (>= 0). Errors: WEFT_EINVAL.
 * Context: any but signal. Blocks: no. */
int weft_sem_init(weft_sem_t *s, int64_t value);

/* Destroy `s`. Errors: WEFT_EINVAL, WEFT_EBUSY (threads wait on it).
 * Context: any but signal. Blocks: no. */
int weft_sem_destroy(weft_sem_t *s);

/* Decrement `s`, blocking while it is 0. Errors: WEFT_EINVAL.
 * Context: ULT or external. Blocks: yes. */
int weft_sem_wait(weft_sem_t *s);

/* Decrement `s` if it is positive. Errors: WEFT_EINVAL, WEFT_EAGAIN (0).
 * Context: ULT or external. Blocks: no. */
int weft_sem_trywait(weft_sem_t *s);

/* Increment `s`, waking one waiter if any. Errors: WEFT_EINVAL.
 * Context: ULT or external. Blocks: no. */
int weft_sem_post(weft_sem_t *s);

/* Current value of `s` (a snapshot). Errors: WEFT_EINVAL (s NULL).
 * Context: any. Blocks: no. */
int64_t weft_sem_value(weft_sem_t *s);

/* ---------------------------------------------------------------- barrier */

typedef struct weft_barrier {
    unsigned   count;      /* private: threads per round */
    unsigned   arrived;    /* private */
    uint64_t   generation; /* private */
    weft_waitq waiters;    /* private */
} weft_barrier_t;

#define WEFT_BARRIER_SERIAL_THREAD 1

/* Initialise a barrier for `count` (>= 1) threads. Errors: WEFT_EINVAL.
 * Context: any but signal. Blocks: no. */
int weft_barrier_init(weft_barrier_t *b, unsigned count);

/* Destroy `b`. Errors: WEFT_EINVAL, WEFT_EBUSY (threads wait on it).
 * Context: any but signal. Blocks: no. */
int weft_barrier_destroy(weft_barrier_t *b);

/* Wait until `count` threads have arrived. One of them (the last to arrive)
 * gets WEFT_BARRIER_SERIAL_THREAD, the others 0. The barrier is reusable.
 * Errors: WEFT_EINVAL. Context: ULT or external. Blocks: yes. */
int weft_barrier_wait(weft_barrier_t *b);

/* ------------------------------------------------------------------- once */

typedef struct weft_once {
    int        state;   /* private: 0 not run, 1 running, 2 done */
    weft_waitq waiters; /* private */
} weft_once_t;
#define WEFT_ONCE_INIT { 0, WEFT_WAITQ_INITIALIZER }

/* Run fn() exactly once per `once` object; concurrent callers block until
 * it has finished. Errors: WEFT_EINVAL.
 * Context: ULT or external. Blocks: yes (while another caller runs fn). */
int weft_once(weft_once_t *once, void (*fn)(void));

/* ------------------------------------------------------ thread-local keys */

typedef unsigned weft_key_t;
#define WEFT_KEYS_MAX 128

/* Create a key; each ULT sees its own value (initially NULL, also in
 * threads that used a deleted key of the same number). When a ULT finishes,
 * destructor(value) runs on it for each non-NULL value (if destructor is
 * not NULL), the value being reset to NULL first; if destructors set new
 * values, this repeats, at most 4 rounds in all (as
 * PTHREAD_DESTRUCTOR_ITERATIONS). The main thread's values are not
 * destroyed. Errors: WEFT_EINVAL, WEFT_EAGAIN (WEFT_KEYS_MAX keys exist).
 * Context: any but signal. Blocks: no. */
int weft_key_create(weft_key_t *key, void (*destructor)(void *));

/* Delete `key`; destructors are not run, and the values of every thread
 * are forgotten (weft_key_get gives NULL, weft_key_set WEFT_EINVAL).
 * Errors: WEFT_EINVAL (not a live key). Context: any but signal. Blocks: no. */
int weft_key_delete(weft_key_t key);

/* Set the caller's value for `key`. Errors: WEFT_EINVAL (bad key, or the
 * caller is not a ULT), WEFT_ENOMEM. Context: ULT. Blocks: no. */
int weft_key_set(weft_key_t key, const void *value);

/* The caller's value for `key`; NULL if unset, invalid or not a ULT.
 * Context: ULT. Blocks: no. */
void *weft_key_get(weft_key_t key);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_SYNC_H */
