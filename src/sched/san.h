/* Sanitizer support for stack switching (private to src/sched/).
 *
 * AddressSanitizer tracks one stack per kernel thread; when we swap stacks
 * under it, it must be told, or it reports false errors (and warns about
 * ignoring __asan_handle_no_return). Before every wf_ctx_switch we announce
 * the stack we are going to (start) and, once running again, confirm the
 * arrival (finish). A context that will never be resumed (a finished
 * thread) passes NULL, so ASan frees its fake stack.
 *
 * ThreadSanitizer keeps a shadow call stack and a vector clock per thread;
 * a context switch it does not see mixes the frames and histories of
 * different ULTs and produces nonsense reports. Each context therefore
 * owns a TSan fiber: a ULT from creation until it is reaped, an idle loop
 * for its worker's life; the main ULT and each worker's kernel stack use
 * the fiber of their kernel thread. wf_san_fiber_switch() runs right
 * before every wf_ctx_switch, with synchronisation: what a context did
 * before the switch happens before what the next one does, as it really
 * does on one kernel thread.
 *
 * Without the matching sanitizer all of these compile to nothing (fibers
 * are NULL).
 */
#ifndef WF_SCHED_SAN_H
#define WF_SCHED_SAN_H

#include <stddef.h>

#if defined(__SANITIZE_THREAD__)
#define WF_SAN_THREAD 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define WF_SAN_THREAD 1
#endif
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>

static inline void wf_san_switch_start(void **fake_save, const void *bottom, size_t size)
{
    __sanitizer_start_switch_fiber(fake_save, bottom, size);
}

static inline void wf_san_switch_finish(void *fake_save)
{
    __sanitizer_finish_switch_fiber(fake_save, NULL, NULL);
}
#else
static inline void wf_san_switch_start(void **fake_save, const void *bottom, size_t size)
{
    (void)fake_save;
    (void)bottom;
    (void)size;
}

static inline void wf_san_switch_finish(void *fake_save)
{
    (void)fake_save;
}
#endif

#ifdef WF_SAN_THREAD
#include <sanitizer/tsan_interface.h>

/* The fiber of the running context (for a kernel thread's own stack). */
static inline void *wf_san_fiber_current(void)
{
    return __tsan_get_current_fiber();
}

static inline void *wf_san_fiber_create(void)
{
    return __tsan_create_fiber(0);
}

/* Never the running fiber. */
static inline void wf_san_fiber_destroy(void *fiber)
{
    if (fiber)
        __tsan_destroy_fiber(fiber);
}

static inline void wf_san_fiber_switch(void *to)
{
    __tsan_switch_to_fiber(to, 0);
}
#else
static inline void *wf_san_fiber_current(void)
{
    return NULL;
}

static inline void *wf_san_fiber_create(void)
{
    return NULL;
}

static inline void wf_san_fiber_destroy(void *fiber)
{
    (void)fiber;
}

static inline void wf_san_fiber_switch(void *to)
{
    (void)to;
}
#endif

#endif /* WF_SCHED_SAN_H */
