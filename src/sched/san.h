/* AddressSanitizer support for stack switching (private to src/sched/).
 *
 * ASan tracks one stack per kernel thread; when we swap stacks under it, it
 * must be told, or it reports false errors (and warns about ignoring
 * __asan_handle_no_return). Before every wf_ctx_switch we announce the
 * stack we are going to (start) and, once running again, confirm the
 * arrival (finish). A context that will never be resumed (a finished
 * thread) passes NULL, so ASan frees its fake stack. Without ASan these
 * compile to nothing.
 */
#ifndef WF_SCHED_SAN_H
#define WF_SCHED_SAN_H

#include <stddef.h>

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

#endif /* WF_SCHED_SAN_H */
