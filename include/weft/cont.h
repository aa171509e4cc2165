/* Weft continuations: small functions that run on the stack of a thread
 * that switches anyway, instead of costing a thread of their own or a
 * blocked thread (ARIADNE's continuations).
 *
 * A continuation is a function and an argument. It runs without a context
 * of its own: no stack, no register save or restore. Two ways to post one:
 *   - weft_cont_post() runs it at the next context switch of the caller's
 *     worker, for work that need not happen now but must not cost a switch;
 *   - weft_mutex_lock_or_post() runs it under a mutex: at once if the mutex
 *     is free, else later, by the holder, when it unlocks. The caller never
 *     blocks on the mutex (the paper's buffer-pool release and receive-queue
 *     post; tests/unit/cont/ has both examples).
 *
 * What a continuation may do. It runs in the middle of someone else's
 * switch or unlock, so it must be short and must not block, yield, wait or
 * sleep. A weft_cont_post() continuation runs inside a runtime critical
 * section (no preemption): it may take trylocks, post to semaphores,
 * condition variables and other continuations, create threads and wake
 * threads, but not lock a Weft mutex. A weft_mutex_lock_or_post()
 * continuation runs with the mutex held: it must not lock or unlock that
 * mutex itself; it may post more continuations on it, which then run
 * before the mutex is released. Debug builds abort with "cont: ..." when a
 * weft_cont_post() continuation switches.
 */
#ifndef WEFT_CONT_H
#define WEFT_CONT_H

#include <weft/errno.h>
#include <weft/sync.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A continuation: fn(arg). */
typedef void (*weft_cont_fn)(void *arg);

/* Run fn(arg) once, on the worker running the caller, at that worker's
 * next context switch: when the caller (or a thread that runs after it on
 * this worker) yields, blocks, is preempted or finishes, or when the worker
 * goes idle. It runs on the stack of the context that resumes (the next
 * thread, or the worker's idle loop), before that context continues; no
 * context is saved or restored for it. Continuations of one worker run in
 * the order they were posted. A yield that finds nothing else to run is
 * not a switch: the continuation waits for the next one.
 * Returns the index of the worker the continuation will run on (>= 0), as
 * weft_worker_id() numbers them.
 * Errors: WEFT_EINVAL (fn NULL), WEFT_EPERM (the caller is not a ULT: an
 * external thread has no worker to post to), WEFT_ENOMEM.
 * Context: ULT (also inside another continuation). Blocks: no. */
int weft_cont_post(weft_cont_fn fn, void *arg);

/* Run fn(arg) with `m` held. If `m` is free, lock it, run fn(arg) in the
 * caller and unlock it before returning (returns 1). Otherwise do not wait:
 * the call returns 0 at once and fn(arg) runs later, exactly once, with `m`
 * held, in the thread that holds `m` when it unlocks it, before `m` is
 * released. (If calls keep being posted while other threads wait for `m`,
 * an unlock runs two rounds of them and leaves the rest to the next owner,
 * which runs them at its own unlock, or first thing if it takes `m` in
 * weft_mutex_lock_or_post: a stream of posts cannot keep `m` from its
 * waiters.) Posted continuations run in posting order, and the calls one
 * thread makes on one mutex run in the order it made them, whether they
 * ran at once or later. If the caller holds `m` itself, fn runs at its
 * own weft_mutex_unlock(m). Works with every Weft locking call, including
 * weft_cond_wait's unlock.
 * Errors: WEFT_EINVAL (m or fn NULL), WEFT_ENOMEM (no memory to record a
 * posted call; nothing was run or posted).
 * Context: ULT or external. Blocks: no (fn may run before it returns). */
int weft_mutex_lock_or_post(weft_mutex_t *m, weft_cont_fn fn, void *arg);

#ifdef __cplusplus
}
#endif
#endif /* WEFT_CONT_H */
