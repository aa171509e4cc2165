/* bench/clam, CLAM's adaptive time-slice rule (paper section 3.4), used by
 * the SANR and SAINR receive threads.
 *
 * On its i-th activation the receive thread reads X_i datagrams. With the
 * last n = 3 estimates X_{i-2}, X_{i-1}, X_i:
 *   all < Lmin (1)           T_{i+1} = T_i * alpha   (nobody waited: relax)
 *   all > beta*Lmax (5)      T_{i+1} = T_i / alpha   (the buffer filled up)
 *   otherwise                T_{i+1} = T_i
 * with alpha = 1 + 1/8, computed with a shift and an add (or subtract) as
 * the paper does, so T shrinks by 1/8 rather than dividing by 9/8. The
 * window slides by one activation: the rule is the paper's indicator
 * products evaluated at every i. T stays within the paper's bounds (10 to
 * 500 ms, scaled).
 */
#include "clam.h"

void clam_adapt_init(clam_adapt *a, int64_t slice_ns)
{
    for (int i = 0; i < CLAM_WINDOW_N; i++)
        a->history[i] = 0;
    a->seen = 0;
    a->slice_ns = slice_ns;
}

/* 1 if every sample of the window is below `bound` (below != 0) or above
 * it (below == 0): the paper's Y_L and Y_H. */
static int window_all(const clam_adapt *a, int below, int bound)
{
    for (int i = 0; i < CLAM_WINDOW_N; i++) {
        int x = a->history[i];
        if (below ? x >= bound : x <= bound)
            return 0;
    }
    return 1;
}

static int64_t clamp_slice(int64_t t)
{
    if (t < CLAM_SLICE_MIN_NS)
        return CLAM_SLICE_MIN_NS;
    if (t > CLAM_SLICE_MAX_NS)
        return CLAM_SLICE_MAX_NS;
    return t;
}

int clam_adapt_step(clam_adapt *a, int packets)
{
    a->history[a->seen % CLAM_WINDOW_N] = packets;
    a->seen++;
    if (a->seen < CLAM_WINDOW_N)
        return 0;
    int64_t t = a->slice_ns;
    if (window_all(a, 1, CLAM_LMIN))
        t = t + (t >> 3);
    else if (window_all(a, 0, CLAM_BETA_LMAX))
        t = t - (t >> 3);
    t = clamp_slice(t);
    if (t == a->slice_ns)
        return 0;
    a->slice_ns = t;
    return 1;
}
