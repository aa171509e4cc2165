/* Wake-path tracing of the I/O server: per completed wait on a user class,
 * the timestamps along the way from "the event happened" to "the waiter
 * runs again", so that a tail latency can be attributed to one step
 * instead of guessed at.
 *
 * Enabled by WEFT_IO_TRACE=<path prefix> (read once at start-up); each
 * process then writes <prefix>.<pid> at exit, one line per wait:
 *   handle how start blk_engage blk_enter blk_return fire run fire_w run_w
 * times in ns of CLOCK_MONOTONIC (comparable across the processes of one
 * machine, so a peer's send time can be joined to them), 0 where a step
 * did not happen; how = immediate|poll|block|signal; fire_w/run_w = the
 * worker that detected the wait and the one that resumed the waiter (-1:
 * a server kernel thread, or an external thread). For a block detection:
 *   blk_engage  the blocker was last engaged (futex wake sent);
 *   blk_enter   it entered block() (epoll_wait);
 *   blk_return  block() returned;
 *   fire        the waiter was found ready and made runnable;
 *   run         the waiter was running again (back in weft_io_wait).
 * At most TRACE_MAX waits are kept (the first ones). Off, it costs one
 * relaxed load per wait end and per blocking round.
 *
 * Rejected: tracing into the statistics histograms only (no per-wait join
 * with the peer's timestamps, which is what places the tail); a kernel
 * tracer (perf sched) - not available to unprivileged users everywhere,
 * and blind to user-level switches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/io.h"

#define TRACE_MAX (1 << 19)

typedef struct trace_rec {
    char handle[32];
    int how, fire_w, run_w;
    int64_t start, engage, enter, ret, fire, run;
} trace_rec;

int wf_io_tracing;
static trace_rec *recs;
static unsigned nrecs; /* atomic: slots taken */
static char path[256];

static void dump(void)
{
    static const char *const hows[] = { "immediate", "poll", "block", "signal" };
    FILE *f = fopen(path, "w");
    unsigned n = __atomic_load_n(&nrecs, __ATOMIC_ACQUIRE);
    if (!f)
        return;
    n = n < TRACE_MAX ? n : TRACE_MAX;
    for (unsigned i = 0; i < n; i++) {
        const trace_rec *r = &recs[i];
        fprintf(f, "%s %s %lld %lld %lld %lld %lld %lld %d %d\n", r->handle, hows[r->how & 3],
                (long long)r->start, (long long)r->engage, (long long)r->enter,
                (long long)r->ret, (long long)r->fire, (long long)r->run, r->fire_w, r->run_w);
    }
    fclose(f);
}

void wf_io_trace_init(void)
{
    const char *p = getenv("WEFT_IO_TRACE");
    if (!p || !*p)
        return;
    recs = calloc(TRACE_MAX, sizeof *recs);
    if (!recs)
        return;
    snprintf(path, sizeof path, "%s.%ld", p, (long)getpid());
    atexit(dump);
    __atomic_store_n(&wf_io_tracing, 1, __ATOMIC_RELEASE);
}

void wf_io_trace_fire(weft_io_t h, wf_io_req *r, int how)
{
    r->tr_fire = wf_io_now();
    r->tr_how = how;
    r->tr_fire_w = weft_worker_id();
    if (how == WF_DET_BLOCK) {
        r->tr_engage = __atomic_load_n(&h->tr_engage, __ATOMIC_RELAXED);
        r->tr_enter = __atomic_load_n(&h->tr_enter, __ATOMIC_RELAXED);
        r->tr_ret = __atomic_load_n(&h->tr_ret, __ATOMIC_RELAXED);
    }
}

void wf_io_trace_done(weft_io_t h, const wf_io_req *r)
{
    if (!r->tr_fire)
        return; /* not detected (deadline, cancel) */
    unsigned i = __atomic_fetch_add(&nrecs, 1, __ATOMIC_RELAXED);
    if (i >= TRACE_MAX)
        return;
    trace_rec *t = &recs[i];
    snprintf(t->handle, sizeof t->handle, "%s", h->name);
    t->how = r->tr_how;
    t->fire_w = r->tr_fire_w;
    t->run_w = weft_worker_id();
    t->start = r->start_ns;
    t->engage = r->tr_engage;
    t->enter = r->tr_enter;
    t->ret = r->tr_ret;
    t->fire = r->tr_fire;
    t->run = wf_io_now();
}
