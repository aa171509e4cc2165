/* bench/timer_scale: the cost of arming and cancelling timed events as the
 * number of pending events grows (1 k, 100 k, 1 M), Weft's heap against
 * ARIADNE's delta queue, in one run.
 *
 * Cases pending_1k, pending_100k, pending_1M: the queue holds N events
 * with random deadlines spread over an hour (none fires), armed through the
 * public API (weft_event_at, FUNCTION kind, one distinct argument each).
 * Variants (metric `time`, ns of CPU time per operation, median over the
 * repeats):
 *   insert       weft_event_at of a batch of K new events (random deadlines
 *                in the same hour) while N are pending;
 *   cancel       weft_event_cancel + weft_event_release of that batch, in
 *                random order: the common pattern (a timeout armed before a
 *                wait and cancelled when the wait ends, while it is still
 *                warm in the caches);
 *   cancel_cold  cancel + release of K random events among the N armed
 *                long before (cold in the caches: the worst case), 5
 *                batches per repeat, each re-armed afterwards;
 *   dq_insert    the same random inserts into a delta queue of N nodes
 *                (delta_queue.c, preallocated nodes, no malloc): O(n) walk;
 *   dq_cancel    delta-queue cancel (O(1) unlink).
 * K = 100 at 1 k, 1000 above. A repeat runs insert/cancel rounds until
 * OPS_PER_REPEAT operations (--quick: a tenth); the delta queue runs
 * rounds until DQ_BUDGET_NS of wall time per repeat (at least one insert),
 * since at 1 M one insert walks ~500 k nodes. The delta queue's nodes sit
 * in memory in an order unrelated to their deadlines, as nodes allocated
 * by arming order do in a real program.
 *
 * Clock: batches are timed with the measuring thread's CPU clock
 * (CLOCK_THREAD_CPUTIME_ID, read once per batch of K), not wall time. The
 * operations never wait (the queue lock is uncontended), so CPU time is
 * their cost, and it is not inflated when the shared 2-vCPU machine runs
 * someone else: in wall time the same run's medians moved 2-4x between
 * runs under load, in CPU time ~10 %.
 *
 * Goal: at 1 M pending, insert and cancel cost no more than 2x
 * their cost at 1 k (PASS/MISS lines, ratios of medians). cancel_cold and
 * the delta queue are shown beside for information.
 *
 * Output: table, goal lines, `result:` lines (bench=timer_scale case=...
 * variant=... metric=time unit=ns, plus the ratios), CSV
 * (bench-out/timer_scale.csv) and, with gnuplot, a log-log chart
 * (plot_timer_scale.gp -> bench-out/timer_scale.png). Default run ~10-20 s
 * (the 1 M fill alone takes ~1-2 s); --quick ~3-5 s. The exit status
 * reports errors only.
 */
#include "bench_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weft.h>

#include "delta_queue.h"

#define BENCH "timer_scale"
#define SPAN_NS 3600000000000LL       /* deadlines spread over an hour */
#define START_NS 3600000000000LL      /* ... starting an hour from now */
#define OPS_PER_REPEAT 200000
#define DQ_BUDGET_NS 150000000LL
#define COLD_ROUNDS 5
#define NSIZES 3

static const int64_t sizes[NSIZES] = {1000, 100000, 1000000};
static const char *const case_names[NSIZES] = {"pending_1k", "pending_100k", "pending_1M"};

/* ------------------------------------------------------------ helpers */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static void shuffle_ptrs(void **v, int64_t n)
{
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(rnd() % (uint64_t)(i + 1));
        void *t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void never(void *arg)
{
    (void)arg;
    fprintf(stderr, "timer_scale: an event fired (its deadline was an hour away)\n");
    exit(1);
}

static int64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "timer_scale: out of memory\n");
        exit(1);
    }
    return p;
}

/* ------------------------------------------------------- Weft's heap */

typedef struct heap_bench {
    int64_t base, n;
    int k;
    weft_event_t *fill;  /* the N pending events */
    weft_event_t *batch; /* the K of one round */
} heap_bench;

static weft_event_t arm(heap_bench *b, void *arg)
{
    weft_event_t ev;
    int64_t when = b->base + (int64_t)(rnd() % SPAN_NS);
    if (weft_event_at(&ev, when, NULL, never, arg) != 0) {
        fprintf(stderr, "timer_scale: weft_event_at failed\n");
        exit(1);
    }
    return ev;
}

static void drop(weft_event_t ev)
{
    if (weft_event_cancel(ev) != 1) {
        fprintf(stderr, "timer_scale: cancel of a pending event returned 0\n");
        exit(1);
    }
    weft_event_release(ev);
}

/* One round: K inserts, then K cancels in random order. */
static void heap_round(heap_bench *b, double *ins_ns, double *can_ns)
{
    int64_t t0 = cpu_now_ns();
    for (int i = 0; i < b->k; i++)
        b->batch[i] = arm(b, &b->batch[i]);
    int64_t t1 = cpu_now_ns();
    shuffle_ptrs((void **)b->batch, b->k);
    int64_t t2 = cpu_now_ns();
    for (int i = 0; i < b->k; i++)
        drop(b->batch[i]);
    *ins_ns += (double)(t1 - t0);
    *can_ns += (double)(cpu_now_ns() - t2);
}

/* K random long-armed events cancelled, then re-armed (untimed). */
static double heap_cold_batch(heap_bench *b)
{
    int64_t *idx = xmalloc((size_t)b->k * sizeof *idx);
    for (int i = 0; i < b->k; i++)
        idx[i] = (int64_t)(rnd() % (uint64_t)b->n); /* repeats are skipped */
    int64_t t0 = cpu_now_ns();
    int done = 0;
    for (int i = 0; i < b->k; i++) {
        if (!b->fill[idx[i]])
            continue; /* drawn twice */
        drop(b->fill[idx[i]]);
        b->fill[idx[i]] = NULL;
        done++;
    }
    double ns = (double)(cpu_now_ns() - t0) / (done ? done : 1);
    for (int i = 0; i < b->k; i++)
        if (!b->fill[idx[i]])
            b->fill[idx[i]] = arm(b, &b->fill[idx[i]]);
    free(idx);
    return ns;
}

/* COLD_ROUNDS x K random long-armed events cancelled, each batch re-armed
 * afterwards (untimed) so that N stays pending. */
static double heap_cold_round(heap_bench *b)
{
    double ns = 0;
    for (int r = 0; r < COLD_ROUNDS; r++)
        ns += heap_cold_batch(b);
    return ns / COLD_ROUNDS;
}

static void heap_size(const bench_opts *o, int64_t n, const char *case_name,
                      bench_table *t)
{
    heap_bench b = {.base = bench_now_ns() + START_NS, .n = n, .k = n < 100000 ? 100 : 1000};
    double ins[BENCH_REPEATS_MAX], can[BENCH_REPEATS_MAX], cold[BENCH_REPEATS_MAX];
    int64_t ops = o->quick ? OPS_PER_REPEAT / 10 : OPS_PER_REPEAT;
    b.fill = xmalloc((size_t)n * sizeof *b.fill);
    b.batch = xmalloc((size_t)b.k * sizeof *b.batch);
    for (int64_t i = 0; i < n; i++)
        b.fill[i] = arm(&b, &b.fill[i]);
    double warm_ins = 0, warm_can = 0; /* one untimed round: caches, allocator */
    heap_round(&b, &warm_ins, &warm_can);
    for (int r = 0; r < o->repeats; r++) {
        double ins_ns = 0, can_ns = 0;
        int64_t rounds = ops / b.k;
        for (int64_t i = 0; i < rounds; i++)
            heap_round(&b, &ins_ns, &can_ns);
        ins[r] = ins_ns / (double)(rounds * b.k);
        can[r] = can_ns / (double)(rounds * b.k);
        cold[r] = heap_cold_round(&b);
    }
    for (int64_t i = 0; i < n; i++)
        drop(b.fill[i]);
    free(b.fill);
    free(b.batch);
    bench_table_add(t, case_name, "insert", "time", bench_stats_of(ins, o->repeats), "ns");
    bench_table_add(t, case_name, "cancel", "time", bench_stats_of(can, o->repeats), "ns");
    bench_table_add(t, case_name, "cancel_cold", "time", bench_stats_of(cold, o->repeats), "ns");
}

/* ------------------------------------------------------ the delta queue */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* N nodes with sorted random deadlines, at shuffled places in memory. */
static dq_node **dq_build(delta_queue *q, dq_node *mem, int64_t n, int64_t base)
{
    int64_t *when = xmalloc((size_t)n * sizeof *when);
    dq_node **order = xmalloc((size_t)n * sizeof *order);
    for (int64_t i = 0; i < n; i++) {
        when[i] = base + (int64_t)(rnd() % SPAN_NS);
        order[i] = &mem[i];
    }
    qsort(when, (size_t)n, sizeof *when, cmp_i64);
    shuffle_ptrs((void **)order, n);
    dq_init(q, base);
    for (int64_t i = 0; i < n; i++)
        dq_append(q, order[i], when[i]);
    free(when);
    return order;
}

static void dq_round(delta_queue *q, dq_node *batch, int k, int64_t base,
                     double *ins_ns, double *can_ns)
{
    dq_node *ptrs[1000];
    int64_t t0 = cpu_now_ns();
    for (int i = 0; i < k; i++)
        dq_insert(q, &batch[i], base + (int64_t)(rnd() % SPAN_NS));
    int64_t t1 = cpu_now_ns();
    for (int i = 0; i < k; i++)
        ptrs[i] = &batch[i];
    shuffle_ptrs((void **)ptrs, k);
    int64_t t2 = cpu_now_ns();
    for (int i = 0; i < k; i++)
        dq_cancel(q, ptrs[i]);
    *ins_ns += (double)(t1 - t0);
    *can_ns += (double)(cpu_now_ns() - t2);
}

static void dq_size(const bench_opts *o, int64_t n, const char *case_name,
                    bench_table *t)
{
    delta_queue q;
    int k = n < 100000 ? 100 : 1000;
    int64_t base = bench_now_ns() + START_NS, budget = o->quick ? DQ_BUDGET_NS / 10 : DQ_BUDGET_NS;
    dq_node *mem = xmalloc((size_t)(n + k) * sizeof *mem);
    dq_node **order = dq_build(&q, mem, n, base);
    double ins[BENCH_REPEATS_MAX], can[BENCH_REPEATS_MAX];
    for (int r = 0; r < o->repeats; r++) {
        double ins_ns = 0, can_ns = 0;
        int64_t done = 0;
        int64_t stop = bench_now_ns() + budget;
        int step = n >= 1000000 ? 1 : n >= 100000 ? 10 : k; /* inserts per round */
        do {
            dq_round(&q, mem + n, step, base, &ins_ns, &can_ns);
            done += step;
        } while (bench_now_ns() < stop && done < OPS_PER_REPEAT);
        ins[r] = ins_ns / (double)done;
        can[r] = can_ns / (double)done;
    }
    free(order);
    free(mem);
    bench_table_add(t, case_name, "dq_insert", "time", bench_stats_of(ins, o->repeats), "ns");
    bench_table_add(t, case_name, "dq_cancel", "time", bench_stats_of(can, o->repeats), "ns");
}

/* ---------------------------------------------------------------- goals */

static double ratio_of(const bench_table *t, const char *variant, int big, int small)
{
    const bench_row *a = bench_table_find(t, case_names[big], variant);
    const bench_row *b = bench_table_find(t, case_names[small], variant);
    return a && b && b->st.median > 0 ? a->st.median / b->st.median : -1;
}

static void ratio_line(const bench_table *t, bench_table *d, const char *variant,
                       double goal)
{
    char label[80], text[48], var[BENCH_NAME_MAX];
    double r = ratio_of(t, variant, NSIZES - 1, 0);
    snprintf(label, sizeof label, "%s 1M/1k", variant);
    if (r < 0) {
        printf("%-34s n/a (figure missing)\n", label);
        return;
    }
    if (goal > 0)
        printf("%-34s %s   goal <= %.0fx        %s\n", label, bench_format_ratio(text, sizeof text, r),
               goal, r <= goal ? "PASS" : "MISS");
    else
        printf("%-34s %s   no goal\n", label, bench_format_ratio(text, sizeof text, r));
    snprintf(var, sizeof var, "%s_1M_vs_1k", variant);
    bench_stats st = {r, r, r};
    bench_table_add(d, "pending_1M", var, "ratio", st, "ratio");
}

static void print_goals(const bench_table *t, bench_table *d)
{
    printf("\ngoals (ratios of medians, same run):\n");
    ratio_line(t, d, "insert", 2);
    ratio_line(t, d, "cancel", 2);
    printf("for information:\n");
    ratio_line(t, d, "cancel_cold", 0);
    ratio_line(t, d, "dq_insert", 0);
    ratio_line(t, d, "dq_cancel", 0);
    const bench_row *h = bench_table_find(t, "pending_1M", "insert");
    const bench_row *q = bench_table_find(t, "pending_1M", "dq_insert");
    if (h && q && h->st.median > 0)
        printf("%-34s %.0fx faster than the delta queue\n", "insert at 1M: heap", q->st.median / h->st.median);
}

/* ------------------------------------------------------------------ CSV */

static int variant_rank(const char *v)
{
    static const char *const order[] = {"insert", "cancel", "cancel_cold", "dq_insert", "dq_cancel"};
    for (int i = 0; i < 5; i++)
        if (strcmp(order[i], v) == 0)
            return i;
    return 5;
}

/* The CSV lists each variant's sizes together (so the chart can draw one
 * line per variant); the printed table stays grouped by size. */
static int write_csv(const bench_opts *o, const bench_table *t)
{
    static bench_table sorted;
    sorted = *t;
    for (int i = 1; i < sorted.nrows; i++) {
        bench_row r = sorted.rows[i];
        int j = i;
        for (; j > 0 && variant_rank(sorted.rows[j - 1].variant) > variant_rank(r.variant); j--)
            sorted.rows[j] = sorted.rows[j - 1];
        sorted.rows[j] = r;
    }
    if (bench_table_write_csv(&sorted, BENCH, o->csv_path) != 0)
        return -1;
    printf("csv: %s\n", o->csv_path);
    return 0;
}

/* ----------------------------------------------------------------- main */

static int run_all(const bench_opts *o)
{
    static bench_table t, derived;
    printf("bench=%s: arm/cancel cost vs pending events, Weft heap vs delta queue; "
           "median, min, max over %d repeats%s\n", BENCH, o->repeats, o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    int err = weft_init();
    if (err) {
        fprintf(stderr, "timer_scale: weft_init: %s\n", weft_strerror(err));
        return 1;
    }
    for (int s = 0; s < NSIZES; s++) {
        heap_size(o, sizes[s], case_names[s], &t);
        dq_size(o, sizes[s], case_names[s], &t);
    }
    printf("\n");
    bench_table_print(&t, stdout);
    print_goals(&t, &derived);
    printf("\n");
    bench_table_print_results(&t, BENCH, stdout);
    bench_table_print_results(&derived, BENCH, stdout);
    int failed = weft_event_pending() != 0 || weft_fini() != 0;
    failed |= write_csv(o, &t) != 0;
    failed |= bench_plot("plot_timer_scale.gp", o->csv_path, o->png_path) != 0;
    return failed;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    return run_all(&o);
}
