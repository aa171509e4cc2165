/* The launcher tests' harness: start mpirun on pipes, collect its stdout
 * and stderr, feed its stdin, wait with a bound, find processes it left
 * behind (interface in launch_harness.h).
 *
 * Design: one poll() loop per call, non-blocking pipes, waitpid(WNOHANG)
 * after every round. Bounds only stop a test that would otherwise hang
 * (a failure either way): the outcome never depends on how fast anything
 * ran. The process is a child subreaper (PR_SET_CHILD_SUBREAPER), so a rank
 * whose mpirun exited without stopping it becomes our child, and
 * wt_leftovers() finds it by scanning /proc for our children.
 *
 * Invariants: status stays -1 until mpirun is reaped; an fd is -1 once
 * closed; out and err are always NUL-terminated.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch_harness.h"

static const char *g_mpirun, *g_prog, *g_mpi_prog;

void wt_launch_init(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s MPIRUN RANK_PROGRAM [MPI_RANK_PROGRAM]\n", argv[0]);
        exit(2);
    }
    g_mpirun = argv[1];
    g_prog = argv[2];
    g_mpi_prog = argc > 3 ? argv[3] : NULL;
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    signal(SIGPIPE, SIG_IGN);
}

const char *wt_mpirun(void)
{
    return g_mpirun;
}

const char *wt_prog(void)
{
    return g_prog;
}

const char *wt_mpi_prog(void)
{
    if (!g_mpi_prog) {
        fprintf(stderr, "this test needs the MPI rank program as its third argument\n");
        exit(2);
    }
    return g_mpi_prog;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int wt_job_start(struct wt_job *j, char *const argv[], const char *in_data, size_t in_len)
{
    int out[2], err[2], in[2];
    *j = (struct wt_job){ .status = -1, .in_data = in_data, .in_len = in_len };
    j->out = calloc(1, 1);
    j->err = calloc(1, 1);
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || pipe2(in, O_CLOEXEC))
        return -1;
    j->pid = fork();
    if (j->pid == 0) {
        int nul = open("/dev/null", O_RDONLY);
        dup2(in_data ? in[0] : nul, 0);
        dup2(out[1], 1);
        dup2(err[1], 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    close(in[0]);
    j->out_fd = out[0];
    j->err_fd = err[0];
    j->in_fd = in[1];
    if (!in_data) {
        close(in[1]);
        j->in_fd = -1;
    }
    for (int fd = 0; fd < 3; fd++) {
        int f = fd == 0 ? j->out_fd : fd == 1 ? j->err_fd : j->in_fd;
        if (f >= 0)
            fcntl(f, F_SETFL, fcntl(f, F_GETFL) | O_NONBLOCK);
    }
    return j->pid > 0 ? 0 : -1;
}

/* ------------------------------------------------------------ pumping */

static void take(int *fd, char **buf, size_t *len)
{
    char chunk[65536];
    ssize_t n;
    while ((n = read(*fd, chunk, sizeof chunk)) > 0) {
        *buf = realloc(*buf, *len + (size_t)n + 1);
        memcpy(*buf + *len, chunk, (size_t)n);
        *len += (size_t)n;
        (*buf)[*len] = '\0';
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        close(*fd);
        *fd = -1;
    }
}

static void feed(struct wt_job *j)
{
    ssize_t w = j->in_len ? write(j->in_fd, j->in_data, j->in_len) : 0;
    if (w > 0) {
        j->in_data += w;
        j->in_len -= (size_t)w;
    }
    if (j->in_len == 0 || (w < 0 && errno != EAGAIN && errno != EINTR)) {
        close(j->in_fd);
        j->in_fd = -1;
    }
}

static void reap(struct wt_job *j)
{
    int st;
    if (j->status < 0 && waitpid(j->pid, &st, WNOHANG) == j->pid)
        j->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One round: wait up to ms for anything, then move what can be moved. */
static void pump(struct wt_job *j, int ms)
{
    struct pollfd p[3] = { { j->out_fd, POLLIN, 0 }, { j->err_fd, POLLIN, 0 },
                           { j->in_fd, POLLOUT, 0 } };
    poll(p, 3, ms);
    if (j->out_fd >= 0)
        take(&j->out_fd, &j->out, &j->out_len);
    if (j->err_fd >= 0)
        take(&j->err_fd, &j->err, &j->err_len);
    if (j->in_fd >= 0)
        feed(j);
    reap(j);
}

int wt_job_wait_lines(struct wt_job *j, const char *prefix, int count, int bound_s)
{
    double end = now_s() + bound_s;
    while (wt_count_lines(j->out, prefix) < count) {
        if (j->status >= 0 || now_s() > end)
            return -1;
        pump(j, 100);
    }
    return 0;
}

int wt_job_finish(struct wt_job *j, int bound_s)
{
    double end = now_s() + bound_s;
    while (j->status < 0 && now_s() < end)
        pump(j, 100);
    if (j->status < 0) {
        kill(j->pid, SIGKILL);
        waitpid(j->pid, NULL, 0);
        return -1;
    }
    pump(j, 0); /* what mpirun wrote before it exited is in the pipes */
    return j->status;
}

void wt_job_free(struct wt_job *j)
{
    int *fds[3] = { &j->out_fd, &j->err_fd, &j->in_fd };
    for (int i = 0; i < 3; i++)
        if (*fds[i] >= 0)
            close(*fds[i]);
    free(j->out);
    free(j->err);
    j->out = j->err = NULL;
}

void wt_job_clear(struct wt_job *j)
{
    for (int i = 0; i < 10 && wt_leftovers() > 0; i++) {
    }
    if (j->out)
        wt_job_free(j);
    *j = (struct wt_job){ .out_fd = -1, .err_fd = -1, .in_fd = -1 };
}

int wt_run(struct wt_job *j, char *const argv[], const char *in_data, size_t in_len, int bound_s)
{
    if (wt_job_start(j, argv, in_data, in_len) != 0)
        return -1;
    return wt_job_finish(j, bound_s);
}

/* ------------------------------------------------------------ output */

int wt_count_lines(const char *text, const char *prefix)
{
    int n = 0;
    size_t pl = strlen(prefix);
    for (const char *l = text; l && *l;) {
        n += !strncmp(l, prefix, pl);
        l = strchr(l, '\n');
        if (l)
            l++;
    }
    return n;
}

int wt_ready_pids(const struct wt_job *j, pid_t *pids, int n)
{
    int found = 0;
    for (const char *l = strstr(j->out, "ready "); l; l = strstr(l + 1, "ready ")) {
        int r, pid;
        if (sscanf(l, "ready %d %d", &r, &pid) == 2 && r >= 0 && r < n) {
            pids[r] = pid;
            found++;
        }
    }
    return found == n ? 0 : -1;
}

/* ------------------------------------------------------------ leftovers */

/* Our child's state letter from /proc/PID/stat, or 0 if not our child. */
static char child_state(const char *pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')'), state;
    int ppid;
    if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2 || ppid != getpid())
        return 0;
    return state;
}

int wt_leftovers(void)
{
    int found = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        char st = e->d_name[0] >= '1' && e->d_name[0] <= '9' ? child_state(e->d_name) : 0;
        if (!st)
            continue;
        if (st != 'Z') {
            fprintf(stderr, "left behind: pid %s\n", e->d_name);
            found++;
            kill(atoi(e->d_name), SIGKILL);
        }
        waitpid(atoi(e->d_name), NULL, 0);
    }
    if (d)
        closedir(d);
    return found;
}
