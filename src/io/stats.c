/* Per-handle statistics of the I/O server: waits, poll calls, detections
 * by strategy, time-outs, and a histogram of detection latency (from the
 * start of a wait to the moment its waiter is woken).
 *
 * Counters are plain uint64_t updated with relaxed atomic adds: a reader
 * (weft_io_get_stats) gets each counter exactly but not a consistent
 * snapshot of all of them, which is enough for statistics and costs ~5 ns
 * per event instead of a lock. Histogram buckets are powers of two in
 * microseconds: bucket 0 is < 1 us, bucket i (1..14) is [2^(i-1), 2^i) us,
 * bucket 15 is everything from 16.4 ms up. Printing walks the registry
 * under its lock (safe points skip polling meanwhile) and writes with
 * dprintf, so it needs no stdio lock of the caller's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

int wf_io_stats_on;

/* WEFT_IO_STATS=1: every class's statistics on stderr at exit. */
void wf_io_stats_from_env(void)
{
    const char *s = getenv("WEFT_IO_STATS");
    if (s && !strcmp(s, "1")) {
        wf_io_stats_on = 1;
        atexit(wf_io_stats_at_exit);
    }
}

void wf_io_stat_add(uint64_t *counter, uint64_t n)
{
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static int bucket_of(int64_t ns)
{
    int64_t us = ns / 1000;
    int b = 0;
    while (us > 0 && b < WEFT_IO_HIST_BUCKETS - 1) {
        us >>= 1;
        b++;
    }
    return b;
}

/* Count (delta 1) or uncount (-1) a detection. */
void wf_io_stat_detect(weft_io_t h, int how, int64_t latency_ns, int delta)
{
    static const size_t field[] = {
        [WF_DET_IMMEDIATE] = offsetof(weft_io_stats, detected_immediate),
        [WF_DET_POLL] = offsetof(weft_io_stats, detected_poll),
        [WF_DET_BLOCK] = offsetof(weft_io_stats, detected_block),
        [WF_DET_SIGNAL] = offsetof(weft_io_stats, detected_signal),
    };
    wf_io_stat_add((uint64_t *)((char *)&h->st + field[how]), (uint64_t)(int64_t)delta);
    wf_io_stat_add(&h->st.latency_hist[bucket_of(latency_ns)], (uint64_t)(int64_t)delta);
}

static uint64_t get(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

int weft_io_get_stats(weft_io_t h, weft_io_stats *st)
{
    if (!h || !st)
        return WEFT_EINVAL;
    st->waits = get(&h->st.waits);
    st->polls = get(&h->st.polls);
    st->detected_poll = get(&h->st.detected_poll);
    st->detected_block = get(&h->st.detected_block);
    st->detected_signal = get(&h->st.detected_signal);
    st->detected_immediate = get(&h->st.detected_immediate);
    st->timeouts = get(&h->st.timeouts);
    for (int i = 0; i < WEFT_IO_HIST_BUCKETS; i++)
        st->latency_hist[i] = get(&h->st.latency_hist[i]);
    return 0;
}

void wf_io_stats_print_one(int fd, weft_io_t h)
{
    weft_io_stats st;
    weft_io_get_stats(h, &st);
    dprintf(fd, "weft io \"%s\": waits %llu, polls %llu, detected: immediate %llu, "
                "poll %llu, block %llu, signal %llu; timeouts %llu; period %.3f ticks\n",
            h->name, (unsigned long long)st.waits, (unsigned long long)st.polls,
            (unsigned long long)st.detected_immediate, (unsigned long long)st.detected_poll,
            (unsigned long long)st.detected_block, (unsigned long long)st.detected_signal,
            (unsigned long long)st.timeouts,
            (double)__atomic_load_n(&h->period_fp, __ATOMIC_RELAXED) / WF_IO_TICK_FP);
    dprintf(fd, "  latency (us, upper bounds):");
    for (int i = 0; i < WEFT_IO_HIST_BUCKETS; i++) {
        if (i < WEFT_IO_HIST_BUCKETS - 1)
            dprintf(fd, " <%d:%llu", 1 << i, (unsigned long long)st.latency_hist[i]);
        else
            dprintf(fd, " more:%llu\n", (unsigned long long)st.latency_hist[i]);
    }
}

int weft_io_print_stats(int fd)
{
    wf_lock(&wf_io_reg_lock);
    for (weft_io_t h = wf_io_registry; h; h = h->reg_next)
        wf_io_stats_print_one(fd, h);
    wf_unlock(&wf_io_reg_lock);
    return 0;
}

void wf_io_stats_at_exit(void)
{
    weft_io_print_stats(2);
}
