/* bench/reactivity: how fast a Weft server reacts to a network message
 * while N compute threads keep its worker busy -- the paper's Table 1
 * (pm2-scheduler-centric-io, "reaction time for an I/O request wrt. the
 * number of computing threads") on today's machine.
 *
 * Experiment. A server process runs one echo thread and N compute threads
 * (N = 0, 1, 2, 5, 10, 100, 1000; --quick: 0, 1, 10, 1000) that never
 * yield. A client process (this one: plain C, blocking sockets) sends
 * 8-byte messages over TCP loopback with random think times and times each
 * round trip (reactivity_client.c). Server variants (reactivity_server.c):
 *   naive     WEFT_IO_NAIVE: the echo ULT tests its socket and yields; with
 *             N compute threads it looks again only every N quanta;
 *   enhanced  WEFT_IO_POLLING: the scheduler polls at its safe points;
 *   blocker   WEFT_IO_BLOCKING: a blocker kernel thread sleeps in epoll and
 *             preempts a compute thread when the message arrives;
 *   adaptive  WEFT_IO_ADAPTIVE, Weft's default: poll, then block;
 * at a 10 ms quantum (the paper's, weft_set_quantum) and at Weft's default
 * quantum (WEFT_QUANTUM_US, else the built-in default) when that differs.
 * Floors, no compute: raw_block (a plain server blocking in recv) and
 * raw_busy (a plain server spinning on a non-blocking recv). Idle CPU: the
 * server's process CPU over 1 s with its echo thread waiting and no
 * traffic. The server runs WEFT_WORKERS=1 unless the environment sets it:
 * the paper's scheduler was one kernel thread; the client and Weft's
 * blocker threads get the other CPU.
 *
 * Every repeat of every case starts a fresh server process (clean runtime
 * state); repeats are the outer loop, so slow noise on a shared machine
 * spreads over all cases alike. A repeat stops after max_rts round trips or
 * its share of the case's time budget; naive runs only up to N=100 (at
 * N=1000 one reply would wait ~N*q = 10 s), and may wait up to 5 N q for
 * a reply (others 2 s; a slower reply ends the repeat and is reported as
 * lost). The whole run has a deadline; cases past it are not run (noted).
 *
 * Output: the table (ours beside the paper's), goal lines (PASS/MISS; the
 * exit status reports errors only), `result:` lines, a CSV
 * (bench-out/reactivity.csv) and a PNG drawn by plot_reactivity.gp.
 * Default run: about 3 minutes; --quick: about 15 s.
 */
#include "reactivity.h"

#include <stdlib.h>
#include <string.h>
#include <weft.h>

#include "loopback.h"

#define PAPER_QUANTUM_US   10000
#define NAIVE_GRACE_CYCLES 5 /* naive may wait 5 N q for one reply */

static const int full_ns[] = {0, 1, 2, 5, 10, 100, 1000};
static const int quick_ns[] = {0, 1, 10, 1000};

typedef struct plan {
    rx_limits lim;
    int64_t deadline;   /* absolute: no case starts after it */
    int64_t idle_ns;
    int quick;
} plan;

static rx_results res; /* large: static */
static int deadline_hit;

/* ---------------------------------------------------------------- setup */

/* Limits per repeat; the time budget of a case is shared by its repeats
 * and, with a second quantum, halved, so the whole run stays about as long. */
static plan make_plan(const bench_opts *o, int n_quanta)
{
    plan p;
    int64_t budget = (o->quick ? 1200000000LL : 6000000000LL) / n_quanta;
    p.quick = o->quick;
    p.lim.max_rts = o->quick ? 300 : 2000;
    p.lim.warmup_rts = 5;
    p.lim.soft_ns = budget / o->repeats;
    if (p.lim.soft_ns < 100000000)
        p.lim.soft_ns = 100000000;
    p.lim.grace_ns = 2000000000LL;
    p.lim.think_ns = 200000;
    p.lim.ready_ns = 20000000000LL;
    p.idle_ns = 1000000000LL;
    p.deadline = bench_now_ns() +
                 (o->quick ? 25LL * n_quanta : 300LL) * 1000000000LL;
    return p;
}

/* Weft's default quantum as a server would get it: WEFT_QUANTUM_US if
 * set (and valid), else the built-in value (readable before weft_init). */
static int64_t default_quantum_us(void)
{
    const char *s = getenv("WEFT_QUANTUM_US");
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    if (s && *s && *end == '\0' && (v == 0 || (v >= 10 && v <= 10000000)))
        return v;
    return weft_get_quantum() / 1000;
}

static void set_cases(rx_results *r, const bench_opts *o)
{
    const int *ns = o->quick ? quick_ns : full_ns;
    int count = o->quick ? (int)(sizeof quick_ns / sizeof *quick_ns)
                         : (int)(sizeof full_ns / sizeof *full_ns);
    memcpy(r->ns, ns, sizeof *ns * (size_t)count);
    r->n_ns = count;
    r->repeats = o->repeats;
    r->quanta_us[0] = PAPER_QUANTUM_US;
    r->quanta_us[1] = default_quantum_us();
    r->n_quanta = r->quanta_us[1] == PAPER_QUANTUM_US ? 1 : 2;
    for (int v = 0; v < RX_NVARIANTS; v++)
        r->idle_cpu[v] = -1;
}

/* ------------------------------------------------------------ one case */

/* Naive replies after about N quanta (twice that on a loaded machine):
 * give its slow cases room. */
static rx_limits limits_for(const plan *p, rx_variant v, int n, int64_t q_us)
{
    rx_limits lim = p->lim;
    int64_t cycle_ns = (int64_t)n * q_us * 1000;
    if (v == RX_NAIVE && NAIVE_GRACE_CYCLES * cycle_ns > lim.grace_ns)
        lim.grace_ns = NAIVE_GRACE_CYCLES * cycle_ns;
    return lim;
}

static void run_case(rx_cell *c, rx_variant v, int n, int64_t q_us,
                     const plan *p, uint64_t seed)
{
    rx_server_spec s = {.variant = v, .n = n, .quantum_us = q_us};
    rx_limits lim = limits_for(p, v, n, q_us);
    rx_run run;
    if (bench_now_ns() > p->deadline) {
        c->skipped = 1;
        deadline_hit = 1;
        return;
    }
    if (rx_measure_rtt(s, &lim, seed, &run) != 0) {
        c->failed = 1;
        return;
    }
    c->runs[c->nruns++] = run;
    c->ran |= run.count > 0;
    if (rx_variant_is_weft(v) && res.workers == 0)
        res.workers = run.workers;
}

static void run_weft_cases(int rep, const plan *p)
{
    for (int qi = 0; qi < res.n_quanta; qi++)
        for (int i = 0; i < res.n_ns; i++)
            for (int v = RX_NAIVE; v < RX_NVARIANTS; v++) {
                rx_cell *c = &res.cells[qi][v][i];
                if (v == RX_NAIVE && res.ns[i] > RX_NAIVE_MAX_N) {
                    c->skipped = 1;
                    continue;
                }
                uint64_t seed = (uint64_t)(rep + 1) * 1000003u +
                                (uint64_t)(qi * 97 + v * 13 + i);
                run_case(c, (rx_variant)v, res.ns[i], res.quanta_us[qi], p,
                         seed);
            }
}

static void run_repeat(int rep, const plan *p)
{
    int64_t t0 = bench_now_ns();
    for (int f = 0; f < 2; f++)
        run_case(&res.floors[f], (rx_variant)f, 0, 0, p,
                 (uint64_t)(rep + 1) * 7919u + (uint64_t)f);
    run_weft_cases(rep, p);
    printf("repeat %d/%d done in %.1f s\n", rep + 1, res.repeats,
           (double)(bench_now_ns() - t0) / 1e9);
    fflush(stdout);
}

static void run_idle(const plan *p)
{
    for (int v = RX_NAIVE; v < RX_NVARIANTS; v++) {
        if (p->quick && v != RX_ADAPTIVE && v != RX_NAIVE)
            continue;
        rx_server_spec s = {.variant = (rx_variant)v, .n = 0,
                            .quantum_us = PAPER_QUANTUM_US};
        double cpu;
        if (bench_now_ns() <= p->deadline &&
            rx_measure_idle(s, &p->lim, p->idle_ns, &cpu) == 0)
            res.idle_cpu[v] = cpu;
    }
}

/* --------------------------------------------------------------- report */

static void add_notes(const plan *p)
{
    char q[32];
    bench_table *t = &res.notes;
    if (res.n_quanta == 1)
        bench_table_note(t, "Weft's default quantum is also 10 ms: one set "
                         "of cases (WEFT_QUANTUM_US=<us> adds a second)");
    else
        bench_table_note(t, "second quantum: q=%s ms, Weft's default",
                         rx_quantum_label(q, sizeof q, res.quanta_us[1]));
    bench_table_note(t, "naive is not run above N=%d: one reply would wait "
                     "about N quanta (waits up to %d N q allowed)",
                     RX_NAIVE_MAX_N, NAIVE_GRACE_CYCLES);
    bench_table_note(t, "naive waits ~N quanta, not the paper's N q / 2: the "
                     "next message leaves <= %lld us after a reply, just as "
                     "the echo thread yielded",
                     (long long)(p->lim.think_ns / 1000));
    bench_table_note(t, "per repeat: at most %d round trips or %.2f s (the "
                     "reply in flight then is still awaited, up to %.0f s; "
                     "naive: %d N q)", p->lim.max_rts,
                     (double)p->lim.soft_ns / 1e9,
                     (double)p->lim.grace_ns / 1e9, NAIVE_GRACE_CYCLES);
    if (deadline_hit)
        bench_table_note(t, "the run reached its time limit: later cases "
                         "were not run (or ran fewer repeats)");
}

static int any_failure(void)
{
    int failed = res.floors[0].failed | res.floors[1].failed;
    for (int qi = 0; qi < res.n_quanta; qi++)
        for (int v = 0; v < RX_NVARIANTS; v++)
            for (int i = 0; i < res.n_ns; i++)
                failed |= res.cells[qi][v][i].failed;
    return failed;
}

static void print_header(const bench_opts *o, const plan *p)
{
    printf("bench=reactivity: echo round trip (8 B, TCP loopback) while N "
           "compute threads run in the server (paper's Table 1)%s\n",
           o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    const char *w = getenv("WEFT_WORKERS");
    printf("server: fresh process per repeat, WEFT_WORKERS=%s; client: "
           "think time uniform 0-%lld us, %d repeats\n", w && *w ? w : "1",
           (long long)(p->lim.think_ns / 1000), o->repeats);
}

static int finish(const bench_opts *o, const plan *p)
{
    add_notes(p);
    if (res.workers)
        printf("server workers reported: %d\n", res.workers);
    rx_report_print(&res);
    rx_report_results(&res);
    int failed = any_failure();
    if (rx_report_csv(&res, o->csv_path) != 0)
        return 1;
    printf("csv: %s\n", o->csv_path);
    failed |= bench_plot("plot_reactivity.gp", o->csv_path, o->png_path) != 0;
    fflush(stdout);
    if (failed)
        fprintf(stderr, "reactivity: some cases failed (see above)\n");
    return failed ? 1 : 0;
}

static int run_all(const bench_opts *o)
{
    set_cases(&res, o);
    plan p = make_plan(o, res.n_quanta);
    lb_precise_sleeps();
    print_header(o, &p);
    bench_steal since;
    bench_steal_mark(&since);
    run_idle(&p);
    for (int rep = 0; rep < o->repeats; rep++)
        run_repeat(rep, &p);
    int rc = finish(o, &p);
    bench_print_steal(stdout, "the run", &since);
    return rc;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, RX_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (o.case_name) {
        rx_server_spec s;
        if (rx_spec_parse(o.case_name, &s) != 0) {
            fprintf(stderr, "reactivity: bad --case '%s' (internal: "
                    "server,<variant>,<n>,<q_us>,<fd>)\n", o.case_name);
            return 2;
        }
        return rx_server_main(&s);
    }
    return run_all(&o);
}
