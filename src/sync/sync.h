/* The sync layer's interface to the other layers (the continuations of
 * src/cont/). Everything else in src/sync/ is private.
 *
 * Continuations posted on a mutex (weft_mutex_lock_or_post). The sync
 * layer keeps one state bit per mutex, "posted": set only while the mutex
 * is held, it makes the holder's weft_mutex_unlock() call the registered
 * runner, with the mutex still held, before it releases the mutex. The
 * runner (src/cont/) keeps the posted calls themselves. The protocol a
 * poster follows:
 *     record the call where the runner will find it;
 *     if (wf_mutex_mark_posted(m)) done: the holder will run it;
 *     else (m was free) take the record back if the runner has not, and
 *          retry (trylock...).
 * An unlock clears the bit before it calls the runner and re-reads the
 * state afterwards, so a call recorded while the runner runs is not left
 * behind: nothing posted is lost, nothing runs twice. If posts keep coming
 * while other threads wait for the mutex, an unlock may release it with
 * the bit still set; the next owner then calls the runner at its unlock
 * (the bit is set only while the mutex is held or has waiters).
 */
#ifndef WF_SYNC_SYNC_H
#define WF_SYNC_SYNC_H

#include <weft/sync.h>

/* Set the function weft_mutex_unlock(m) calls, with m held, when m's
 * "posted" bit is set. Set once, before the first wf_mutex_mark_posted. */
void wf_mutex_set_posted_runner(void (*run)(weft_mutex_t *m));

/* Set m's "posted" bit if m is held (by anyone). Returns 1 if set (the
 * holder's unlock will call the runner), 0 if m was free. Context: any but
 * signal. */
int wf_mutex_mark_posted(weft_mutex_t *m);

#endif /* WF_SYNC_SYNC_H */
