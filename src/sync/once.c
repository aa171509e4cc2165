/* One-time initialisation (weft_once) that blocks the calling user-level
 * thread while another caller runs the function.
 *
 * State word (once->state, atomic): 0 not run, 1 running, 2 done.
 * The fast path is one acquire load that sees 2. Otherwise, under the
 * queue lock, the first caller moves 0 -> 1 and runs fn() *without* the
 * lock held (fn may block, yield or be preempted); later callers queue and
 * block. When fn returns, the runner stores 2 (release, so fn's effects are
 * visible to whoever sees 2), unlinks every queued caller and wakes them.
 *
 * Callers never spin: a thread that finds 1 blocks, so a long fn() costs
 * the others nothing. A recursive call of weft_once on the same object
 * from fn() deadlocks (as with pthread_once). If fn() never returns (the
 * thread exits inside it), the others stay blocked: pthread_once leaves
 * that undefined too; cancellation does not exist in Weft.
 *
 * Locks: once->waiters.lock guards the queue and the 0 -> 1 and 1 -> 2
 * transitions; the fast path reads the state word only.
 */
#include "sync/waitq.h"

enum { NOT_RUN = 0, RUNNING = 1, DONE = 2 };

static int is_done(weft_once_t *once)
{
    return __atomic_load_n(&once->state, __ATOMIC_ACQUIRE) == DONE;
}

static void run_and_release(weft_once_t *once, void (*fn)(void))
{
    wf_wait *blocked;

    fn();
    wf_lock(&once->waiters.lock);
    __atomic_store_n(&once->state, DONE, __ATOMIC_RELEASE);
    blocked = wf_waitq_pop_all(&once->waiters);
    wf_unlock(&once->waiters.lock);
    wf_waitq_wake_chain(blocked, 0);
}

int weft_once(weft_once_t *once, void (*fn)(void))
{
    wf_wait w;

    if (!once || !fn)
        return WEFT_EINVAL;
    if (is_done(once))
        return 0;
    wf_wait_init(&w);
    wf_lock(&once->waiters.lock);
    switch (__atomic_load_n(&once->state, __ATOMIC_ACQUIRE)) {
    case NOT_RUN:
        __atomic_store_n(&once->state, RUNNING, __ATOMIC_RELAXED);
        wf_unlock(&once->waiters.lock);
        run_and_release(once, fn);
        return 0;
    case RUNNING:
        wf_waitq_block(&once->waiters, &w); /* woken after DONE */
        return 0;
    default:
        wf_unlock(&once->waiters.lock);
        return 0;
    }
}
