/* bench/aggregation: what waiting threads cost a busy one -- the paper's
 * Table 2 (pm2-scheduler-centric-io, "completion time of a computational
 * task wrt. the number of waiting service threads") on today's machine.
 *
 * Experiment. A server process (aggregation_server.c, one Weft worker as
 * the paper's one-kernel-thread scheduler unless WEFT_WORKERS is set) runs
 * one compute task that yields after every small chunk of work (a fixed
 * number of chunks) and K service threads (K = 1..8, 100, 1000; --quick:
 * 1, 8, 100), each waiting for messages on its own TCP loopback socket.
 * This process is the client: plain C, it connects the K sockets and, while
 * the task runs, sends 8-byte messages to randomly chosen sockets with
 * random gaps (uniform 0-1 ms, non-blocking sends), so the service threads
 * do wake up now and then, at the same rate for every K. Figure: the
 * completion time of the task (wall clock, the paper's figure), in ms,
 * median over its timed runs (min and max beside it), and for information
 * the server's process CPU time over the same runs (`cpu`: it counts the
 * service threads and any I/O-server kernel thread, and not the time other
 * processes of a busy machine take), for
 *   aggregated  WEFT_IO_ADAPTIVE (Weft's default): the K waits are
 *               detected together by the I/O server (one epoll set);
 *   naive       WEFT_IO_NAIVE: each service thread tests and yields.
 * A fresh server process per timed run; the runs go in rounds over all
 * the cases (a case stops early once it has used its time budget: naive
 * at K=1000 takes seconds per run). Goal: with aggregation, growth
 * from K=1 to K=1000 <= 10 % (--quick: to the largest K run); naive's
 * growth and the paper's are shown beside it. The fd limit is raised to
 * the hard limit; K values that would not fit are lowered (noted).
 *
 * Output: a table (ours beside the paper's), the goal line (PASS/MISS; the
 * exit status reports errors only), `result:` lines, a CSV
 * (bench-out/aggregation.csv) and a PNG drawn by plot_aggregation.gp.
 * Default run: about 30 s; --quick: about 3 s.
 */
#include "aggregation.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "loopback.h"

#define MAX_KS          16
#define CHUNKS          4000       /* yields per run of the compute task */
#define GAP_MAX_NS      1000000    /* message gaps: uniform 0..1 ms */
#define REAP_TIMEOUT_NS 3000000000LL

static const int full_ks[] = {1, 2, 3, 4, 5, 6, 7, 8, 100, 1000};
static const int quick_ks[] = {1, 8, 100};

/* The paper's Table 2 (ms), K = 1..8. */
static const double paper_enhanced[8] = {81.2, 84.0, 84.0, 84.7,
                                         86.4, 87.9, 89.6, 91.6};
static const double paper_naive[8] = {80.3,  101.3, 119.0, 137.2,
                                      156.6, 175.7, 195.2, 215.7};

typedef struct ag_plan {
    int ks[MAX_KS], nks;
    int rounds;         /* timed runs per case, one per round */
    int64_t budget_ns;  /* per case: no new round after this much time */
    int64_t case_ns;    /* per server: hard limit, then it is killed */
} ag_plan;

/* One server's exchange with the client. */
typedef struct stream {
    int *fds, k;
    int pipe_fd;
    char line[4096];
    size_t len;
    uint64_t sent, dropped, received;
} stream;

/* The timed runs of one server: wall and process CPU time, ms. */
typedef struct ag_times {
    double wall[BENCH_REPEATS_MAX];
    double cpu[BENCH_REPEATS_MAX];
} ag_times;

enum { M_COMPLETION, M_CPU, M_COUNT };
static const char *const metric_names[M_COUNT] = {"completion", "cpu"};

static bench_table table;

/* ------------------------------------------------------------- the pipe */

/* If the buffer holds a full line, NUL-terminate it in place: 1, else 0. */
static int take_line(stream *s)
{
    char *nl = memchr(s->line, '\n', s->len);
    if (!nl)
        return 0;
    *nl = '\0';
    return 1;
}

/* Drop the line take_line() found. */
static void consume_line(stream *s)
{
    size_t used = strlen(s->line) + 1;
    memmove(s->line, s->line + used, s->len - used);
    s->len -= used;
}

/* Wait up to ns for a line from the child: 1 line, 0 timeout, -1 EOF. */
static int wait_line(stream *s, int64_t ns)
{
    if (take_line(s))
        return 1;
    struct pollfd p = {.fd = s->pipe_fd, .events = POLLIN};
    struct timespec ts = {.tv_sec = ns / 1000000000,
                          .tv_nsec = ns % 1000000000};
    int r = ppoll(&p, 1, &ts, NULL);
    if (r <= 0)
        return r < 0 && errno != EINTR ? -1 : 0;
    ssize_t n = read(s->pipe_fd, s->line + s->len, sizeof s->line - s->len);
    if (n <= 0)
        return n < 0 && errno == EINTR ? 0 : -1;
    s->len += (size_t)n;
    return take_line(s) ? 1 : s->len == sizeof s->line ? -1 : 0;
}

/* ----------------------------------------------------------- the stream */

static void send_one(stream *s, uint64_t *rng)
{
    uint64_t msg = s->sent + 1;
    int fd = s->fds[lb_rand_below(rng, (uint64_t)s->k)];
    if (send(fd, &msg, sizeof msg, MSG_DONTWAIT | MSG_NOSIGNAL) == sizeof msg)
        s->sent++;
    else
        s->dropped++;
}

/* Send random messages until the child prints a line; 1 (line), -1. */
static int stream_until_line(stream *s, uint64_t *rng, int64_t deadline)
{
    for (;;) {
        int64_t gap = (int64_t)lb_rand_below(rng, GAP_MAX_NS + 1);
        int r = wait_line(s, gap);
        if (r != 0)
            return r;
        if (bench_now_ns() > deadline)
            return -1;
        send_one(s, rng);
    }
}

/* "done <received> <n> <wall> <cpu>...": the run times; count or -1. */
static int parse_done(stream *s, ag_times *t)
{
    unsigned long long received;
    int n, off;
    const char *p = s->line;
    if (sscanf(p, "done %llu %d%n", &received, &n, &off) != 2 || n < 1 ||
        n > BENCH_REPEATS_MAX)
        return -1;
    s->received = received;
    p += off;
    for (int i = 0; i < n; i++) {
        if (sscanf(p, " %lf %lf%n", &t->wall[i], &t->cpu[i], &off) != 2)
            return -1;
        p += off;
    }
    return n;
}

/* ------------------------------------------------------------ one case */

static int connect_all(stream *s, int port)
{
    for (int i = 0; i < s->k; i++)
        if ((s->fds[i] = lb_connect(port)) < 0)
            return -1;
    return 0;
}

static void close_all(stream *s)
{
    for (int i = 0; i < s->k; i++)
        if (s->fds[i] >= 0)
            close(s->fds[i]);
}

static pid_t spawn_server(ag_server_spec *spec, int *port, int *pipe_fd)
{
    int p[2];
    char text[160];
    int lfd = lb_listen(spec->k + 8, port);
    if (lfd < 0 || pipe2(p, O_CLOEXEC) != 0) {
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    spec->listen_fd = lfd;
    ag_spec_format(text, sizeof text, spec);
    pid_t pid = lb_spawn_self(text, "WEFT_WORKERS", "1", p[1]);
    close(p[1]);
    close(lfd); /* the child has its copy; queued connections wait there */
    *pipe_fd = p[0];
    return pid;
}

/* Talk to a started server: connect, wait for ready, stream until done. */
static int exchange(stream *s, int port, int64_t deadline, uint64_t seed,
                    ag_times *t)
{
    uint64_t rng = seed;
    if (connect_all(s, port) != 0)
        return -1;
    if (stream_until_line(s, &rng, deadline) != 1 ||
        strcmp(s->line, "ready") != 0) {
        fprintf(stderr, "aggregation: the server did not get ready\n");
        return -1;
    }
    consume_line(s);
    if (stream_until_line(s, &rng, deadline) != 1)
        return -1;
    return parse_done(s, t);
}

static int run_case(ag_variant v, int k, const ag_plan *p, ag_times *t,
                    stream *s)
{
    ag_server_spec spec = {.variant = v, .k = k, .runs = 1,
                           .chunks = CHUNKS, .budget_ms = 0};
    char what[64];
    int port, n = -1;
    snprintf(what, sizeof what, "server %s K=%d", ag_variant_name(v), k);
    memset(s, 0, sizeof *s);
    s->k = k;
    s->fds = malloc(sizeof *s->fds * (size_t)k);
    pid_t pid = s->fds ? spawn_server(&spec, &port, &s->pipe_fd) : -1;
    if (pid > 0) {
        memset(s->fds, -1, sizeof *s->fds * (size_t)k);
        n = exchange(s, port, bench_now_ns() + p->case_ns,
                     (uint64_t)k * 2654435761u + v + 1, t);
        close_all(s);
        close(s->pipe_fd);
        n = lb_reap(pid, REAP_TIMEOUT_NS, what) == 0 ? n : -1;
    }
    free(s->fds);
    if (n < 0)
        fprintf(stderr, "aggregation: %s failed\n", what);
    return n;
}

/* ------------------------------------------------------------ the plan */

static void add_k(ag_plan *p, int k)
{
    for (int i = 0; i < p->nks; i++)
        if (p->ks[i] == k)
            return;
    p->ks[p->nks++] = k;
}

/* K values that fit the fd limit (raised to the hard limit if needed). */
static void plan_ks(ag_plan *p, const int *ks, int n)
{
    int kmax = ks[n - 1];
    long limit = lb_raise_nofile(kmax + 64);
    int cap = limit - 64 < kmax ? (int)(limit - 64) : kmax;
    for (int i = 0; i < n; i++)
        add_k(p, ks[i] <= cap ? ks[i] : cap);
    if (cap < kmax)
        bench_table_note(&table, "fd limit %ld: K=%d lowered to K=%d", limit,
                         kmax, cap);
}

static ag_plan make_plan(const bench_opts *o)
{
    ag_plan p;
    memset(&p, 0, sizeof p);
    if (o->quick)
        plan_ks(&p, quick_ks, (int)(sizeof quick_ks / sizeof *quick_ks));
    else
        plan_ks(&p, full_ks, (int)(sizeof full_ks / sizeof *full_ks));
    p.rounds = o->repeats;
    p.budget_ns = (o->quick ? 1500 : 5000) * 1000000LL;
    p.case_ns = (o->quick ? 20 : 60) * 1000000000LL;
    return p;
}

/* ------------------------------------------------------------ the runs */

static void case_label(char *buf, size_t size, int k)
{
    snprintf(buf, size, "K=%d", k);
}

/* All the timed runs of one (K, variant) case. */
typedef struct ag_cell {
    int n;
    int failed;
    int64_t spent_ns;
    ag_times t;
} ag_cell;

/* Rows go in (metric, variant) order so that each curve of the chart is
 * a contiguous run of CSV rows. */
static void add_rows(const ag_plan *p, ag_cell cells[][AG_NVARIANTS])
{
    char label[32];
    for (int m = 0; m < M_COUNT; m++)
        for (int v = 0; v < AG_NVARIANTS; v++)
            for (int i = 0; i < p->nks; i++) {
                ag_cell *c = &cells[i][v];
                case_label(label, sizeof label, p->ks[i]);
                if (c->n > 0)
                    bench_table_add(&table, label, ag_variant_name(v),
                                    metric_names[m],
                                    bench_stats_of(m == M_COMPLETION ? c->t.wall
                                                                     : c->t.cpu,
                                                   c->n),
                                    "ms");
                else
                    bench_table_add_na(&table, label, ag_variant_name(v),
                                       metric_names[m], "ms");
            }
}

/* One timed run of one case in a fresh server; appended to the cell. */
static void run_one(ag_cell *c, ag_variant v, int k, const ag_plan *p,
                    uint64_t *msgs)
{
    static ag_times t;
    static stream s;
    int64_t t0 = bench_now_ns();
    int n = run_case(v, k, p, &t, &s);
    c->spent_ns += bench_now_ns() - t0;
    if (n <= 0) {
        c->failed = 1;
        return;
    }
    c->t.wall[c->n] = t.wall[0];
    c->t.cpu[c->n++] = t.cpu[0];
    msgs[0] = s.received < msgs[0] ? s.received : msgs[0];
    msgs[1] = s.received > msgs[1] ? s.received : msgs[1];
}

/* Rounds are the outer loop, so that slow changes in the machine's load
 * hit every case alike; a case that has used its budget stops early. */
static int run_all_cases(const ag_plan *p)
{
    static ag_cell cells[MAX_KS][AG_NVARIANTS];
    uint64_t msgs[2] = {UINT64_MAX, 0};
    int failed = 0;
    for (int r = 0; r < p->rounds; r++)
        for (int i = 0; i < p->nks; i++)
            for (int v = 0; v < AG_NVARIANTS; v++) {
                ag_cell *c = &cells[i][v];
                if (c->failed || (c->n > 0 && c->spent_ns > p->budget_ns))
                    continue;
                run_one(c, (ag_variant)v, p->ks[i], p, msgs);
                failed |= c->failed;
            }
    add_rows(p, cells);
    if (msgs[1] > 0)
        bench_table_note(&table, "messages received by the service threads "
                         "per run: %llu to %llu", (unsigned long long)msgs[0],
                         (unsigned long long)msgs[1]);
    return failed ? -1 : 0;
}

/* ---------------------------------------------------------- the report */

static const bench_row *find(int k, ag_variant v, int m)
{
    char label[32];
    case_label(label, sizeof label, k);
    for (int i = 0; i < table.nrows; i++) {
        const bench_row *r = &table.rows[i];
        if (!r->na && strcmp(r->case_name, label) == 0 &&
            strcmp(r->variant, ag_variant_name(v)) == 0 &&
            strcmp(r->metric, metric_names[m]) == 0)
            return r;
    }
    return NULL;
}

static void print_grid_row(const ag_plan *p, const char *name, ag_variant v,
                           int m)
{
    printf("%-22s", name);
    for (int i = 0; i < p->nks; i++) {
        const bench_row *r = find(p->ks[i], v, m);
        if (r)
            printf(" %8.1f", r->st.median);
        else
            printf(" %8s", "-");
    }
    printf("\n");
}

static void print_paper_row(const ag_plan *p, const char *name,
                            const double *paper)
{
    printf("%-22s", name);
    for (int i = 0; i < p->nks; i++)
        if (p->ks[i] <= 8)
            printf(" %8.1f", paper[p->ks[i] - 1]);
        else
            printf(" %8s", "-");
    printf("\n");
}

static void print_grid(const ag_plan *p)
{
    printf("\ncompute task, ms (median over runs; paper: bi-Pentium II "
           "450 MHz)\n%-22s", "K service threads");
    for (int i = 0; i < p->nks; i++)
        printf(" %8d", p->ks[i]);
    printf("\n");
    print_grid_row(p, "completion aggregated", AG_AGGREGATED, M_COMPLETION);
    print_grid_row(p, "completion naive", AG_NAIVE, M_COMPLETION);
    print_paper_row(p, "  paper enhanced", paper_enhanced);
    print_paper_row(p, "  paper naive", paper_naive);
    print_grid_row(p, "cpu aggregated", AG_AGGREGATED, M_CPU);
    print_grid_row(p, "cpu naive", AG_NAIVE, M_CPU);
}

/* Every figure with its min and max over the runs. */
static void print_spread(void)
{
    printf("\n%-8s %-11s %-11s %9s %9s %9s  %s\n", "case", "variant",
           "metric", "median", "min", "max", "unit");
    for (int i = 0; i < table.nrows; i++) {
        const bench_row *r = &table.rows[i];
        if (r->na)
            printf("%-8s %-11s %-11s %9s\n", r->case_name, r->variant,
                   r->metric, "n/a");
        else
            printf("%-8s %-11s %-11s %9.1f %9.1f %9.1f  ms\n", r->case_name,
                   r->variant, r->metric, r->st.median, r->st.min, r->st.max);
    }
}

/* Growth in percent of metric m from the first K to the last, or -1000. */
static double growth(const ag_plan *p, ag_variant v, int m)
{
    const bench_row *a = find(p->ks[0], v, m);
    const bench_row *b = find(p->ks[p->nks - 1], v, m);
    if (!a || !b || a->st.median <= 0)
        return -1000;
    return (b->st.median / a->st.median - 1) * 100;
}

static void print_growth(const char *label, double g, int goal)
{
    if (g <= -1000)
        printf("  %-24s n/a (figures missing)\n", label);
    else if (goal)
        printf("  %-24s %+9.1f %%   goal <= +10 %%   %s\n", label, g,
               g <= 10 ? "PASS" : "MISS");
    else
        printf("  %-24s %+9.1f %%   (for comparison)\n", label, g);
}

static void print_goal(const ag_plan *p)
{
    int k0 = p->ks[0], k1 = p->ks[p->nks - 1];
    printf("\ngoal (growth of the median from K=%d to K=%d):\n", k0, k1);
    print_growth("completion aggregated",
                 growth(p, AG_AGGREGATED, M_COMPLETION), 1);
    print_growth("completion naive", growth(p, AG_NAIVE, M_COMPLETION), 0);
    print_growth("cpu aggregated", growth(p, AG_AGGREGATED, M_CPU), 0);
    print_growth("cpu naive", growth(p, AG_NAIVE, M_CPU), 0);
    printf("  paper, K=1 to K=8: enhanced %+.1f %%, naive %+.1f %%\n",
           (paper_enhanced[7] / paper_enhanced[0] - 1) * 100,
           (paper_naive[7] / paper_naive[0] - 1) * 100);
    if (k1 != 1000)
        printf("  (K=1000 was not run: the goal is checked up to K=%d)\n",
               k1);
}

static int write_outputs(const bench_opts *o)
{
    if (bench_table_write_csv(&table, AG_BENCH, o->csv_path) != 0)
        return -1;
    printf("csv: %s\n", o->csv_path);
    return bench_plot("plot_aggregation.gp", o->csv_path, o->png_path);
}

static int run_all(const bench_opts *o)
{
    lb_precise_sleeps();
    ag_plan p = make_plan(o);
    const char *w = getenv("WEFT_WORKERS");
    printf("bench=aggregation: a compute task (%d yields per run) vs K "
           "service threads waiting on sockets (paper's Table 2)%s\n", CHUNKS,
           o->quick ? " (--quick)" : "");
    bench_print_machine(stdout);
    printf("server: fresh process per run, WEFT_WORKERS=%s; %d rounds over "
           "all cases (a case stops after %.1f s); messages every 0-%d us\n",
           w && *w ? w : "1", p.rounds, (double)p.budget_ns / 1e9,
           GAP_MAX_NS / 1000);
    fflush(stdout);
    int failed = run_all_cases(&p) != 0;
    print_grid(&p);
    print_spread();
    bench_table_print_notes(&table, stdout);
    print_goal(&p);
    printf("\n");
    bench_table_print_results(&table, AG_BENCH, stdout);
    failed |= write_outputs(o) != 0;
    fflush(stdout);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse_opts(argc, argv, AG_BENCH, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (o.case_name) {
        ag_server_spec s;
        if (ag_spec_parse(o.case_name, &s) != 0) {
            fprintf(stderr, "aggregation: bad --case '%s' (internal: agg,"
                    "<variant>,<k>,<runs>,<chunks>,<budget_ms>,<fd>)\n",
                    o.case_name);
            return 2;
        }
        return ag_server_main(&s);
    }
    return run_all(&o);
}
