/* CLAM's adaptive rule (SANR, "Tailoring thread schedules", section 3.4):
 * a value follows recent observations through two 3-bit windows.
 *
 * After each observation, the value grows by 1/8 if the last three were
 * all "too few" and shrinks by 1/8 if the last three were all "too many"
 * (window n = 3, alpha = 1 + 1/8, computed with shifts), then is clamped.
 * Like CLAM it adjusts at every observation once three agree (no reset),
 * so a sustained condition moves the value 12.5 % per observation.
 * Updates are racy by design (relaxed atomics): a lost update only delays
 * an adaptation, and no lock sits on the detection path.
 *
 * Used for the idle workers' spin budget (sched/worker.c) and for each
 * event class's polling period (io/adapt.c).
 */
#ifndef WF_UTIL_SANR_H
#define WF_UTIL_SANR_H

#include <stdint.h>

typedef struct wf_sanr {
    uint8_t too_few;  /* 3-bit window: observation said "grow" */
    uint8_t too_many; /* 3-bit window: observation said "shrink" */
} wf_sanr;

/* Shift `bit` into the window *w; 1 if its last three bits are all set. */
static inline int wf_sanr_window(uint8_t *w, int bit)
{
    uint8_t v = (uint8_t)(((__atomic_load_n(w, __ATOMIC_RELAXED) << 1) | (bit != 0)) & 7);
    __atomic_store_n(w, v, __ATOMIC_RELAXED);
    return v == 7;
}

/* One observation: `few` and `many` say which way it points (at most one
 * should be set). Returns the adjusted value, clamped to [min, max]. */
static inline int64_t wf_sanr_step(wf_sanr *s, int64_t value, int few, int many,
                                   int64_t min, int64_t max)
{
    int grow = wf_sanr_window(&s->too_few, few);
    int shrink = wf_sanr_window(&s->too_many, many);
    if (grow)
        value += value >> 3;
    else if (shrink)
        value -= value >> 3;
    return value < min ? min : value > max ? max : value;
}

#endif /* WF_UTIL_SANR_H */
