/* bench/ab: one change measured A/B in the same run. It runs a benchmark
 * command as two variants, alternating, and compares every figure that
 * both variants print on their `result:` lines.
 *
 * Why: a runtime heuristic shows its gain, and a refactoring shows that it
 * does not regress, by alternating the two variants on one machine in one
 * run, at least 5 pairs, medians with min and max. These 2-vCPU machines
 * are shared: the host's steal comes in waves and a job's figures move
 * with each launch. Two separate runs an hour apart compare two moments,
 * not two variants; alternating spreads slow drifts over both, and the
 * per-pair ratios show how far one pair can stray from the next.
 *
 * Usage (ab --help has every option):
 *   ab [--pairs N] --disable NAME -- CMD [ARGS...]
 *       A ("on") runs CMD as given; B ("off") runs it with NAME added to
 *       WEFT_DISABLE (comma-joined with a value already set), the list of
 *       heuristics for Weft to turn off. A Weft that does not know the
 *       name runs B as A: the ratios then show the noise alone. --env
 *       VAR=VALUE (repeatable) sets any variable for B ("base"/"env").
 *   ab [--pairs N] --versus CMD_B -- CMD_A [ARGS...]
 *       A ("new") runs CMD_A ARGS, B ("old") runs CMD_B ARGS: an old
 *       binary against a new one.
 * For example, from the top of the tree:
 *   build/rel/bench/ab --disable spin -- build/rel/bench/mpi_reactivity --quick
 *   build/rel/bench/ab --versus ../old/build/rel/bench/osu_like -- \
 *       build/rel/bench/osu_like --case p2p
 *
 * Runs: pair p runs A then B when p is odd (1-based), B then A when it is
 * even, each run's stdout read through a pipe (--verbose copies it), its
 * stderr passed through. Each run prints a progress line (exit status,
 * result lines, time, hypervisor steal). A run that fails, or that prints
 * no result line, drops its pair from the statistics; a note says why.
 *
 * Figures: a figure is (bench, case, variant, metric) of a result line;
 * --variant NAME keeps only that variant (default weft: the benchmarks'
 * Open MPI or pthread figures are context, not the subject), --variant all
 * keeps every one. For each figure present on both sides of at least one
 * kept pair, the table shows A's and B's median [min-max] over those
 * pairs, B/A as the ratio of the medians, and the min and max of the
 * per-pair ratios. It says which way is better where the unit or the
 * metric tells (times: lower; rates: higher) and judges nothing else.
 *
 * Output: the table; `result:` lines with bench=ab,
 * case=<bench>/<case>/<metric> (<bench>/<case>/<variant>/<metric> under
 * --variant all), variant=<A label>|<B label> with metric=median|min|max
 * in the figure's unit, and variant=ratio with metric=median (B/A of the
 * medians), pair_min, pair_max; a CSV (bench-out/ab.csv, --csv PATH), one
 * row per figure with the per-pair ratios in columns r1..rN; with --png
 * PATH, a chart of the per-pair ratios (plot_ab.gp, if gnuplot is on
 * PATH); the hypervisor steal over all the runs.
 *
 * Exit status: 0, 1 on an error (a run failed or printed no result line,
 * no figure is on both sides, an output could not be written), 2 on a bad
 * option. A ratio never changes it.
 */
#include "bench_util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define AB "ab"
#define PAIRS_MAX 100
#define ENV_MAX 16
#define FIELD_MAX 64
#define TAIL_LINES 8
#define TAIL_LEN 200

enum { A, B };
enum { F_BENCH, F_CASE, F_VARIANT, F_METRIC, F_VALUE, F_UNIT, F_COUNT };

static const char *const field_keys[F_COUNT] = {
    "bench", "case", "variant", "metric", "value", "unit"};

typedef struct ab_opts {
    int pairs;
    char disable[256];       /* --disable names, comma-joined */
    char *env[ENV_MAX];      /* --env VAR=VALUE, for B */
    int nenv;
    const char *versus;      /* --versus CMD_B, or NULL */
    char label[2][FIELD_MAX];
    const char *variant;     /* --variant NAME, or "all" */
    char csv_path[512];
    const char *png_path;    /* --png PATH, or NULL: no chart */
    int verbose;
    char **argv[2];          /* A's and B's command lines */
} ab_opts;

typedef struct figure {
    char f[F_COUNT][FIELD_MAX]; /* the result line's fields (value unused) */
    double v[2][PAIRS_MAX];     /* per side and pair; NAN if not printed */
} figure;

typedef struct fig_stats {
    int n;                  /* kept pairs with the figure on both sides */
    bench_stats side[2];
    double ratio;           /* B median / A median; NAN if A's is 0 */
    bench_stats pair;       /* min and max of the per-pair ratios */
    double r[PAIRS_MAX];    /* per-pair ratio, NAN if none */
} fig_stats;

typedef struct run_info {
    int status;             /* waitpid's; -1 if it could not start */
    int results, kept;      /* result lines read; kept by --variant */
    double seconds, steal;
    char tail[TAIL_LINES][TAIL_LEN]; /* last lines, shown if it fails */
    int ntail;
} run_info;

static figure *figs;
static int nfigs, figs_cap;
static int pair_ok[PAIRS_MAX];
static char drop_why[PAIRS_MAX][160];
static int duplicates, unit_clashes, malformed;

/* ---------------------------------------------------------------- options */

static void print_usage(void)
{
    printf("usage: ab [OPTIONS] --disable NAME -- CMD [ARGS...]\n"
           "       ab [OPTIONS] --env VAR=VALUE -- CMD [ARGS...]\n"
           "       ab [OPTIONS] --versus CMD_B -- CMD_A [ARGS...]\n"
           "Runs a benchmark as A and B, alternating (A B, B A, ...), and\n"
           "compares the figures of their `result:` lines.\n"
           "  --disable NAME   B adds NAME to WEFT_DISABLE (repeatable); labels on,off\n"
           "  --env VAR=VALUE  B sets VAR (repeatable); labels base,env\n"
           "  --versus CMD_B   B runs CMD_B with A's arguments; labels new,old\n"
           "  --pairs N        A/B pairs, 1..%d (default 5)\n"
           "  --labels A,B     names of the variants in the table and results\n"
           "  --variant NAME   keep the result lines of this variant (default\n"
           "                   weft); all: keep every variant\n"
           "  --csv PATH       CSV output (default bench-out/ab.csv)\n"
           "  --png PATH       chart of the per-pair ratios, if gnuplot is on PATH\n"
           "  --verbose        copy each run's stdout to ours\n"
           "Exit status: 0; 1 if a run failed or printed no result line, or\n"
           "nothing compares; 2 on a bad option. Never from a ratio.\n",
           PAIRS_MAX);
}

/* A label or a --variant goes into result lines: one word of its own. */
static int is_word(const char *s)
{
    return *s && strlen(s) < FIELD_MAX && !strpbrk(s, " \t\n=,|/");
}

static int set_labels(ab_opts *o, const char *text)
{
    const char *comma = strchr(text, ',');
    if (!comma || comma - text >= FIELD_MAX) {
        fprintf(stderr, "ab: --labels wants A,B, got '%s'\n", text);
        return -1;
    }
    snprintf(o->label[A], FIELD_MAX, "%.*s", (int)(comma - text), text);
    snprintf(o->label[B], FIELD_MAX, "%s", comma + 1);
    if (!is_word(o->label[A]) || !is_word(o->label[B]) ||
        strcmp(o->label[A], o->label[B]) == 0 ||
        strcmp(o->label[A], "ratio") == 0 || strcmp(o->label[B], "ratio") == 0) {
        fprintf(stderr, "ab: --labels wants two distinct words other than "
                "'ratio', without = , | /, got '%s'\n", text);
        return -1;
    }
    return 0;
}

static int add_disable(ab_opts *o, const char *name)
{
    size_t len = strlen(o->disable);
    if (!is_word(name) || len + strlen(name) + 2 > sizeof o->disable) {
        fprintf(stderr, "ab: --disable wants a name, got '%s'\n", name);
        return -1;
    }
    snprintf(o->disable + len, sizeof o->disable - len, "%s%s",
             len ? "," : "", name);
    return 0;
}

static int add_env(ab_opts *o, char *assignment)
{
    char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || o->nenv == ENV_MAX) {
        fprintf(stderr, "ab: --env wants VAR=VALUE (at most %d), got '%s'\n",
                ENV_MAX, assignment);
        return -1;
    }
    o->env[o->nenv++] = assignment;
    return 0;
}

static int set_pairs(ab_opts *o, const char *text)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < 1 || v > PAIRS_MAX) {
        fprintf(stderr, "ab: --pairs wants 1..%d, got '%s'\n", PAIRS_MAX, text);
        return -1;
    }
    o->pairs = (int)v;
    return 0;
}

static int bad_value(const char *opt, const char *arg)
{
    fprintf(stderr, "ab: bad value for %s: '%s'\n", opt, arg);
    return -1;
}

static int take_opt(ab_opts *o, int opt, char *arg)
{
    switch (opt) {
    case 'n': return set_pairs(o, arg);
    case 'd': return add_disable(o, arg);
    case 'e': return add_env(o, arg);
    case 'V': o->versus = arg; return 0;
    case 'l': return set_labels(o, arg);
    case 'v': o->variant = arg; return is_word(arg) ? 0 : bad_value("--variant", arg);
    case 'c': return snprintf(o->csv_path, sizeof o->csv_path, "%s", arg) <
                     (int)sizeof o->csv_path ? 0 : bad_value("--csv", arg);
    case 'p': o->png_path = arg; return 0;
    case 'x': o->verbose = 1; return 0;
    default: return -1;
    }
}

/* Labels not given: new/old against another binary, on/off for a
 * disabled heuristic alone, else base/env. */
static void default_labels(ab_opts *o)
{
    if (o->label[A][0])
        return;
    const char *a = "base", *b = "env";
    if (o->versus)
        a = "new", b = "old";
    else if (o->disable[0] && o->nenv == 0)
        a = "on", b = "off";
    snprintf(o->label[A], FIELD_MAX, "%s", a);
    snprintf(o->label[B], FIELD_MAX, "%s", b);
}

/* B's command line: A's, or CMD_B with A's arguments. */
static int set_commands(ab_opts *o, int argc, char **argv)
{
    o->argv[A] = argv;
    o->argv[B] = argv;
    if (!o->versus)
        return 0;
    o->argv[B] = malloc(((size_t)argc + 1) * sizeof *argv);
    if (!o->argv[B])
        return -1;
    memcpy(o->argv[B], argv, ((size_t)argc + 1) * sizeof *argv);
    o->argv[B][0] = (char *)o->versus;
    return 0;
}

/* Returns 0 to run, 1 after --help, -1 on a bad option (message printed). */
static int parse_opts(int argc, char **argv, ab_opts *o)
{
    static const struct option longopts[] = {
        {"pairs", required_argument, 0, 'n'}, {"disable", required_argument, 0, 'd'},
        {"env", required_argument, 0, 'e'}, {"versus", required_argument, 0, 'V'},
        {"labels", required_argument, 0, 'l'}, {"variant", required_argument, 0, 'v'},
        {"csv", required_argument, 0, 'c'}, {"png", required_argument, 0, 'p'},
        {"verbose", no_argument, 0, 'x'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int opt;
    memset(o, 0, sizeof *o);
    o->pairs = 5;
    o->variant = "weft";
    snprintf(o->csv_path, sizeof o->csv_path, "bench-out/%s.csv", AB);
    /* "+": stop at the command, whose options are its own */
    while ((opt = getopt_long(argc, argv, "+", longopts, 0)) != -1) {
        if (opt == 'h') {
            print_usage();
            return 1;
        }
        if (take_opt(o, opt, optarg) != 0) {
            fprintf(stderr, "ab: ab --help lists the options\n");
            return -1;
        }
    }
    if (optind == argc || (!o->disable[0] && !o->nenv && !o->versus)) {
        fprintf(stderr, "ab: want --disable, --env or --versus, then -- CMD "
                "(ab --help)\n");
        return -1;
    }
    default_labels(o);
    return set_commands(o, argc - optind, argv + optind);
}

/* ------------------------------------------------------------ the figures */

/* Split "result: key=value ..." in place into f (values point into line;
 * a case may hold '=': the first one splits). 0 if every field is there
 * and the value is a number. */
static int parse_result(char *line, char *f[F_COUNT], double *value)
{
    char *save, *end;
    memset(f, 0, F_COUNT * sizeof *f);
    for (char *tok = strtok_r(line + strlen("result:"), " \t\r\n", &save); tok;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        int k = bench_name_index(field_keys, F_COUNT, tok);
        if (k >= 0)
            f[k] = eq + 1;
    }
    for (int k = 0; k < F_COUNT; k++)
        if (!f[k] || !*f[k] || strlen(f[k]) >= FIELD_MAX)
            return -1;
    *value = strtod(f[F_VALUE], &end);
    return *end == '\0' && isfinite(*value) ? 0 : -1;
}

static int same_figure(const figure *g, char *const f[F_COUNT])
{
    return strcmp(g->f[F_BENCH], f[F_BENCH]) == 0 &&
           strcmp(g->f[F_CASE], f[F_CASE]) == 0 &&
           strcmp(g->f[F_VARIANT], f[F_VARIANT]) == 0 &&
           strcmp(g->f[F_METRIC], f[F_METRIC]) == 0;
}

static figure *new_figure(char *const f[F_COUNT])
{
    if (nfigs == figs_cap) {
        int cap = figs_cap ? 2 * figs_cap : 64;
        figure *grown = realloc(figs, (size_t)cap * sizeof *figs);
        if (!grown)
            return NULL;
        figs = grown;
        figs_cap = cap;
    }
    figure *g = &figs[nfigs++];
    for (int k = 0; k < F_COUNT; k++)
        snprintf(g->f[k], FIELD_MAX, "%s", k == F_VALUE ? "" : f[k]);
    for (int p = 0; p < PAIRS_MAX; p++)
        g->v[A][p] = g->v[B][p] = NAN;
    return g;
}

/* File one result line under its figure for (side, pair). Returns 1 if
 * --variant keeps it, 0 if not, -1 if it is malformed. */
static int file_result(const ab_opts *o, char *line, int side, int pair)
{
    char *f[F_COUNT];
    double value;
    if (parse_result(line, f, &value) != 0)
        return -1;
    if (strcmp(o->variant, "all") != 0 && strcmp(f[F_VARIANT], o->variant) != 0)
        return 0;
    figure *g = NULL;
    for (int i = 0; i < nfigs && !g; i++)
        if (same_figure(&figs[i], f))
            g = &figs[i];
    if (!g && !(g = new_figure(f)))
        return 0;
    if (strcmp(g->f[F_UNIT], f[F_UNIT]) != 0)
        unit_clashes++;
    else if (!isnan(g->v[side][pair]))
        duplicates++; /* the first one counts */
    else
        g->v[side][pair] = value;
    return 1;
}

/* ------------------------------------------------------------------ runs */

/* B's value of var after --env: the last --env var=..., else inherited. */
static const char *env_after_opts(const ab_opts *o, const char *var)
{
    size_t n = strlen(var);
    for (int i = o->nenv - 1; i >= 0; i--)
        if (strncmp(o->env[i], var, n) == 0 && o->env[i][n] == '=')
            return o->env[i] + n + 1;
    return getenv(var);
}

/* B's WEFT_DISABLE: its value after --env, a comma, the --disable names. */
static void b_disable(const ab_opts *o, char *buf, size_t size)
{
    const char *cur = env_after_opts(o, "WEFT_DISABLE");
    snprintf(buf, size, "%s%s%s", cur ? cur : "", cur && *cur ? "," : "",
             o->disable);
}

/* In the child: B's environment. */
static void set_b_env(const ab_opts *o)
{
    char joined[1024];
    for (int i = 0; i < o->nenv; i++)
        putenv(o->env[i]);
    if (!o->disable[0])
        return;
    b_disable(o, joined, sizeof joined);
    setenv("WEFT_DISABLE", joined, 1);
}

static pid_t start_run(const ab_opts *o, int side, int fds[2])
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    if (side == B)
        set_b_env(o);
    execvp(o->argv[side][0], o->argv[side]);
    fprintf(stderr, "ab: cannot run %s: %s\n", o->argv[side][0], strerror(errno));
    _exit(127);
}

static void keep_tail(run_info *ri, const char *line)
{
    if (ri->ntail == TAIL_LINES) {
        memmove(ri->tail[0], ri->tail[1], sizeof ri->tail - sizeof ri->tail[0]);
        ri->ntail--;
    }
    snprintf(ri->tail[ri->ntail++], TAIL_LEN, "%s", line);
}

static void read_run(const ab_opts *o, FILE *in, int side, int pair, run_info *ri)
{
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, in) >= 0) {
        if (o->verbose)
            fputs(line, stdout);
        line[strcspn(line, "\n")] = '\0';
        keep_tail(ri, line);
        if (strncmp(line, "result:", 7) != 0)
            continue;
        int kept = file_result(o, line, side, pair);
        malformed += kept < 0;
        ri->results += kept >= 0;
        ri->kept += kept > 0;
    }
    free(line);
}

static void run_one(const ab_opts *o, int side, int pair, run_info *ri)
{
    int fds[2], status;
    bench_steal since;
    memset(ri, 0, sizeof *ri);
    ri->status = -1;
    ri->steal = -1;
    bench_steal_mark(&since);
    int64_t t0 = bench_now_ns();
    if (pipe(fds) != 0) {
        fprintf(stderr, "ab: cannot start a run: %s\n", strerror(errno));
        return;
    }
    pid_t pid = start_run(o, side, fds);
    if (pid < 0) {
        fprintf(stderr, "ab: cannot start a run: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    if (in) {
        read_run(o, in, side, pair, ri);
        fclose(in);
    } else {
        close(fds[0]);
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    ri->status = status;
    ri->seconds = (double)(bench_now_ns() - t0) / 1e9;
    ri->steal = bench_steal_percent(&since);
}

static const char *describe_status(int status, char *buf, size_t size)
{
    if (status < 0)
        snprintf(buf, size, "could not start");
    else if (WIFSIGNALED(status))
        snprintf(buf, size, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0)
        snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
    else
        snprintf(buf, size, "exit 0");
    return buf;
}

static int run_failed(const run_info *ri)
{
    return ri->status < 0 || !WIFEXITED(ri->status) ||
           WEXITSTATUS(ri->status) != 0 || ri->results == 0;
}

static void report_run(const ab_opts *o, int side, int pair, int k,
                       const run_info *ri)
{
    char st[80], steal[40] = "";
    if (ri->steal >= 0)
        snprintf(steal, sizeof steal, ", steal %.1f%%", ri->steal);
    printf("run %d/%d: pair %d, %c (%s): %s, %d result lines (%d kept), "
           "%.1f s%s\n", 2 * pair + k + 1, 2 * o->pairs, pair + 1, "AB"[side],
           o->label[side], describe_status(ri->status, st, sizeof st),
           ri->results, ri->kept, ri->seconds, steal);
    if (!run_failed(ri) || ri->ntail == 0)
        return;
    fprintf(stderr, "ab: the last lines of its stdout:\n");
    for (int i = 0; i < ri->ntail; i++)
        fprintf(stderr, "ab: | %s\n", ri->tail[i]);
}

/* Whether a run of this pair failed; if so, why (for the notes). */
static int pair_failed(const ab_opts *o, int pair, const run_info ri[2])
{
    char st[80];
    for (int side = A; side <= B; side++) {
        if (!run_failed(&ri[side]))
            continue;
        snprintf(drop_why[pair], sizeof drop_why[pair], "%c (%s) %s",
                 "AB"[side], o->label[side],
                 ri[side].results == 0 && WIFEXITED(ri[side].status) &&
                         WEXITSTATUS(ri[side].status) == 0
                     ? "printed no result line"
                     : describe_status(ri[side].status, st, sizeof st));
        return 1;
    }
    return 0;
}

/* Every pair, A B then B A alternately. Returns the failed pairs. */
static int run_pairs(const ab_opts *o)
{
    int failed = 0;
    for (int p = 0; p < o->pairs; p++) {
        run_info ri[2];
        int first = p % 2 == 0 ? A : B;
        for (int k = 0; k < 2; k++) {
            int side = k == 0 ? first : 1 - first;
            run_one(o, side, p, &ri[side]);
            report_run(o, side, p, k, &ri[side]);
        }
        pair_ok[p] = !pair_failed(o, p, ri);
        failed += !pair_ok[p];
        if (!pair_ok[p])
            printf("note: pair %d dropped: %s\n", p + 1, drop_why[p]);
    }
    return failed;
}

/* ------------------------------------------------------------ statistics */

static void compute_stats(const ab_opts *o, const figure *g, fig_stats *s)
{
    double side[2][PAIRS_MAX], r[PAIRS_MAX];
    int nr = 0;
    memset(s, 0, sizeof *s);
    for (int p = 0; p < PAIRS_MAX; p++) {
        s->r[p] = NAN;
        if (p >= o->pairs || !pair_ok[p] || isnan(g->v[A][p]) || isnan(g->v[B][p]))
            continue;
        side[A][s->n] = g->v[A][p];
        side[B][s->n++] = g->v[B][p];
        if (g->v[A][p] != 0)
            r[nr++] = s->r[p] = g->v[B][p] / g->v[A][p];
    }
    if (s->n == 0)
        return;
    s->side[A] = bench_stats_of(side[A], s->n);
    s->side[B] = bench_stats_of(side[B], s->n);
    s->ratio = s->side[A].median != 0 ? s->side[B].median / s->side[A].median : NAN;
    s->pair = nr ? bench_stats_of(r, nr) : (bench_stats){NAN, NAN, NAN};
}

/* Kept pairs in which the figure is on this side. */
static int count_side(const ab_opts *o, const figure *g, int side)
{
    int n = 0;
    for (int p = 0; p < o->pairs; p++)
        n += pair_ok[p] && !isnan(g->v[side][p]);
    return n;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* "lower", "higher", or "-" where the unit and the metric do not tell. */
static const char *better(const figure *g)
{
    static const char *const times[] = {"s", "ms", "us", "ns"};
    const char *unit = g->f[F_UNIT], *metric = g->f[F_METRIC];
    if (bench_name_index(times, BENCH_COUNT(times), unit) >= 0 ||
        strstr(metric, "latency") || strstr(metric, "rtt"))
        return "lower";
    if (has_suffix(unit, "/s") || has_suffix(unit, "_per_s") ||
        strstr(metric, "throughput") || strstr(metric, "bandwidth"))
        return "higher";
    return "-";
}

/* ---------------------------------------------------------------- output */

static void figure_label(const ab_opts *o, const figure *g, char sep,
                         char *buf, size_t size)
{
    if (strcmp(o->variant, "all") == 0)
        snprintf(buf, size, "%s%c%s%c%s%c%s", g->f[F_BENCH], sep, g->f[F_CASE],
                 sep, g->f[F_VARIANT], sep, g->f[F_METRIC]);
    else
        snprintf(buf, size, "%s%c%s%c%s", g->f[F_BENCH], sep, g->f[F_CASE],
                 sep, g->f[F_METRIC]);
}

static void print_command(char **argv, FILE *f)
{
    for (int i = 0; argv[i]; i++)
        fprintf(f, "%s%s", i ? " " : "", argv[i]);
}

/* "    B has VAR=VALUE (A: ...)" for a variable that B sets. */
static void print_env_change(const char *var, const char *b_value)
{
    const char *a_value = getenv(var);
    printf("    B has %s=%s (A: %s%s%s)\n", var, b_value, a_value ? var : "",
           a_value ? "=" : "unset", a_value ? a_value : "");
}

static void print_header(const ab_opts *o, int used)
{
    char disable[1024];
    printf("\nab: A = %s: ", o->label[A]);
    print_command(o->argv[A], stdout);
    printf("\n    B = %s: ", o->label[B]);
    print_command(o->argv[B], stdout);
    printf("\n");
    for (int i = 0; i < o->nenv; i++) {
        char var[256];
        snprintf(var, sizeof var, "%.*s", (int)strcspn(o->env[i], "="), o->env[i]);
        if (!o->disable[0] || strcmp(var, "WEFT_DISABLE") != 0)
            print_env_change(var, strchr(o->env[i], '=') + 1);
    }
    if (o->disable[0]) {
        b_disable(o, disable, sizeof disable);
        print_env_change("WEFT_DISABLE", disable);
    }
    printf("    %d pair%s (A B, B A, ...), %d kept; variant %s\n"
           "B/A: the ratio of the medians; per pair: min-max of the pairs' "
           "ratios.\nbetter: lower for times (s ms us ns, latency, rtt), "
           "higher for rates\n(/s, throughput, bandwidth), - not known.\n\n",
           o->pairs, o->pairs > 1 ? "s" : "", used, o->variant);
}

/* A table row as text; the first three columns align left. */
enum { C_LABEL, C_UNIT, C_BETTER, C_A, C_B, C_RATIO, C_PAIRS, C_N, C_COUNT };
#define CELL_LEN (4 * FIELD_MAX)
typedef char cells[C_COUNT][CELL_LEN];

static void ratio_text(char *buf, double ratio)
{
    snprintf(buf, CELL_LEN, isnan(ratio) ? "-" : "%.2f", ratio);
}

static void row_cells(const ab_opts *o, const figure *g, const fig_stats *s,
                      cells c)
{
    figure_label(o, g, ' ', c[C_LABEL], CELL_LEN);
    snprintf(c[C_UNIT], CELL_LEN, "%s", g->f[F_UNIT]);
    snprintf(c[C_BETTER], CELL_LEN, "%s", better(g));
    bench_format_range(c[C_A], CELL_LEN, s->side[A]);
    bench_format_range(c[C_B], CELL_LEN, s->side[B]);
    ratio_text(c[C_RATIO], s->ratio);
    snprintf(c[C_PAIRS], CELL_LEN, "-");
    if (!isnan(s->pair.min))
        snprintf(c[C_PAIRS], CELL_LEN, "[%.2f-%.2f]", s->pair.min, s->pair.max);
    snprintf(c[C_N], CELL_LEN, "%d", s->n);
}

static void header_cells(const ab_opts *o, cells c)
{
    static const char *const names[C_COUNT] = {
        "figure", "unit", "better", "", "", "B/A", "per pair", "n"};
    for (int k = 0; k < C_COUNT; k++)
        snprintf(c[k], CELL_LEN, "%s", names[k]);
    snprintf(c[C_A], CELL_LEN, "A %s", o->label[A]);
    snprintf(c[C_B], CELL_LEN, "B %s", o->label[B]);
}

static void widen(int width[C_COUNT], cells c)
{
    for (int k = 0; k < C_COUNT; k++)
        if ((int)strlen(c[k]) > width[k])
            width[k] = (int)strlen(c[k]);
}

static void print_cells(const int width[C_COUNT], cells c)
{
    for (int k = 0; k < C_COUNT; k++)
        printf(k == 0 ? "%-*s" : k <= C_BETTER ? " %-*s" : "  %*s", width[k], c[k]);
    printf("\n");
}

static void print_table(const ab_opts *o, const fig_stats *st, int used,
                        int shown)
{
    static cells c; /* 2 KiB: static */
    int width[C_COUNT] = {0};
    if (used == 0 || shown == 0) {
        printf("no figure to compare: %s\n", used == 0 ? "no pair was kept" :
               strcmp(o->variant, "all") == 0 ? "none is on both sides" :
               "none of this variant is on both sides (--variant all keeps "
               "every one)");
        return;
    }
    header_cells(o, c);
    widen(width, c);
    for (int i = 0; i < nfigs; i++)
        if (st[i].n > 0) {
            row_cells(o, &figs[i], &st[i], c);
            widen(width, c);
        }
    header_cells(o, c);
    print_cells(width, c);
    for (int i = 0; i < nfigs; i++)
        if (st[i].n > 0) {
            row_cells(o, &figs[i], &st[i], c);
            print_cells(width, c);
        }
}

/* Figures on one side only, duplicates, clashes, dropped pairs. */
static void print_notes(const ab_opts *o, const fig_stats *st)
{
    char label[4 * FIELD_MAX];
    for (int side = A; side <= B; side++) {
        int n = 0;
        for (int i = 0; i < nfigs; i++)
            if (st[i].n == 0 && count_side(o, &figs[i], side) > 0 &&
                count_side(o, &figs[i], 1 - side) == 0 && n++ == 0)
                figure_label(o, &figs[i], '/', label, sizeof label);
        if (n)
            printf("note: %d figure(s) only in %c (%s), e.g. %s\n", n,
                   "AB"[side], o->label[side], label);
    }
    if (duplicates)
        printf("note: %d repeated result line(s) in a run: the first counts\n",
               duplicates);
    if (unit_clashes)
        printf("note: %d result line(s) with another unit than the figure's "
               "first: left out\n", unit_clashes);
    if (malformed)
        printf("note: %d malformed result line(s) left out\n", malformed);
    for (int p = 0; p < o->pairs; p++)
        if (!pair_ok[p])
            printf("note: pair %d dropped: %s\n", p + 1, drop_why[p]);
}

static void print_results(const ab_opts *o, const fig_stats *st)
{
    static const char *const stat_names[] = {"median", "min", "max"};
    char c[4 * FIELD_MAX];
    for (int i = 0; i < nfigs; i++) {
        const fig_stats *s = &st[i];
        if (s->n == 0)
            continue;
        figure_label(o, &figs[i], '/', c, sizeof c);
        for (int side = A; side <= B; side++) {
            const double v[] = {s->side[side].median, s->side[side].min,
                                s->side[side].max};
            for (int k = 0; k < 3; k++)
                bench_print_result(stdout, AB, c, o->label[side], stat_names[k],
                                   v[k], figs[i].f[F_UNIT]);
        }
        if (!isnan(s->ratio))
            bench_print_result(stdout, AB, c, "ratio", "median", s->ratio, "ratio");
        if (!isnan(s->pair.min)) {
            bench_print_result(stdout, AB, c, "ratio", "pair_min", s->pair.min, "ratio");
            bench_print_result(stdout, AB, c, "ratio", "pair_max", s->pair.max, "ratio");
        }
    }
}

static void csv_number(FILE *f, double v)
{
    if (isnan(v))
        fprintf(f, ",");
    else
        fprintf(f, ",%.6g", v);
}

static void write_csv_row(FILE *f, const ab_opts *o, const figure *g,
                          const fig_stats *s)
{
    fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%s,%d", g->f[F_BENCH], g->f[F_CASE],
            g->f[F_VARIANT], g->f[F_METRIC], g->f[F_UNIT], better(g),
            o->label[A], o->label[B], s->n);
    for (int side = A; side <= B; side++) {
        csv_number(f, s->side[side].median);
        csv_number(f, s->side[side].min);
        csv_number(f, s->side[side].max);
    }
    csv_number(f, s->ratio);
    csv_number(f, s->pair.min);
    csv_number(f, s->pair.max);
    for (int p = 0; p < o->pairs; p++)
        csv_number(f, s->r[p]);
    fprintf(f, "\n");
}

static int write_csv(const ab_opts *o, const fig_stats *st)
{
    FILE *f = bench_open_csv(AB, o->csv_path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,unit,better,a,b,pairs,a_median,"
               "a_min,a_max,b_median,b_min,b_max,ratio,ratio_min,ratio_max");
    for (int p = 0; p < o->pairs; p++)
        fprintf(f, ",r%d", p + 1);
    fprintf(f, "\n");
    for (int i = 0; i < nfigs; i++)
        if (st[i].n > 0)
            write_csv_row(f, o, &figs[i], &st[i]);
    if (fclose(f) != 0)
        return -1;
    printf("csv: %s\n", o->csv_path);
    return 0;
}

/* Table, notes, result lines, CSV, chart. Returns the figures shown, or
 * -1 if an output could not be written. */
static int report(const ab_opts *o, int used)
{
    fig_stats *st = calloc((size_t)(nfigs ? nfigs : 1), sizeof *st);
    int shown = 0;
    if (!st)
        return -1;
    for (int i = 0; i < nfigs; i++) {
        compute_stats(o, &figs[i], &st[i]);
        shown += st[i].n > 0;
    }
    print_header(o, used);
    print_table(o, st, used, shown);
    print_notes(o, st);
    printf("\n");
    print_results(o, st);
    int rc = write_csv(o, st);
    if (rc == 0 && o->png_path && shown > 0)
        rc = bench_plot("plot_ab.gp", o->csv_path, o->png_path);
    free(st);
    return rc == 0 ? shown : -1;
}

int main(int argc, char **argv)
{
    ab_opts o;
    bench_steal since;
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    bench_print_machine(stdout);
    bench_steal_mark(&since);
    int failed = run_pairs(&o);
    int shown = report(&o, o.pairs - failed);
    bench_print_steal(stdout, "the A/B runs", &since);
    if (o.argv[B] != o.argv[A])
        free(o.argv[B]);
    free(figs);
    return failed || shown <= 0 ? 1 : 0;
}
