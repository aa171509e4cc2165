/* Each event class's polling period follows recent history by CLAM's SANR
 * rule (util/sanr.h: window n = 3, alpha = 1 + 1/8).
 *
 * The period T is kept in scheduler ticks (fixed point: WF_IO_TICK_FP =
 * 1 tick; a tick is min(1 ms, quantum)). X_i = the number of requests the
 * i-th poll round of a busy safe point or a timed poller found ready:
 *   too few:  X_i < 1, an empty round   -> T grows
 *   too many: X_i > 0, it found work    -> T shrinks
 * CLAM's beta*L_max was 5 queued packets; a waiting request is found once,
 * so "every round found something" is our sign of polling too slowly.
 * With one event every I, T settles between I/2 and I (CLAM's Figure 7c:
 * the period follows the interarrival time). base = frequency ticks
 * (1/8 tick for frequency 0), T_min = max(base/8, 1/8 tick), T_max =
 * 8 * base, T starts at base. With frequency 0 the safe points poll at
 * every switch anyway; T only paces the timed polls.
 */
#include "io/io.h"

void wf_io_adapt_init(weft_io_t h)
{
    uint32_t f = h->p.frequency > 1000 * 1000 ? 1000 * 1000 : h->p.frequency;
    uint64_t base = f ? (uint64_t)f * WF_IO_TICK_FP : WF_IO_TICK_FP / 8;
    uint64_t max = base * 8 > UINT32_MAX ? UINT32_MAX : base * 8;
    h->period_min = base / 8 > WF_IO_TICK_FP / 8 ? (uint32_t)(base / 8) : WF_IO_TICK_FP / 8;
    h->period_max = (uint32_t)max;
    h->period_fp = (uint32_t)(base < max ? base : max);
}

void wf_io_adapt_period(weft_io_t h, int found)
{
    int64_t t = __atomic_load_n(&h->period_fp, __ATOMIC_RELAXED);
    t = wf_sanr_step(&h->period_rule, t, found == 0, found > 0, h->period_min, h->period_max);
    __atomic_store_n(&h->period_fp, (uint32_t)t, __ATOMIC_RELAXED);
}

int64_t wf_io_tick_ns(void)
{
    int64_t q = weft_get_quantum();
    return q > 0 && q < 1000000 ? q : 1000000;
}

int64_t wf_io_period_ns(weft_io_t h)
{
    return (int64_t)__atomic_load_n(&h->period_fp, __ATOMIC_RELAXED) * wf_io_tick_ns() /
           WF_IO_TICK_FP;
}
