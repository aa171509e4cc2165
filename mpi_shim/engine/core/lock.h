/* The engine's locks are Weft's runtime lock (weft_rtlock_t,
 * <weft/sync.h>), the one the scheduler and the I/O server use: the engine
 * shares its state with the I/O server's poll() callback, which runs at
 * scheduler safe points (and there only tries the lock) or on a thread
 * with nothing else to do (and there may wait for it). The holder runs in
 * a runtime critical section, so a waiter never waits for a holder the
 * scheduler switched out: a poll that waits for the engine while it holds
 * its class's serialisation cannot deadlock with a thread that the holder
 * would need. Sections are short - queue operations and non-blocking
 * socket calls - and never block or wait.
 */
#ifndef WMPI_LOCK_H
#define WMPI_LOCK_H

#include <weft/sync.h>

typedef weft_rtlock_t wmpi_lock;

#define WMPI_LOCK_INITIALIZER WEFT_RTLOCK_INITIALIZER

static inline int wmpi_lock_try(wmpi_lock *l)
{
    return weft_rtlock_trylock(l);
}

static inline void wmpi_lock_take(wmpi_lock *l)
{
    weft_rtlock_lock(l);
}

static inline void wmpi_lock_release(wmpi_lock *l)
{
    weft_rtlock_unlock(l);
}

#endif /* WMPI_LOCK_H */
