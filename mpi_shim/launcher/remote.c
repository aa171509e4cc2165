/* Starting a rank on another host: the launch plan mpirun sends (the
 * "blob"), and the helper that runs there: `mpirun --weft-remote-exec HEX`.
 *
 * The blob is a sequence of NUL-terminated strings, hex-encoded so it is
 * one plain word for any agent (argv-passing or shell-joining, spawn.c):
 *   "weft-remote-1", working directory, "1" if it must exist else "0",
 *   number of environment entries, the entries (NAME=value), the program
 *   and its arguments.
 * The job secret is not in it (command lines are visible to every user):
 * the helper reads it as the first line of its stdin, byte by byte so it
 * never consumes input meant for the rank, and puts it in WEFT_MPI_SECRET.
 * The second line carries what -genvall adds (all of mpirun's environment,
 * which may hold credentials), hex-encoded the same way, or nothing; those
 * variables never override the blob's.
 *
 * The helper then supervises the rank instead of exec'ing it, because a
 * remote-exec agent such as ssh does not stop the remote command when it is
 * killed (without a terminal, sshd just closes the channel). The helper
 * starts the rank in its own process group, with PR_SET_PDEATHSIG tied to
 * the helper, and stops it (SIGTERM, SIGKILL 5 s later) when
 *   - the helper gets SIGTERM, SIGINT, SIGHUP or SIGQUIT (passed on as is),
 *   - its stdout breaks (POLLERR/POLLHUP: mpirun or the agent is gone),
 *   - the helper dies (PDEATHSIG: SIGKILL).
 * SIGUSR1, SIGUSR2, SIGCONT and SIGTSTP are passed on to the rank too
 * (mpirun forwards them to every rank); the helper itself never stops.
 * When the rank ends, the helper ends the same way (same exit code, or the
 * same signal re-raised without a core dump), so an agent that execs
 * (ip netns exec, env) reports the rank's status exactly; ssh maps signals
 * to 255.
 *
 * Rejected: a daemon per host that starts all its ranks (Open MPI's orted):
 * more state, and the per-rank helper already gives stdio per rank.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"

#define BLOB_TAG       "weft-remote-2"
#define STOP_GRACE_MS  5000

char *wl_remote_blob(const char *cwd, int strict, char **env, int nenv, char *const *argv)
{
    char count[16];
    snprintf(count, sizeof count, "%d", nenv);
    const char *head[] = { BLOB_TAG, cwd, strict ? "1" : "0", count };
    size_t len = 0;
    for (size_t i = 0; i < 4; i++)
        len += strlen(head[i]) + 1;
    for (int i = 0; i < nenv; i++)
        len += strlen(env[i]) + 1;
    for (int i = 0; argv[i]; i++)
        len += strlen(argv[i]) + 1;
    char *raw = malloc(len), *p = raw, *hex = malloc(2 * len + 1);
    if (!raw || !hex) {
        wl_say("out of memory");
        exit(WL_EXIT_INTERNAL);
    }
    for (size_t i = 0; i < 4; i++)
        p = stpcpy(p, head[i]) + 1;
    for (int i = 0; i < nenv; i++)
        p = stpcpy(p, env[i]) + 1;
    for (int i = 0; argv[i]; i++)
        p = stpcpy(p, argv[i]) + 1;
    wmpi_hex_encode((uint8_t *)raw, len, hex);
    free(raw);
    return hex;
}

char *wl_remote_env_line(char **env, int nenv)
{
    size_t len = 0;
    for (int i = 0; i < nenv; i++)
        len += strlen(env[i]) + 1;
    char *raw = malloc(len + 1), *p = raw, *line = malloc(2 * len + 2);
    if (!raw || !line) {
        wl_say("out of memory");
        exit(WL_EXIT_INTERNAL);
    }
    for (int i = 0; i < nenv; i++)
        p = stpcpy(p, env[i]) + 1;
    wmpi_hex_encode((uint8_t *)raw, len, line);
    strcpy(line + 2 * len, "\n");
    free(raw);
    return line;
}

/* ------------------------------------------------------------ helper side */

struct plan {
    char *raw;
    const char *cwd;
    int strict;
    char **env;              /* points into raw */
    int nenv;
    char **argv;             /* NULL-terminated, points into raw */
};

/* Split raw[0..len) into its strings; -1 if malformed. */
static int split(struct plan *pl, char *raw, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += raw[i] == '\0';
    if (len == 0 || raw[len - 1] != '\0' || n < 5)
        return -1;
    char **s = calloc((size_t)n + 1, sizeof *s);
    if (!s)
        return -1;
    for (int i = 0, off = 0; i < n; off += (int)strlen(raw + off) + 1)
        s[i++] = raw + off;
    pl->cwd = s[1];
    pl->strict = !strcmp(s[2], "1");
    pl->nenv = atoi(s[3]);
    if (strcmp(s[0], BLOB_TAG) || pl->nenv < 0 || 4 + pl->nenv >= n)
        return -1;
    pl->env = s + 4;
    pl->argv = s + 4 + pl->nenv;
    return 0;
}

static int decode(const char *hex, struct plan *pl)
{
    size_t len = strlen(hex) / 2;
    pl->raw = malloc(len + 1);
    if (!pl->raw || strlen(hex) % 2 || wmpi_hex_decode(hex, (uint8_t *)pl->raw, len))
        return -1;
    return split(pl, pl->raw, len);
}

/* One line of stdin, without its newline, read byte by byte so nothing
 * meant for the rank is consumed; at most max bytes. Length, or -1. */
static ssize_t read_line(char *out, size_t max)
{
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t r = read(0, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || n >= max)
            return -1;
        if (c == '\n')
            break;
        out[n++] = c;
    }
    out[n] = '\0';
    return (ssize_t)n;
}

/* The first line of stdin: the job secret, in hex. */
static int read_secret(char *out)
{
    uint8_t bin[WMPI_SECRET_LEN];
    if (read_line(out, 2 * WMPI_SECRET_LEN + 1) < 0)
        return -1;
    return wmpi_hex_decode(out, bin, sizeof bin);
}

/* The second line: -genvall's variables, hex of NUL-ended "K=V" strings
 * (empty without -genvall). The plan's own variables win over them. */
static int read_private_env(void)
{
    char *hex = malloc(WL_PRIVATE_ENV_MAX + 1);
    ssize_t len = hex ? read_line(hex, WL_PRIVATE_ENV_MAX) : -1;
    char *raw = len >= 0 ? malloc((size_t)len / 2 + 1) : NULL;
    int err = !raw || len % 2 || wmpi_hex_decode(hex, (uint8_t *)raw, (size_t)len / 2);
    for (size_t off = 0; !err && off < (size_t)len / 2; off += strlen(raw + off) + 1) {
        char *kv = raw + off, *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
            setenv(kv, eq + 1, 0);
        }
    }
    free(hex);
    free(raw);
    return err ? -1 : 0;
}

static void complain(const char *what, const char *arg)
{
    const char *host = getenv(WMPI_ENV_HOST);
    fprintf(stderr, "mpirun (helper on host %s): %s%s%s\n", host ? host : "?", what,
            arg ? ": " : "", arg ? arg : "");
}

/* End this process the way the rank ended. */
static _Noreturn void exit_like(int st)
{
    if (!WIFSIGNALED(st))
        _exit(WEXITSTATUS(st));
    int sig = WTERMSIG(st);
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig);
}

static _Noreturn void run_rank(char **argv, pid_t parent, const char *cwd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(WL_EXIT_LAUNCH);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    char why[PATH_MAX + 128];
    wl_exec_error(why, sizeof why, argv[0], wl_exec(argv), cwd);
    complain(why, NULL);
    _exit(WL_EXIT_LAUNCH);
}

/* Handle pending signals; returns only while the rank lives. */
static void on_signals(int sfd, pid_t pid)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int st;
        if (si.ssi_signo != SIGCHLD)
            kill(-pid, (int)si.ssi_signo);
        else if (waitpid(pid, &st, WNOHANG) == pid)
            exit_like(st);
    }
}

static int supervise(char **argv, const char *cwd)
{
    sigset_t set;
    sigemptyset(&set);
    int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT,
                   SIGTSTP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    pid_t parent = getpid(), pid = sfd < 0 ? -1 : fork();
    if (pid == 0)
        run_rank(argv, parent, cwd);
    if (pid < 0) {
        complain("cannot start the rank", strerror(errno));
        return WL_EXIT_LAUNCH;
    }
    setpgid(pid, pid);
    close(0);
    int64_t kill_at = -1;
    int watching = 1; /* stdout not broken yet */
    for (;;) {
        struct pollfd p[2] = { { sfd, POLLIN, 0 }, { watching ? 1 : -1, 0, 0 } };
        int64_t left = kill_at - wl_now_ms();
        poll(p, 2, kill_at < 0 ? -1 : left < 0 ? 0 : (int)left);
        if (p[1].revents & (POLLERR | POLLHUP)) {
            kill(-pid, SIGTERM);
            kill_at = wl_now_ms() + STOP_GRACE_MS;
            watching = 0;
        }
        on_signals(sfd, pid);
        if (kill_at >= 0 && wl_now_ms() >= kill_at) {
            kill(-pid, SIGKILL);
            kill_at = -1;
        }
    }
}

int wl_remote_main(int argc, char **argv)
{
    struct plan pl = { 0 };
    char secret[2 * WMPI_SECRET_LEN + 2];
    if (argc != 3 || decode(argv[2], &pl)) {
        fprintf(stderr, "mpirun: %s is for mpirun's own use (launching remote ranks)\n",
                WL_REMOTE_FLAG);
        return WL_EXIT_USAGE;
    }
    for (int i = 0; i < pl.nenv; i++)
        putenv(pl.env[i]);
    if (read_secret(secret) || read_private_env()) {
        complain("no job secret on stdin", NULL);
        return WL_EXIT_LAUNCH;
    }
    setenv(WMPI_ENV_SECRET, secret, 1);
    if (pl.cwd[0] && chdir(pl.cwd) < 0 && pl.strict) {
        complain(strerror(errno), pl.cwd);
        return WL_EXIT_LAUNCH;
    }
    return supervise(pl.argv, pl.cwd[0] ? pl.cwd : "the working directory");
}
