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
 * metric tells (times and CPU: lower; rates: higher) and judges nothing else.
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
#include "ab.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

figure *figs;
int nfigs;
static int figs_cap;

static const char *const field_keys[F_COUNT] = {
    "bench", "case", "variant", "metric", "value", "unit"};
int pair_ok[PAIRS_MAX];
char drop_why[PAIRS_MAX][160];
int duplicates, unit_clashes, malformed;

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

void ab_b_disable(const ab_opts *o, char *buf, size_t size)
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
    ab_b_disable(o, joined, sizeof joined);
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
    int shown = ab_report(&o, o.pairs - failed);
    bench_print_steal(stdout, "the A/B runs", &since);
    if (o.argv[B] != o.argv[A])
        free(o.argv[B]);
    free(figs);
    return failed || shown <= 0 ? 1 : 0;
}
