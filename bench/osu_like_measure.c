/* bench/osu_like, the measurement loop shared by every variant: the MPI
 * program (Weft's and Open MPI's builds) and the raw TCP floor run exactly
 * this code; only the way bytes move (ol_ops) differs.
 *
 * Method (after the OSU micro-benchmarks' osu_latency, osu_bw, osu_bibw):
 *   latency  the leader sends `bytes` and waits for the same back, `iters`
 *            times; one-way latency = elapsed / (2 iters), in us;
 *   bw       the leader starts 64 sends (one window), waits for them, and
 *            waits for a 4-byte ack that the peer sends once its 64
 *            receives completed; bandwidth = bytes x 64 x iters / elapsed,
 *            in MB/s (10^6 bytes);
 *   bibw     both sides start 64 receives and 64 sends and wait for all;
 *            bandwidth counts both directions: 2 x bytes x 64 x iters;
 *   mt_latency  OL_MT_PAIRS threads on each side, thread i of the leader
 *            ping-pongs with thread i of the peer (its own tag), all at
 *            once, `iters` times each; one-way latency = elapsed /
 *            (2 iters): what each pair sees while the others run (the MPI
 *            program only: the raw floor has no threads).
 * Only the leader's clock is read. Before each step the leader sends the
 * peer a small command (kind, bytes, iters), outside the timed region.
 *
 * Timing: for each (kind, size) a calibration pass (which is also the
 * warm-up) grows `iters` (x10 while a step is far below a tenth of the
 * target, then x2) until a step takes a tenth of target_ns, then scales it
 * to the target. Then `repeats` timed steps per size, with the repeats as
 * the outer loop (all sizes once, then all again), so that slow noise on a
 * shared machine spreads over all sizes alike. Each figure is the median
 * over the repeats, with min and max. A kind that outlives its time budget
 * starts no new repeat (at least one always runs) and says so in a note.
 */
#include "osu_like.h"

#include <stdio.h>
#include <string.h>

#define ITERS_MAX 1000000

static const int full_latency[] = {0, 1, 4, 8, 16, 64, 256, 1024, 4096,
                                   16384, 65536, 262144, 1048576, 4194304};
static const int full_bw[] = {1, 4, 8, 16, 64, 256, 1024, 4096,
                              16384, 65536, 262144, 1048576, 4194304};
static const int quick_latency[] = {0, 8, 1024, 65536, 1048576, 4194304};
static const int quick_bw[] = {8, 1024, 65536, 1048576, 4194304};
static const int full_mt[] = {0, 8, 1024, 16384};
static const int quick_mt[] = {8, 1024};

static const char *const kind_names[OL_NKINDS] = {"latency", "bw", "bibw",
                                                  "mt_latency"};

const char *ol_kind_name(ol_kind k)
{
    return k < OL_NKINDS ? kind_names[k] : "?";
}

int ol_kind_parse(const char *name)
{
    return bench_name_index(kind_names, OL_NKINDS, name);
}

int ol_sizes(ol_kind k, int quick, const int **sizes)
{
    if (k == OL_LATENCY) {
        *sizes = quick ? quick_latency : full_latency;
        return quick ? BENCH_COUNT(quick_latency) : BENCH_COUNT(full_latency);
    }
    if (k == OL_MT_LATENCY) {
        *sizes = quick ? quick_mt : full_mt;
        return quick ? BENCH_COUNT(quick_mt) : BENCH_COUNT(full_mt);
    }
    *sizes = quick ? quick_bw : full_bw;
    return quick ? BENCH_COUNT(quick_bw) : BENCH_COUNT(full_bw);
}

ol_plan ol_make_plan(int quick, int repeats)
{
    ol_plan p;
    p.quick = quick;
    p.repeats = repeats;
    p.kinds = OL_ALL_KINDS;
    p.target_ns = quick ? 10000000 : 40000000;
    p.kind_budget_ns = quick ? 3000000000LL : 12000000000LL;
    return p;
}

/* ---------------------------------------------------------- one step */

/* Time one step of `iters` on the leader: ns, or -1 on failure. */
static double timed_step(const ol_ops *ops, ol_kind k, int bytes,
                         int64_t iters)
{
    ol_cmd c = {k, bytes, iters};
    if (ops->send_cmd(ops->ctx, &c) != 0)
        return -1;
    int64_t t0 = bench_now_ns();
    if (ops->run(ops->ctx, &c, 1) != 0)
        return -1;
    double el = (double)(bench_now_ns() - t0);
    return el > 0 ? el : 1;
}

/* Iterations for a step of about target_ns (also warms up); 0 on error. */
static int64_t calibrate(const ol_ops *ops, ol_kind k, int bytes,
                         int64_t target_ns)
{
    const double enough = (double)target_ns / 10;
    int64_t n = 1;
    for (;;) {
        double el = timed_step(ops, k, bytes, n);
        if (el < 0)
            return 0;
        if (el >= enough || n >= ITERS_MAX) {
            double scaled = (double)n * (double)target_ns / el;
            return scaled < 1 ? 1 : scaled > ITERS_MAX ? ITERS_MAX
                                                       : (int64_t)scaled;
        }
        n *= el < enough / 10 ? 10 : 2;
    }
}

/* The figure of one step: us (latency) or MB/s (bandwidths). */
static double figure(ol_kind k, int bytes, int64_t iters, double ns)
{
    double moved = (double)bytes * OL_WINDOW * (double)iters;
    switch (k) {
    case OL_LATENCY:
    case OL_MT_LATENCY: return ns / (2.0 * (double)iters) / 1000;
    case OL_BW: return moved * 1000 / ns;
    default: return 2 * moved * 1000 / ns;
    }
}

/* ---------------------------------------------------------- one kind */

typedef struct kind_run {
    ol_kind kind;
    int nsizes;
    const int *sizes;
    int64_t iters[OL_MAX_SIZES];
    double samples[OL_MAX_SIZES][BENCH_REPEATS_MAX];
    int done; /* completed repeats */
} kind_run;

static int calibrate_all(const ol_ops *ops, const ol_plan *p, kind_run *r)
{
    for (int i = 0; i < r->nsizes; i++) {
        r->iters[i] = calibrate(ops, r->kind, r->sizes[i], p->target_ns);
        if (r->iters[i] == 0)
            return -1;
    }
    return 0;
}

static int one_repeat(const ol_ops *ops, kind_run *r)
{
    for (int i = 0; i < r->nsizes; i++) {
        double ns = timed_step(ops, r->kind, r->sizes[i], r->iters[i]);
        if (ns < 0)
            return -1;
        r->samples[i][r->done] = figure(r->kind, r->sizes[i], r->iters[i], ns);
    }
    r->done++;
    return 0;
}

static void add_rows(const kind_run *r, const ol_plan *p, const char *variant,
                     bench_table *t)
{
    char cname[BENCH_NAME_MAX];
    int lat = r->kind == OL_LATENCY || r->kind == OL_MT_LATENCY;
    for (int i = 0; i < r->nsizes; i++) {
        double v[BENCH_REPEATS_MAX];
        memcpy(v, r->samples[i], sizeof *v * (size_t)r->done);
        snprintf(cname, sizeof cname, "%s_%d", ol_kind_name(r->kind),
                 r->sizes[i]);
        bench_table_add(t, cname, variant, lat ? "latency" : "bandwidth",
                        bench_stats_of(v, r->done), lat ? "us" : "MB/s");
    }
    if (r->done < p->repeats)
        bench_table_note(t, "%s %s: %d of %d repeats within the %.0f s "
                         "budget", variant, ol_kind_name(r->kind), r->done,
                         p->repeats, (double)p->kind_budget_ns / 1e9);
}

static int measure_kind(const ol_ops *ops, const ol_plan *p, ol_kind k,
                        bench_table *t, const char *variant)
{
    static kind_run r; /* large: static (one leader per process) */
    int64_t deadline = bench_now_ns() + p->kind_budget_ns;
    memset(&r, 0, sizeof r);
    r.kind = k;
    r.nsizes = ol_sizes(k, p->quick, &r.sizes);
    if (calibrate_all(ops, p, &r) != 0)
        return -1;
    while (r.done < p->repeats && r.done < BENCH_REPEATS_MAX &&
           (r.done == 0 || bench_now_ns() < deadline))
        if (one_repeat(ops, &r) != 0)
            return -1;
    add_rows(&r, p, variant, t);
    return 0;
}

int ol_measure_all(const ol_ops *ops, const ol_plan *p, const char *variant,
                   ol_kind_done_fn done, void *arg)
{
    static bench_table t;
    int rc = 0;
    for (int k = 0; k < OL_NKINDS && rc == 0; k++) {
        if (!(p->kinds & 1u << k))
            continue;
        memset(&t, 0, sizeof t);
        rc = measure_kind(ops, p, (ol_kind)k, &t, variant);
        if (rc == 0)
            done(arg, &t);
    }
    ol_cmd stop = {OL_CMD_STOP, 0, 0};
    if (rc == 0) /* after a failure the caller ends the peer */
        rc = ops->send_cmd(ops->ctx, &stop);
    return rc;
}

int ol_serve(const ol_ops *ops)
{
    ol_cmd c;
    for (;;) {
        if (ops->recv_cmd(ops->ctx, &c) != 0)
            return -1;
        if (c.kind == OL_CMD_STOP)
            return 0;
        if (c.kind < 0 || c.kind >= OL_NKINDS || c.bytes < 0 ||
            c.bytes > OL_MAX_BYTES || c.iters < 1)
            return -1;
        if (ops->run(ops->ctx, &c, 0) != 0)
            return -1;
    }
}
