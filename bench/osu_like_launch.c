/* Launching MPI jobs from the MPI benchmark drivers (bench/osu_like,
 * bench/mpi_reactivity): see osu_like_launch.h.
 *
 * A job runs in its own process group, with its stdout on a pipe read line
 * by line (its stderr is the driver's). Time limits stack up: the
 * launcher's own --timeout (both mpiruns have one); this driver kills the
 * job's process group (SIGTERM, SIGKILL 3 s later) 10 s after that, or
 * earlier if the caller gave a stall limit and the job printed nothing for
 * that long (a lost message hangs a benchmark; the caller knows how often
 * a healthy job prints); and the job gets SIGTERM if the driver dies
 * (PR_SET_PDEATHSIG), so that mpirun can still stop its ranks.
 *
 * Open MPI is run at its defaults, with what this machine requires:
 * OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) when run as root; and, only where
 * cross-memory attach fails, OMPI_MCA_btl_vader_single_copy_mechanism=
 * none. Its shared-memory BTL (vader) moves large messages by CMA
 * (process_vm_readv into the peer) by default; a container whose seccomp
 * profile forbids that syscall makes those transfers error out. The
 * probe (ol_cma_works) reads a forked child's memory the same way, once
 * per driver. Where it works Open MPI keeps CMA: both ways a 4 MiB
 * ping-pong runs, with other figures (without single copy vader streams
 * through its segment: faster ping-pongs of 1-4 MiB, slower bandwidth
 * here), and only the default is what users get. Both settings are added
 * only if the environment does not set them already; a job's own settings
 * (ol_argv_setenv: Weft's transport) override the environment.
 */
#include "osu_like_launch.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef WEFT_MPIRUN_PATH
#define WEFT_MPIRUN_PATH ""
#endif
#ifndef OMPI_MPIRUN_PATH
#define OMPI_MPIRUN_PATH ""
#endif

#define KILL_AFTER_S 10 /* past the launcher's own timeout */
#define TERM_GRACE_NS 3000000000LL
#define LINE_MAX_LEN 4096

/* ------------------------------------------------------------- tools */

const char *ol_mpirun_path(ol_lib lib)
{
    const char *p = lib == OL_LIB_WEFT ? WEFT_MPIRUN_PATH : OMPI_MPIRUN_PATH;
    return *p && access(p, X_OK) == 0 ? p : NULL;
}

static void version_line(void *arg, char *line)
{
    char *buf = arg;
    const char *last = strrchr(line, ' ');
    if (*buf == '\0' && last && strstr(line, "OpenRTE"))
        snprintf(buf, 64, "Open MPI %s", last + 1);
}

const char *ol_openmpi_version(char *buf, size_t size)
{
    char found[64] = "";
    const char *mpirun = ol_mpirun_path(OL_LIB_OPENMPI);
    ol_argv a = {.v = {mpirun, "--version", NULL}, .n = 2};
    if (mpirun)
        ol_run_job(&a, 10, 0, version_line, found, "mpirun.openmpi --version");
    snprintf(buf, size, "%s", found);
    return buf;
}

/* ------------------------------------------------ cross-memory attach */

static int cma_state = -1; /* -1 not probed, else ol_cma_works() */
static int cma_errno;

/* Read a word of a forked child with process_vm_readv, as vader reads
 * its peer; 1 if the child's value came back. */
static int probe_cma(void)
{
    static volatile unsigned long word;
    int fds[2], ok = 0;
    char c;
    if (pipe(fds) != 0)
        return cma_errno = errno, 0;
    word = 0;
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        word = 0x5eedf00dUL;
        if (write(fds[1], "x", 1) == 1)
            pause();
        _exit(0);
    }
    close(fds[1]);
    if (pid > 0 && read(fds[0], &c, 1) == 1) {
        unsigned long got = 0;
        struct iovec local = {&got, sizeof got};
        struct iovec remote = {(void *)&word, sizeof word};
        ok = process_vm_readv(pid, &local, 1, &remote, 1, 0) ==
                 (ssize_t)sizeof got && got == 0x5eedf00dUL;
        cma_errno = ok ? 0 : errno ? errno : EIO;
    } else {
        cma_errno = errno;
    }
    close(fds[0]);
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    return ok;
}

int ol_cma_works(void)
{
    if (cma_state < 0)
        cma_state = probe_cma();
    return cma_state;
}

void ol_print_openmpi_cma(FILE *f)
{
    const char *set = getenv("OMPI_MCA_btl_vader_single_copy_mechanism");
    if (set)
        fprintf(f, "Open MPI: OMPI_MCA_btl_vader_single_copy_mechanism=%s "
                "from the environment (not its default)\n", set);
    else if (ol_cma_works())
        fprintf(f, "Open MPI: cross-memory attach works here (probed): vader "
                "at its defaults, single copy by CMA\n");
    else
        fprintf(f, "Open MPI: cross-memory attach fails here "
                "(process_vm_readv: %s): its jobs run with "
                "OMPI_MCA_btl_vader_single_copy_mechanism=none, without which "
                "vader errors out; NOT Open MPI's defaults\n",
                strerror(cma_errno));
}

/* ------------------------------------------------------ command lines */

void ol_argv_add(ol_argv *a, const char *arg)
{
    if (a->n < OL_ARGV_MAX)
        a->v[a->n++] = arg;
    a->v[a->n] = NULL;
}

void ol_argv_setenv(ol_argv *a, const char *var, const char *value)
{
    if (a->nenv < OL_ENV_MAX) {
        a->env_name[a->nenv] = var;
        a->env_value[a->nenv++] = value;
    }
}

void ol_argv_option(ol_argv *a, const char *opt)
{
    if (a->n < 1 || a->n + 1 > OL_ARGV_MAX)
        return;
    const char *prog = a->v[--a->n];
    ol_argv_add(a, opt);
    ol_argv_add(a, prog);
}

void ol_argv_export(ol_argv *a, const char *var)
{
    if (a->n + 2 > OL_ARGV_MAX)
        return;
    ol_argv_option(a, "-x");
    ol_argv_option(a, var);
}

void ol_argv_mpirun(ol_argv *a, ol_lib lib, int np, int timeout_s,
                    int tcp_only, const char *prog)
{
    snprintf(a->np_text, sizeof a->np_text, "%d", np);
    snprintf(a->timeout_text, sizeof a->timeout_text, "%d", timeout_s);
    a->n = a->nenv = 0;
    ol_argv_add(a, ol_mpirun_path(lib));
    ol_argv_add(a, "-n");
    ol_argv_add(a, a->np_text);
    ol_argv_add(a, "--timeout");
    ol_argv_add(a, a->timeout_text);
    if (lib == OL_LIB_OPENMPI && tcp_only) {
        ol_argv_add(a, "--mca");
        ol_argv_add(a, "btl");
        ol_argv_add(a, "tcp,self");
    }
    ol_argv_add(a, prog);
}

/* --------------------------------------------------------------- jobs */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void child_exec(const ol_argv *a, int out_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (geteuid() == 0) {
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
    }
    if (!ol_cma_works()) /* probed before the fork: cached */
        setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
    for (int i = 0; i < a->nenv; i++) {
        if (a->env_value[i])
            setenv(a->env_name[i], a->env_value[i], 1);
        else
            unsetenv(a->env_name[i]);
    }
    dup2(out_fd, STDOUT_FILENO);
    close(out_fd);
    execv(a->v[0], (char *const *)a->v);
    fprintf(stderr, "bench: cannot run %s: %s\n", a->v[0], strerror(errno));
    _exit(127);
}

typedef struct line_buf {
    char text[LINE_MAX_LEN];
    size_t len;
} line_buf;

/* Pass the complete lines of lb to fn; keep the rest. */
static void flush_lines(line_buf *lb, ol_line_fn fn, void *arg, int at_eof)
{
    char *start = lb->text, *nl;
    while ((nl = memchr(start, '\n', lb->len - (size_t)(start - lb->text)))) {
        *nl = '\0';
        fn(arg, start);
        start = nl + 1;
    }
    lb->len -= (size_t)(start - lb->text);
    memmove(lb->text, start, lb->len);
    if (lb->len == sizeof lb->text - 1 || (at_eof && lb->len > 0)) {
        lb->text[lb->len] = '\0'; /* an over-long or unterminated line */
        fn(arg, lb->text);
        lb->len = 0;
    }
}

/* Read the job's stdout until EOF (returns 0), the deadline (-1) or a
 * silence of stall_ns (> 0; returns -2). */
static int read_output(int fd, int64_t deadline, int64_t stall_ns,
                       ol_line_fn fn, void *arg)
{
    static line_buf lb;
    int64_t last = now_ns();
    lb.len = 0;
    for (;;) {
        int64_t now = now_ns(), left = deadline - now;
        if (stall_ns > 0 && now - last > stall_ns)
            return -2;
        if (stall_ns > 0 && last + stall_ns - now < left)
            left = last + stall_ns - now;
        if (left <= 0)
            return -1;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)(left / 1000000) + 1) <= 0)
            continue; /* EINTR or a limit: checked above */
        ssize_t n = read(fd, lb.text + lb.len, sizeof lb.text - 1 - lb.len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            flush_lines(&lb, fn, arg, 1);
            return 0;
        }
        lb.len += (size_t)n;
        last = now_ns();
        flush_lines(&lb, fn, arg, 0);
    }
}

/* Wait for pid until the deadline; 1 if it ended (status set), else 0. */
static int wait_until(pid_t pid, int64_t deadline, int *status)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return 1;
        if (now_ns() >= deadline)
            return 0;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
}

static void kill_job(pid_t pid, int *status)
{
    kill(-pid, SIGTERM);
    if (!wait_until(pid, now_ns() + TERM_GRACE_NS, status)) {
        kill(-pid, SIGKILL);
        waitpid(pid, status, 0);
    }
}

/* late: 0 ended by itself, -1 past its time limit, -2 stalled. */
static int report(const char *what, int status, int late, int stall_s)
{
    if (!late && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (late == -2)
        fprintf(stderr, "bench: %s: no output for %d s (stalled): killed\n",
                what, stall_s);
    else if (late)
        fprintf(stderr, "bench: %s: still running past its time limit: "
                "killed\n", what);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "bench: %s: killed by signal %d\n", what,
                WTERMSIG(status));
    else
        fprintf(stderr, "bench: %s: exit status %d%s\n", what,
                WEXITSTATUS(status), WEXITSTATUS(status) == 124
                ? " (the launcher's --timeout)" : "");
    return -1;
}

static pid_t start_job(const ol_argv *a, int *out_fd)
{
    int fds[2];
    if (!a->v[0] || pipe(fds) != 0)
        return -1;
    ol_cma_works(); /* probe here, not once per child */
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_exec(a, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    setpgid(pid, pid); /* also done by the child: no race either way */
    *out_fd = fds[0];
    return pid;
}

int ol_run_job(const ol_argv *a, int timeout_s, int stall_s, ol_line_fn fn,
               void *arg, const char *what)
{
    int fd, status = 0;
    pid_t pid = start_job(a, &fd);
    if (pid < 0)
        return -1;
    int64_t deadline = now_ns() + (int64_t)(timeout_s + KILL_AFTER_S) * 1000000000;
    int late = read_output(fd, deadline, (int64_t)stall_s * 1000000000, fn, arg);
    close(fd);
    if (late == 0 && !wait_until(pid, deadline, &status))
        late = -1;
    if (late)
        kill_job(pid, &status);
    return report(what, status, late, stall_s);
}

/* ---------------------------------------------------- child lines */

static int parse_row(const char *line, bench_table *t)
{
    char c[BENCH_NAME_MAX], v[BENCH_NAME_MAX], m[BENCH_NAME_MAX];
    char med[BENCH_NAME_MAX], lo[BENCH_NAME_MAX], hi[BENCH_NAME_MAX];
    char unit[BENCH_NAME_MAX];
    if (sscanf(line, "row %39s %39s %39s %39s %39s %39s %39s", c, v, m, med,
               lo, hi, unit) != 7)
        return 0;
    if (strcmp(med, "na") == 0) {
        bench_table_add_na(t, c, v, m, unit);
        return 1;
    }
    bench_stats st = {strtod(med, 0), strtod(lo, 0), strtod(hi, 0)};
    bench_table_add(t, c, v, m, st, unit);
    return 1;
}

int ol_parse_child_line(const char *line, bench_table *t)
{
    if (strncmp(line, "row ", 4) == 0)
        return parse_row(line, t);
    if (strncmp(line, "note ", 5) == 0) {
        bench_table_note(t, "%s", line + 5);
        return 1;
    }
    return 0;
}
