/* Loopback TCP sockets and server child processes for the I/O benchmarks
 * (see loopback.h for the shape of a case).
 *
 * Children are tracked in a small table so that the parent can kill the
 * ones still alive when it exits or is interrupted; the table is only
 * touched by the (single-threaded) parent, and the signal handler only
 * reads it and calls async-signal-safe kill()/_exit().
 */
#include "loopback.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHILDREN 8

static volatile pid_t children[MAX_CHILDREN];

/* ------------------------------------------------------------- sockets */

static struct sockaddr_in loopback_addr(int port)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static int set_nodelay(int fd)
{
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int lb_listen(int backlog, int *port)
{
    struct sockaddr_in a = loopback_addr(0);
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        fprintf(stderr, "bench: cannot listen on 127.0.0.1: %s\n",
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

int lb_connect(int port)
{
    struct sockaddr_in a = loopback_addr(port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        set_nodelay(fd) != 0) {
        fprintf(stderr, "bench: cannot connect to 127.0.0.1:%d: %s\n", port,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int lb_accept(int listen_fd)
{
    int fd;
    while ((fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) < 0 &&
           errno == EINTR)
        ;
    if (fd < 0 || set_nodelay(fd) != 0) {
        fprintf(stderr, "bench: accept failed: %s\n", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int lb_set_recv_timeout(int fd, int64_t timeout_ns)
{
    struct timeval tv = {.tv_sec = timeout_ns / 1000000000,
                         .tv_usec = (timeout_ns % 1000000000) / 1000};
    if (tv.tv_sec == 0 && tv.tv_usec == 0)
        tv.tv_usec = 1; /* 0 would mean "no timeout" */
    return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

int lb_send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int lb_recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return 1;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ------------------------------------------------------ child processes */

static void kill_children(void)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] > 0)
            kill(children[i], SIGKILL);
}

static void on_fatal_signal(int sig)
{
    kill_children();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Once per process: kill leftover children at exit and on interruption. */
static void install_cleanup(void)
{
    static int installed;
    if (installed)
        return;
    installed = 1;
    atexit(kill_children);
    signal(SIGINT, on_fatal_signal);
    signal(SIGTERM, on_fatal_signal);
    signal(SIGHUP, on_fatal_signal);
    signal(SIGPIPE, SIG_IGN);
}

static int track(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == 0) {
            children[i] = pid;
            return 0;
        }
    return -1;
}

static void untrack(pid_t pid)
{
    for (int i = 0; i < MAX_CHILDREN; i++)
        if (children[i] == pid)
            children[i] = 0;
}

/* In the child, between fork and exec. Never returns. */
static void exec_self(const char *spec, const char *env_key,
                      const char *env_value, int stdout_fd, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    if (env_key && !getenv(env_key))
        setenv(env_key, env_value, 1);
    if (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0)
        _exit(127);
    char *args[] = {program_invocation_name, "--case", (char *)spec, NULL};
    execv("/proc/self/exe", args);
    fprintf(stderr, "bench: cannot re-run itself: %s\n", strerror(errno));
    _exit(127);
}

pid_t lb_spawn_self(const char *spec, const char *env_key,
                    const char *env_value, int stdout_fd)
{
    install_cleanup();
    pid_t parent = getpid();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0)
        exec_self(spec, env_key, env_value, stdout_fd, parent);
    if (pid < 0) {
        fprintf(stderr, "bench: fork failed: %s\n", strerror(errno));
        return -1;
    }
    if (track(pid) != 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        fprintf(stderr, "bench: too many server processes at once\n");
        return -1;
    }
    return pid;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int report_status(int status, int killed, const char *what)
{
    if (!killed && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (killed)
        fprintf(stderr, "bench: %s did not exit in time: killed\n", what);
    else if (WIFSIGNALED(status))
        fprintf(stderr, "bench: %s died of signal %d (%s)\n", what,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        fprintf(stderr, "bench: %s failed (exit status %d)\n", what,
                WEXITSTATUS(status));
    return -1;
}

int lb_reap(pid_t pid, int64_t timeout_ns, const char *what)
{
    int status = 0, killed = 0;
    int64_t deadline = now_ns() + timeout_ns;
    pid_t r;
    while ((r = waitpid(pid, &status, WNOHANG)) == 0 && now_ns() < deadline)
        lb_sleep_ns(1000000);
    if (r == 0) {
        kill(pid, SIGKILL);
        killed = 1;
        while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
            ;
    }
    untrack(pid);
    if (r < 0) {
        fprintf(stderr, "bench: waitpid: %s\n", strerror(errno));
        return -1;
    }
    return what ? report_status(status, killed, what) : 0;
}

/* --------------------------------------------------------------- misc */

long lb_raise_nofile(long want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    rlim_t target = (rlim_t)want;
    if (rl.rlim_max != RLIM_INFINITY && target > rl.rlim_max)
        target = rl.rlim_max;
    if (target > rl.rlim_cur) {
        rl.rlim_cur = target;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
    }
    return (long)rl.rlim_cur;
}

void lb_sleep_ns(int64_t ns)
{
    struct timespec ts = {.tv_sec = ns / 1000000000,
                          .tv_nsec = ns % 1000000000};
    while (ns > 0 && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void lb_precise_sleeps(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL);
}

uint64_t lb_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

uint64_t lb_rand_below(uint64_t *state, uint64_t bound)
{
    return bound ? lb_rand(state) % bound : 0;
}
