/* The adaptive part of the I/O server: each handle's polling period and
 * its spin budget follow recent history, by CLAM's SANR rule (Slicing with
 * Adaptive, Nonpreemptive Receive, section 3.4 of "Tailoring thread
 * schedules": window n = 3, alpha = 1 + 1/8, computed with shifts).
 *
 * The rule. A value V is adjusted after each observation X_i:
 *   if X_{i-2}, X_{i-1}, X_i are all "too few" -> V += V >> 3
 *   if X_{i-2}, X_{i-1}, X_i are all "too many" -> V -= V >> 3
 *   otherwise V is unchanged; V is clamped to [V_min, V_max].
 * The window is a 3-bit shift register per condition. Like CLAM we apply
 * it at every observation (no reset after an adjustment), so a sustained
 * condition moves V by 12.5 % per observation once three have agreed.
 *
 * 1. Polling period T (scheduler ticks, fixed point: 256 = 1 tick). X_i =
 *    number of requests the i-th poll round of a safe point or the poller
 *    found ready (idle polls are free and not counted).
 *      too few:  X_i < L_min = 1 (an empty round)       -> T grows
 *      too many: X_i > beta*L_max = 0 (it found work)   -> T shrinks
 *    CLAM's beta*L_max was 5 queued packets; a waiting request is found
 *    once, so "every round found something" is our sign of polling too
 *    slowly. With one event every I, T settles between I/2 and I (CLAM's
 *    Figure 7c: the period follows the interarrival time). base =
 *    frequency ticks (1/8 tick for frequency 0), T_min = max(base/8, 1/8
 *    tick), T_max = 8 * base, T starts at base. With frequency 0 the
 *    safe points poll at every switch anyway; T only paces the poller.
 *
 * 2. Spin budget S (ns): how long one idle worker keeps polling a handle
 *    after a wait starts before handing it to the blocker (adaptive
 *    strategy). X_i = detection latency D of the i-th wait detected after
 *    blocking (immediate detections never spun and are not counted):
 *      too few:  S < D <= S_max (a longer spin would have caught it)
 *                                                          -> S grows
 *      too many: D <= S/2 (spinning far longer than needed) or D > S_max
 *                (waits too long for any spin to pay)     -> S shrinks
 *    S_max = WEFT_IO_SPIN_US (default 500 us), S_min = S_start = 50 us
 *    (S_min rises to the measured wake-up cost: item 3).
 *    Numbers: a passive wake-up through the blocker costs ~40 us here
 *    against ~10 us for a busy poll; spinning for waits that end within a
 *    few hundred microseconds buys that difference, and the cap keeps a
 *    worker from burning more than S_max per wait. A ping-pong with think
 *    times uniform in 0..200 us settles near S = 150 us (three "longs" in
 *    a row then are as rare as three "shorts"). An idle program pays one
 *    spin (<= S_max) per wait start, i.e. nothing measurable.
 *    The floor: a spin shorter than a wake-up costs saves nothing (spin
 *    for as long as blocking costs, then block: never worse than twice
 *    the best choice made knowing the wait's length - the classic
 *    competitive argument). The rule alone, fed short waits, shrinks S
 *    to about twice their typical length: with S_min = 5 us an 8 B
 *    ping-pong over loopback (waits of 4-8 us) settled at S = 6-12 us,
 *    and every wait longer than that slept in epoll_wait, paying a
 *    wake-up of ~40 us or, on a virtual machine whose idle CPU the host
 *    had taken back, hundreds: ~5% of its waits took 256-1024 us, and
 *    runs averaged 6-70 us one-way where Open MPI's spinning took ~9.
 *    With the floor, ~0.3% of waits and 5-9 us (bench/osu_like).
 *
 * 3. The floor follows the wake-up cost measured here. A class whose
 *    block() can tell when the event that ended its sleep happened (the
 *    MPI engine: the kernel's receive timestamp of the data) reports it
 *    with weft_io_note_wake; the lag from the event to the moment block()
 *    saw it is what that sleep cost. wait.c samples it only when the
 *    worker's CPU is neither shared nor contended, and leaves out the
 *    time the thread then queued for a CPU (util/run_delay.h): a queue
 *    for a CPU other tasks hold is no reason to spin, which would only
 *    lengthen it. W, the average of the lags (W += (lag - W) / 8), sets
 *    the floor at 2 W - 50 us (twice the cost's excess over the 50 us a
 *    wake-up costs here normally) once W passes 500 us, the default cap.
 *    Below, the floor stays at 50 us and the rule above adapts S as
 *    before: sleeps of 35-60 us are usual, lags of a few hundred us also
 *    come from waits for the engine's lock or a CPU, and a single slow
 *    wake-up of a few ms moves W by less than 500 us. A longer spin there
 *    saves little and holds a CPU another process may need
 *    (bench/mpi_reactivity, 2 CPUs: with the floor at 2 W - 50 us
 *    throughout, the pinging rank spun 50-350 us beside the echoing
 *    rank's compute threads).
 *    Why a floor at all: on a virtual machine whose host is busy, a
 *    halted virtual CPU can take milliseconds to run again after the
 *    interrupt; a ping-pong whose waits outlast the budget then sleeps on
 *    both sides, each reply is late by a wake-up, so the next wait
 *    outlasts the budget too, and the pair locks into ~2.4 ms per message
 *    (measured at 10% steal) where a spinning MPI takes ~20 us. No budget
 *    under the 500 us cap breaks that. About twice the cost, because a
 *    wait in that lock lasts one wake-up plus the round trip: a spin of
 *    exactly one wake-up ends just before the reply. bench/slow_wake
 *    emulates 2 ms wake-ups: the floor passes 500 us after about 3 of
 *    them, and frees the ping-pong after some 15-20 messages (with 1 W,
 *    it stayed locked). The classic competitive bound becomes up to 3x
 *    instead of 2x the best choice made knowing the wait. With
 *    WEFT_IO_SPIN_US unset the floor may exceed the 500 us cap, up to
 *    WAKE_MAX_NS; set, the variable is a hard cap. W decays as cheap
 *    sleeps are measured again (a wait that outlasts the floor still
 *    sleeps and is measured).
 * Updates are racy by design (relaxed atomics, lost updates possible):
 * an adaptation heuristic needs no lock on the detection path.
 */
#include "io/io.h"

#define SPIN_MIN_NS (50 * 1000LL)
#define SPIN_START_NS (50 * 1000LL)
#define WAKE_MAX_NS (5 * 1000 * 1000LL)
#define WAKE_SLOW_NS (500 * 1000LL) /* the default cap: slow sleeps beyond */

/* Shift observation `bit` into the 3-bit window *w; 1 if all three set. */
static int window(uint8_t *w, int bit)
{
    uint8_t v = (uint8_t)(((__atomic_load_n(w, __ATOMIC_RELAXED) << 1) | (bit != 0)) & 7);
    __atomic_store_n(w, v, __ATOMIC_RELAXED);
    return v == 7;
}

void wf_io_adapt_init(weft_io_t h)
{
    uint32_t f = h->p.frequency > 1000 ? 1000 : h->p.frequency;
    uint32_t base = f ? f * WF_IO_TICK_FP : WF_IO_TICK_FP / 8;
    h->period_min = base / 8 > WF_IO_TICK_FP / 8 ? base / 8 : WF_IO_TICK_FP / 8;
    h->period_max = base * 8;
    h->period_fp = base;
    int64_t max = wf_io_spin_ns();
    h->spin_ns = max < SPIN_START_NS ? max : SPIN_START_NS;
    h->wake_ns = 0;
}

void wf_io_adapt_period(weft_io_t h, int found)
{
    int few = window(&h->win_empty, found == 0);
    int many = window(&h->win_busy, found > 0);
    uint32_t t = __atomic_load_n(&h->period_fp, __ATOMIC_RELAXED);
    if (few)
        t = t + (t >> 3) < h->period_max ? t + (t >> 3) : h->period_max;
    else if (many)
        t = t - (t >> 3) > h->period_min ? t - (t >> 3) : h->period_min;
    __atomic_store_n(&h->period_fp, t, __ATOMIC_RELAXED);
}

/* The spin budget's bounds: the floor is 2 W - SPIN_MIN_NS for a measured
 * wake-up cost W above WAKE_SLOW_NS (else SPIN_MIN_NS), at most
 * WAKE_MAX_NS; the cap is WEFT_IO_SPIN_US, which the floor may exceed
 * unless the variable was set (then the cap bounds both). */
static void spin_bounds(weft_io_t h, int64_t *min, int64_t *max)
{
    int64_t cap = wf_io_spin_ns(), w = __atomic_load_n(&h->wake_ns, __ATOMIC_RELAXED);
    int64_t floor = w > WAKE_SLOW_NS ? 2 * w - SPIN_MIN_NS : SPIN_MIN_NS;
    floor = floor > WAKE_MAX_NS ? WAKE_MAX_NS : floor;
    if (floor > cap && wf_io_spin_explicit())
        floor = cap;
    *min = floor;
    *max = cap > floor ? cap : floor;
}

static int64_t clamp(int64_t v, int64_t min, int64_t max)
{
    return v < min ? min : v > max ? max : v;
}

void wf_io_adapt_spin(weft_io_t h, int64_t latency_ns)
{
    int64_t min, max;
    spin_bounds(h, &min, &max);
    int64_t s = __atomic_load_n(&h->spin_ns, __ATOMIC_RELAXED);
    int few = window(&h->spin_long, latency_ns > s && latency_ns <= max);
    int many = window(&h->spin_short, latency_ns <= s / 2 || latency_ns > max);
    if (few)
        s += s >> 3;
    else if (many)
        s -= s >> 3;
    __atomic_store_n(&h->spin_ns, clamp(s, min, max), __ATOMIC_RELAXED);
}

void wf_io_adapt_wake(weft_io_t h, int64_t lag_ns)
{
    int64_t w = __atomic_load_n(&h->wake_ns, __ATOMIC_RELAXED), min, max;
    w += (lag_ns - w) / 8;
    __atomic_store_n(&h->wake_ns, w, __ATOMIC_RELAXED);
    spin_bounds(h, &min, &max);
    int64_t s = __atomic_load_n(&h->spin_ns, __ATOMIC_RELAXED);
    __atomic_store_n(&h->spin_ns, clamp(s, min, max), __ATOMIC_RELAXED);
}
