/* Shared benchmark helpers (see bench_util.h for the model: a table of
 * figures printed as text, `result:` lines and CSV; sub-benchmarks in
 * child processes; gnuplot charts).
 *
 * Timing: bench_calibrate() grows the iteration count (x10 while a run is
 * far below the target, then x2) until one run takes a tenth of the
 * target, then scales it to the target; each repeat then runs that count.
 * Reporting the median of the repeats, with min and max beside it, keeps
 * one noisy repeat on a shared machine from moving the figure.
 *
 * Child protocol (one line each, on the child's stdout):
 *   row <case> <variant> <metric> <median> <min> <max> <unit>   ("na" x3
 *       in place of the numbers for a not-applicable row)
 *   note <free text>
 * Anything else is copied to the parent's stdout.
 */
#include "bench_util.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- options */

int bench_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static void print_usage(const char *prog, const char *bench)
{
    printf("usage: %s [--quick] [--repeats N] [--csv PATH] [--png PATH]\n"
           "  --quick      short run (a few seconds), 3 repeats\n"
           "  --repeats N  repeats per figure (default 7)\n"
           "  --csv PATH   CSV output (default bench-out/%s.csv)\n"
           "  --png PATH   chart, drawn if gnuplot is on PATH "
           "(default bench-out/%s.png)\n",
           prog, bench, bench);
}

static int copy_path(char *dst, size_t size, const char *src)
{
    if (strlen(src) >= size) {
        fprintf(stderr, "bench: path too long: %s\n", src);
        return -1;
    }
    strcpy(dst, src);
    return 0;
}

static int parse_repeats(const char *text, int *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < 1 || v > BENCH_REPEATS_MAX) {
        fprintf(stderr, "bench: --repeats wants 1..%d, got '%s'\n",
                BENCH_REPEATS_MAX, text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static void set_default_opts(bench_opts *o, const char *bench)
{
    memset(o, 0, sizeof *o);
    snprintf(o->csv_path, sizeof o->csv_path, "bench-out/%s.csv", bench);
    snprintf(o->png_path, sizeof o->png_path, "bench-out/%s.png", bench);
}

int bench_parse_opts(int argc, char **argv, const char *bench, bench_opts *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'q'},   {"repeats", required_argument, 0, 'r'},
        {"csv", required_argument, 0, 'c'}, {"png", required_argument, 0, 'p'},
        {"case", required_argument, 0, 'k'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int repeats = 0, opt, rc = 0;
    set_default_opts(o, bench);
    while (rc == 0 && (opt = getopt_long(argc, argv, "", longopts, 0)) != -1) {
        switch (opt) {
        case 'q': o->quick = 1; break;
        case 'r': rc = parse_repeats(optarg, &repeats); break;
        case 'c': rc = copy_path(o->csv_path, sizeof o->csv_path, optarg); break;
        case 'p': rc = copy_path(o->png_path, sizeof o->png_path, optarg); break;
        case 'k': o->case_name = optarg; break;
        case 'h': print_usage(argv[0], bench); return 1;
        default: rc = -1; break;
        }
    }
    if (rc == 0 && optind < argc) {
        fprintf(stderr, "bench: unexpected argument '%s'\n", argv[optind]);
        rc = -1;
    }
    o->repeats = bench_default_repeats(repeats, o->quick);
    return rc;
}

int bench_default_repeats(int repeats, int quick)
{
    if (repeats < 1 || repeats > BENCH_REPEATS_MAX)
        return quick ? 3 : 7;
    return repeats;
}

int bench_mpi_common_opt(int argc, char **argv, int *i, int *quick,
                         int *repeats, const char **variant)
{
    const char *opt = argv[*i];
    if (strcmp(opt, "--quick") == 0)
        *quick = 1;
    else if (*i + 1 >= argc)
        return 0;
    else if (strcmp(opt, "--repeats") == 0)
        *repeats = atoi(argv[++*i]);
    else if (strcmp(opt, "--variant") == 0)
        *variant = argv[++*i];
    else
        return 0;
    return 1;
}

/* ------------------------------------------------------- time and stats */

static volatile uint64_t consumed_sink;

int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void bench_consume(uint64_t value)
{
    consumed_sink ^= value;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

bench_stats bench_stats_of(double *samples, int n)
{
    bench_stats st;
    qsort(samples, (size_t)n, sizeof *samples, compare_doubles);
    st.min = samples[0];
    st.max = samples[n - 1];
    st.median = n % 2 ? samples[n / 2]
                      : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    return st;
}

double bench_span_ns(const int64_t *starts, const int64_t *ends, int n)
{
    int64_t first = starts[0], last = ends[0];
    for (int i = 1; i < n; i++) {
        first = starts[i] < first ? starts[i] : first;
        last = ends[i] > last ? ends[i] : last;
    }
    return (double)(last - first);
}

uint64_t bench_calibrate(bench_run_fn fn, void *ctx, int64_t target_ns)
{
    const double enough = (double)target_ns / 10;
    uint64_t n = 1;
    for (;;) {
        double elapsed = fn(ctx, n);
        if (elapsed >= enough || n >= (UINT64_C(1) << 40)) {
            double scaled = (double)n * (double)target_ns /
                            (elapsed > 1 ? elapsed : 1);
            return scaled < 1 ? 1 : (uint64_t)scaled;
        }
        n *= elapsed < enough / 10 ? 10 : 2;
    }
}

bench_stats bench_ns_per_op(bench_run_fn fn, void *ctx, int repeats,
                            int64_t target_ns)
{
    double samples[BENCH_REPEATS_MAX];
    uint64_t iters = bench_calibrate(fn, ctx, target_ns);
    if (repeats > BENCH_REPEATS_MAX)
        repeats = BENCH_REPEATS_MAX;
    for (int r = 0; r < repeats; r++)
        samples[r] = fn(ctx, iters) / (double)iters;
    return bench_stats_of(samples, repeats);
}

/* ------------------------------------------------------------- the table */

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, BENCH_NAME_MAX, "%s", src);
}

static bench_row *new_row(bench_table *t, const char *case_name,
                          const char *variant, const char *metric,
                          const char *unit)
{
    if (t->nrows == BENCH_ROWS_MAX) {
        fprintf(stderr, "bench: too many rows, dropping %s/%s\n",
                case_name, variant);
        return NULL;
    }
    bench_row *r = &t->rows[t->nrows++];
    memset(r, 0, sizeof *r);
    copy_name(r->case_name, case_name);
    copy_name(r->variant, variant);
    copy_name(r->metric, metric);
    copy_name(r->unit, unit);
    return r;
}

void bench_table_add(bench_table *t, const char *case_name,
                     const char *variant, const char *metric,
                     bench_stats st, const char *unit)
{
    bench_row *r = new_row(t, case_name, variant, metric, unit);
    if (r)
        r->st = st;
}

void bench_table_add_na(bench_table *t, const char *case_name,
                        const char *variant, const char *metric,
                        const char *unit)
{
    bench_row *r = new_row(t, case_name, variant, metric, unit);
    if (r)
        r->na = 1;
}

void bench_table_note(bench_table *t, const char *fmt, ...)
{
    if (t->nnotes == BENCH_NOTES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->notes[t->nnotes++], BENCH_NOTE_LEN, fmt, ap);
    va_end(ap);
}

const bench_row *bench_table_find(const bench_table *t, const char *case_name,
                                  const char *variant)
{
    for (int i = 0; i < t->nrows; i++) {
        const bench_row *r = &t->rows[i];
        if (!r->na && strcmp(r->case_name, case_name) == 0 &&
            strcmp(r->variant, variant) == 0)
            return r;
    }
    return NULL;
}

int bench_launch_repeats(int repeats, int launches)
{
    return launches > 1 ? (repeats + launches - 1) / launches : repeats;
}

static int has_row(const bench_table *t, const bench_row *r)
{
    for (int i = 0; i < t->nrows; i++)
        if (strcmp(t->rows[i].case_name, r->case_name) == 0 &&
            strcmp(t->rows[i].variant, r->variant) == 0)
            return 1;
    return 0;
}

static int has_note(const bench_table *t, const char *note)
{
    for (int i = 0; i < t->nnotes; i++)
        if (strcmp(t->notes[i], note) == 0)
            return 1;
    return 0;
}

/* One merged row for r's (case, variant) from the n launch tables. */
static void merge_row(bench_table *dst, const bench_row *r,
                      const bench_table *launches, int n)
{
    double med[BENCH_LAUNCHES_MAX];
    bench_stats st = {0, 0, 0};
    int k = 0;
    for (int l = 0; l < n && l < BENCH_LAUNCHES_MAX; l++) {
        const bench_row *x = bench_table_find(&launches[l], r->case_name, r->variant);
        if (!x)
            continue;
        st.min = k == 0 || x->st.min < st.min ? x->st.min : st.min;
        st.max = k == 0 || x->st.max > st.max ? x->st.max : st.max;
        med[k++] = x->st.median;
    }
    if (k == 0) {
        bench_table_add_na(dst, r->case_name, r->variant, r->metric, r->unit);
        return;
    }
    st.median = bench_stats_of(med, k).median;
    bench_table_add(dst, r->case_name, r->variant, r->metric, st, r->unit);
}

void bench_table_merge(bench_table *dst, const bench_table *launches, int n)
{
    for (int l = 0; l < n && l < BENCH_LAUNCHES_MAX; l++) {
        for (int i = 0; i < launches[l].nrows; i++)
            if (!has_row(dst, &launches[l].rows[i]))
                merge_row(dst, &launches[l].rows[i], launches, n);
        for (int i = 0; i < launches[l].nnotes; i++)
            if (!has_note(dst, launches[l].notes[i]))
                bench_table_note(dst, "%s", launches[l].notes[i]);
    }
}

/* Plain decimal, about four significant digits (all of the integer part
 * for large numbers): no exponent, so that scripts and eyes read it. */
static const char *format_value(char *buf, size_t size, double v)
{
    double mag = v < 0 ? -v : v;
    if (mag < 1 && mag > 0)
        snprintf(buf, size, "%.4g", v);
    else
        snprintf(buf, size, "%.*f", mag >= 1000 ? 0 : mag >= 10 ? 1 : 3, v);
    return buf;
}

static void print_row(const bench_row *r, FILE *f)
{
    char med[32], lo[32], hi[32];
    if (r->na) {
        fprintf(f, "%-18s %-14s %14s %14s %14s  %s\n", r->case_name,
                r->variant, "n/a", "n/a", "n/a", r->unit);
        return;
    }
    fprintf(f, "%-18s %-14s %14s %14s %14s  %s\n", r->case_name, r->variant,
            format_value(med, sizeof med, r->st.median),
            format_value(lo, sizeof lo, r->st.min),
            format_value(hi, sizeof hi, r->st.max), r->unit);
}

void bench_table_print(const bench_table *t, FILE *f)
{
    fprintf(f, "%-18s %-14s %14s %14s %14s  %s\n", "case", "variant",
            "median", "min", "max", "unit");
    for (int i = 0; i < t->nrows; i++)
        print_row(&t->rows[i], f);
}

void bench_table_print_notes(const bench_table *t, FILE *f)
{
    for (int i = 0; i < t->nnotes; i++)
        fprintf(f, "note: %s\n", t->notes[i]);
}

void bench_print_result(FILE *f, const char *bench, const char *case_name,
                        const char *variant, const char *metric,
                        double value, const char *unit)
{
    char buf[32];
    fprintf(f, "result: bench=%s case=%s variant=%s metric=%s value=%s unit=%s\n",
            bench, case_name, variant, metric,
            format_value(buf, sizeof buf, value), unit);
}

void bench_table_print_results(const bench_table *t, const char *bench,
                               FILE *f)
{
    for (int i = 0; i < t->nrows; i++) {
        const bench_row *r = &t->rows[i];
        if (!r->na)
            bench_print_result(f, bench, r->case_name, r->variant, r->metric,
                               r->st.median, r->unit);
    }
}

/* mkdir -p of the directory part of `path`. */
static int make_parent_dirs(const char *path)
{
    char dir[1024];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -1;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; p <= slash; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = saved;
    }
    return 0;
}

FILE *bench_open_csv(const char *bench, const char *path)
{
    FILE *f = make_parent_dirs(path) == 0 ? fopen(path, "w") : NULL;
    if (!f)
        fprintf(stderr, "%s: cannot write %s: %s\n", bench, path,
                strerror(errno));
    return f;
}

int bench_table_write_csv(const bench_table *t, const char *bench,
                          const char *path)
{
    FILE *f = bench_open_csv("bench", path);
    if (!f)
        return -1;
    fprintf(f, "bench,case,variant,metric,median,min,max,unit\n");
    for (int i = 0; i < t->nrows; i++) {
        const bench_row *r = &t->rows[i];
        if (!r->na)
            fprintf(f, "%s,%s,%s,%s,%.6g,%.6g,%.6g,%s\n", bench, r->case_name,
                    r->variant, r->metric, r->st.median, r->st.min, r->st.max,
                    r->unit);
    }
    return fclose(f) == 0 ? 0 : -1;
}

int bench_print_ratio_goal(FILE *f, const char *label, double ratio,
                           double max_ratio)
{
    char goal[32], text[48];
    int pass = ratio <= max_ratio;
    snprintf(goal, sizeof goal, "goal <= 1/%.0f", 1 / max_ratio);
    fprintf(f, "%-34s %s   %-14s %s\n", label,
            bench_format_ratio(text, sizeof text, ratio), goal,
            pass ? "PASS" : "MISS");
    return pass;
}

const char *bench_format_ratio(char *buf, size_t size, double ratio)
{
    char tail[32];
    if (ratio > 0 && ratio < 1)
        snprintf(tail, sizeof tail, "(1/%.1f)", 1 / ratio);
    else
        snprintf(tail, sizeof tail, "(%.1fx)", ratio);
    snprintf(buf, size, "%9.4f %-10s", ratio, tail);
    return buf;
}

/* For the report cells: shorter than format_value. */
static const char *format_num(char *buf, size_t size, double v)
{
    snprintf(buf, size, v >= 1000 ? "%.0f" : v >= 10 ? "%.1f" : "%.3g", v);
    return buf;
}

const char *bench_format_bytes(char *buf, size_t size, int bytes)
{
    if (bytes >= 1 << 20)
        snprintf(buf, size, "%d MiB", bytes >> 20);
    else if (bytes >= 1 << 10)
        snprintf(buf, size, "%d KiB", bytes >> 10);
    else
        snprintf(buf, size, "%d B", bytes);
    return buf;
}

const char *bench_format_range(char *buf, size_t size, bench_stats st)
{
    char med[24], lo[24], hi[24];
    snprintf(buf, size, "%s [%s-%s]",
             format_num(med, sizeof med, st.median),
             format_num(lo, sizeof lo, st.min),
             format_num(hi, sizeof hi, st.max));
    return buf;
}

void bench_print_range_cell(FILE *f, int width, const bench_row *row,
                            const char *missing)
{
    char text[80];
    fprintf(f, " %*s", width,
            row ? bench_format_range(text, sizeof text, row->st) : missing);
}

void bench_print_ratio_cell(FILE *f, int width, double ratio)
{
    if (ratio < 0)
        fprintf(f, " %*s", width, "-");
    else
        fprintf(f, " %*.2f", width, ratio);
}

/* ------------------------------------------------------ child processes */

void bench_table_emit(const bench_table *t, FILE *f)
{
    for (int i = 0; i < t->nrows; i++) {
        const bench_row *r = &t->rows[i];
        if (r->na)
            fprintf(f, "row %s %s %s na na na %s\n", r->case_name, r->variant,
                    r->metric, r->unit);
        else
            fprintf(f, "row %s %s %s %.17g %.17g %.17g %s\n", r->case_name,
                    r->variant, r->metric, r->st.median, r->st.min, r->st.max,
                    r->unit);
    }
    for (int i = 0; i < t->nnotes; i++)
        fprintf(f, "note %s\n", t->notes[i]);
    fflush(f);
}

static int parse_row_line(const char *line, bench_table *t)
{
    char c[BENCH_NAME_MAX], v[BENCH_NAME_MAX], m[BENCH_NAME_MAX];
    char med[BENCH_NAME_MAX], lo[BENCH_NAME_MAX], hi[BENCH_NAME_MAX];
    char unit[BENCH_NAME_MAX];
    if (sscanf(line, "row %39s %39s %39s %39s %39s %39s %39s", c, v, m, med,
               lo, hi, unit) != 7)
        return -1;
    if (strcmp(med, "na") == 0) {
        bench_table_add_na(t, c, v, m, unit);
        return 0;
    }
    bench_stats st = {strtod(med, 0), strtod(lo, 0), strtod(hi, 0)};
    bench_table_add(t, c, v, m, st, unit);
    return 0;
}

static void handle_child_line(char *line, bench_table *t)
{
    line[strcspn(line, "\n")] = '\0';
    if (strncmp(line, "row ", 4) == 0 && parse_row_line(line, t) == 0)
        return;
    if (strncmp(line, "note ", 5) == 0) {
        bench_table_note(t, "%s", line + 5);
        return;
    }
    printf("%s\n", line);
}

static pid_t fork_self(const bench_opts *o, const char *case_name, int out_fd)
{
    char repeats[16];
    snprintf(repeats, sizeof repeats, "%d", o->repeats);
    char *args[] = {program_invocation_name, "--case", (char *)case_name,
                    "--repeats", repeats, o->quick ? "--quick" : NULL, NULL};
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out_fd, STDOUT_FILENO);
        execv("/proc/self/exe", args);
        fprintf(stderr, "bench: cannot re-run itself: %s\n", strerror(errno));
        _exit(127);
    }
    return pid;
}

/* Fork the child with env_key temporarily set (or left alone). */
static pid_t fork_self_with_env(const bench_opts *o, const char *case_name,
                                int out_fd, const char *env_key,
                                const char *env_value)
{
    char *old = NULL;
    if (env_value) {
        const char *cur = getenv(env_key);
        old = cur ? strdup(cur) : NULL;
        setenv(env_key, env_value, 1);
    }
    pid_t pid = fork_self(o, case_name, out_fd);
    if (env_value) {
        if (old)
            setenv(env_key, old, 1);
        else
            unsetenv(env_key);
        free(old);
    }
    return pid;
}

static int check_child_status(const char *case_name, int status)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        fprintf(stderr, "bench: case %s killed by signal %d (%s)\n", case_name,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        fprintf(stderr, "bench: case %s failed (exit status %d)\n", case_name,
                WEXITSTATUS(status));
    return -1;
}

int bench_spawn_case(const bench_opts *o, const char *case_name,
                     const char *env_key, const char *env_value,
                     bench_table *t)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork_self_with_env(o, case_name, fds[1], env_key, env_value);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    FILE *in = fdopen(fds[0], "r");
    char line[1024];
    while (in && fgets(line, sizeof line, in))
        handle_child_line(line, t);
    if (in)
        fclose(in);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return check_child_status(case_name, status);
}

/* --------------------------------------------------------------- plotting */

static int find_on_path(const char *prog, char *out, size_t size)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    if (!path || snprintf(dirs, sizeof dirs, "%s", path) >= (int)sizeof dirs)
        return -1;
    for (char *save, *d = strtok_r(dirs, ":", &save); d;
         d = strtok_r(NULL, ":", &save)) {
        snprintf(out, size, "%s/%s", *d ? d : ".", prog);
        if (access(out, X_OK) == 0)
            return 0;
    }
    return -1;
}

static int find_next_to_exe(const char *name, char *out, size_t size)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    snprintf(out, size, "%s/%s", dirname(exe), name);
    return access(out, R_OK);
}

static int run_gnuplot(const char *gnuplot, const char *script,
                       const char *csv_path, const char *png_path)
{
    char vars[2200];
    snprintf(vars, sizeof vars, "csv='%s'; out='%s'", csv_path, png_path);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(gnuplot, "gnuplot", "-e", vars, script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int bench_plot(const char *script_name, const char *csv_path,
               const char *png_path)
{
    char gnuplot[1024], script[1200];
    if (find_on_path("gnuplot", gnuplot, sizeof gnuplot) != 0) {
        printf("note: gnuplot is not on PATH: no chart drawn\n");
        return 0;
    }
    if (find_next_to_exe(script_name, script, sizeof script) != 0) {
        printf("note: %s is not next to the program: no chart drawn\n",
               script_name);
        return 0;
    }
    if (strchr(csv_path, '\'') || strchr(png_path, '\'') ||
        make_parent_dirs(png_path) != 0 ||
        run_gnuplot(gnuplot, script, csv_path, png_path) != 0) {
        fprintf(stderr, "bench: gnuplot could not draw %s\n", png_path);
        return -1;
    }
    printf("chart: %s\n", png_path);
    return 0;
}

void bench_print_machine(FILE *f)
{
    char line[256], model[200] = "unknown";
    FILE *in = fopen("/proc/cpuinfo", "r");
    while (in && fgets(line, sizeof line, in)) {
        char *colon = strchr(line, ':');
        if (colon && strncmp(line, "model name", 10) == 0) {
            snprintf(model, sizeof model, "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (in)
        fclose(in);
    fprintf(f, "machine: %s, %ld CPUs online\n", model,
            sysconf(_SC_NPROCESSORS_ONLN));
}
