/* The life of an mpirun job: set-up, the poll loop, rank exits, the first
 * failure, termination, --timeout and mpirun's own signals.
 *
 * Design. One thread, one poll() loop. Each iteration rebuilds the pollfd
 * array: the signalfd, then wireup.c and iofwd.c add their fds with a
 * handler each (struct wl_poll), and timers ask for a wake-up time. The
 * loop runs while any rank is unreaped; then iofwd drains what the pipes
 * still hold. Signals (SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, and the
 * forwarded SIGUSR1, SIGUSR2, SIGCONT, SIGTSTP) are blocked and read from
 * a signalfd, so no handler races the loop and children start with an
 * empty mask (spawn.c resets it). The forwarded ones go to every live
 * rank's process group, as Open MPI's mpirun passes them on; SIGTSTP then
 * stops mpirun too.
 *
 * Failure policy (Open MPI's): the first failure decides the exit status
 * and is the one reported; mpirun then stops the job: SIGTERM to every
 * live rank's process group, SIGKILL to those alive after the grace period
 * (WEFT_MPIRUN_KILL_GRACE, 1 s: a Ctrl-C ends even a job whose ranks
 * ignore SIGTERM within about a second). Deaths caused by the stop are not
 * reported. Failures and their status:
 *   rank killed by signal S          128 + S   "was killed by signal 9 (Killed)"
 *   rank exited with code C != 0     C
 *   rank called abort (MPI_Abort)    the code's low byte, 1 if 0
 *   rank exited 0 after MPI_Init but without MPI_Finalize   1
 *   rank exited 0 never calling MPI_Init while others did   1
 *   mpirun got SIGINT/TERM/HUP/QUIT  128 + signal (a second one: SIGKILL now)
 *   --timeout expired                124
 *   a rank could not be started      127
 * A job whose ranks never call MPI_Init (mpirun -n 2 hostname) is fine.
 *
 * An ABORT is held back for WL_ABORT_HOLD_MS before it counts: it is often
 * the echo of another rank's end (a rank that exits early breaks its
 * connections, and the ranks waiting on it abort with "lost the connection
 * to rank R" - sometimes before mpirun has reaped R, since a process's
 * sockets close just before its parent is told). A rank exit or death
 * seen during the hold is the failure reported, with its status; the
 * aborting rank's own exit never is. A plain MPI_Abort is reported after
 * the hold, and the stop starts then.
 *
 * Rejected: SIGCHLD handler + self-pipe (signalfd is simpler and this is
 * Linux-only anyway); a thread per rank (ordering of reports would depend
 * on scheduling); killing only the rank's pid (a shell-script rank's
 * children would survive: ranks run in their own process groups).
 *
 * Invariants: nalive counts ranks with alive set; once stopping is set it
 * stays set and no new rank joins; failed is set at most once, together
 * with status.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

/* How long an ABORT waits for a rank exit that explains it (see above):
 * far longer than the microseconds between a process closing its sockets
 * and its parent being told, short enough not to be noticed. */
#define WL_ABORT_HOLD_MS 200

const char *wl_rank_name(const struct wl_rank *r, char *buf, size_t len)
{
    int pid = r->rpid ? (int)r->rpid : (int)r->pid;
    if (r->host->local)
        snprintf(buf, len, "rank %d (pid %d)", r->rank, pid);
    else
        snprintf(buf, len, "rank %d (pid %d on host %s)", r->rank, pid, r->host->name);
    return buf;
}

/* ------------------------------------------------------------ stopping */

static void signal_all(struct wl_job *j, int sig, int spare_aborting)
{
    for (int i = 0; i < j->n; i++)
        if (j->ranks[i].alive && !(spare_aborting && j->ranks[i].aborting))
            wl_spawn_signal(&j->ranks[i], sig);
}

static void stop(struct wl_job *j)
{
    if (j->stopping)
        return;
    j->stopping = 1;
    j->kill_at = wl_now_ms() + (int64_t)(j->o->grace * 1000);
    signal_all(j, SIGTERM, 1);
}

void wl_job_fail(struct wl_job *j, int status, const char *fmt, ...)
{
    if (j->failed)
        return;
    j->failed = 1;
    j->status = status;
    va_list ap;
    va_start(ap, fmt);
    fputs("mpirun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    stop(j);
}

static void fail_uninit(struct wl_job *j, const struct wl_rank *r)
{
    char name[96];
    wl_job_fail(j, WL_EXIT_INTERNAL, "%s exited without calling MPI_Init, while the other "
                "ranks did", wl_rank_name(r, name, sizeof name));
}

void wl_job_rank_joined(struct wl_job *j, struct wl_rank *r)
{
    if (j->o->report_bindings)
        wl_report_binding(r);
    if (j->uninit_exit >= 0)
        fail_uninit(j, &j->ranks[j->uninit_exit]);
}

/* ------------------------------------------------------------ rank exits */

static void rank_exited(struct wl_job *j, struct wl_rank *r)
{
    char name[96];
    int st = r->status;
    wl_rank_name(r, name, sizeof name);
    if (j->stopping) {
        if (j->o->verbose)
            wl_say("%s stopped", name);
    } else if (r->aborting) {
        /* the end of its own ABORT, reported by commit_abort */
    } else if (WIFSIGNALED(st)) {
        wl_job_fail(j, 128 + WTERMSIG(st), "%s was killed by signal %d (%s)", name,
                    WTERMSIG(st), strsignal(WTERMSIG(st)));
    } else if (WEXITSTATUS(st) != 0) {
        wl_job_fail(j, WEXITSTATUS(st), "%s exited with code %d", name, WEXITSTATUS(st));
    } else if (r->connected && !r->finalized) {
        wl_job_fail(j, WL_EXIT_INTERNAL, "%s exited with code 0 without calling "
                    "MPI_Finalize", name);
    } else if (!r->connected && j->any_connected) {
        fail_uninit(j, r);
    } else if (!r->connected && j->uninit_exit < 0) {
        j->uninit_exit = r->rank;
    }
}

/* Commit a held ABORT unless a failure was reported meanwhile. */
static void commit_abort(struct wl_job *j)
{
    if (j->abort_pending && !j->failed)
        wl_job_fail(j, j->abort_status, "%s", j->abort_text);
    j->abort_pending = 0;
}

static struct wl_rank *rank_by_pid(struct wl_job *j, pid_t pid)
{
    for (int i = 0; i < j->n; i++)
        if (j->ranks[i].pid == pid && j->ranks[i].alive)
            return &j->ranks[i];
    return NULL;
}

static void reap(struct wl_job *j)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        struct wl_rank *r = rank_by_pid(j, pid);
        if (!r)
            continue;
        r->alive = 0;
        r->status = st;
        j->nalive--;
        wl_iofwd_rank_gone(j, r);
        rank_exited(j, r);
    }
}

void wl_job_abort(struct wl_job *j, int status, const char *text)
{
    reap(j); /* a rank that is already dead comes first */
    if (j->failed || j->abort_pending)
        return;
    j->abort_pending = 1;
    j->abort_status = status;
    j->abort_at = wl_now_ms() + WL_ABORT_HOLD_MS;
    snprintf(j->abort_text, sizeof j->abort_text, "%s", text);
}

/* ------------------------------------------------------------ signals */

/* SIGTSTP (Ctrl-Z, kill -TSTP): the ranks stop, then mpirun, so the shell
 * sees the job stopped; `fg` or `bg` sends mpirun SIGCONT, which it passes
 * on. mpirun stops itself by letting a SIGTSTP of its own through the mask
 * for a moment, not by SIGSTOP: the kernel then applies its rule for
 * orphaned process groups (no stop, since nobody would resume it). */
static void stop_self(void)
{
    sigset_t tstp;
    sigemptyset(&tstp);
    sigaddset(&tstp, SIGTSTP);
    raise(SIGTSTP);
    sigprocmask(SIG_UNBLOCK, &tstp, NULL); /* stops here until SIGCONT */
    sigprocmask(SIG_BLOCK, &tstp, NULL);
}

/* Remote ranks get the signal through their launch agent's process group:
 * an agent that execs the helper (ip netns exec, env) or relays signals
 * (srun) passes it on; ssh cannot without a terminal, and would die of
 * SIGUSR1 itself, ending the rank, so those ranks are left out, once said. */
static void forward(struct wl_job *j, int sig)
{
    int relays = wl_agent_relays_signals(j->o->agent), skipped = 0;
    if (j->o->verbose)
        wl_say("passing signal %d (%s) on to the ranks", sig, strsignal(sig));
    for (int i = 0; i < j->n; i++) {
        struct wl_rank *r = &j->ranks[i];
        if (r->alive && (r->host->local || relays))
            wl_spawn_signal(r, sig);
        skipped |= r->alive && !r->host->local && !relays;
    }
    if (skipped)
        wl_say("signal %d (%s) not passed to ranks started through '%s', which "
               "cannot pass signals on", sig, strsignal(sig), j->o->agent);
    if (sig == SIGTSTP)
        stop_self();
}

static int forwarded(int sig)
{
    return sig == SIGUSR1 || sig == SIGUSR2 || sig == SIGCONT || sig == SIGTSTP;
}

static void on_signal(struct wl_job *j, void *arg, short revents)
{
    (void)arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(j->sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(j);
        } else if (forwarded(sig)) {
            forward(j, sig);
        } else if (!j->stopping) {
            wl_job_fail(j, 128 + sig, "caught signal %d (%s); stopping the job", sig,
                        strsignal(sig));
        } else {
            wl_say("caught signal %d (%s) again; killing every rank now", sig, strsignal(sig));
            signal_all(j, SIGKILL, 0);
            j->kill_at = -1;
        }
    }
}

static int open_signals(struct wl_job *j)
{
    sigset_t set;
    sigemptyset(&set);
    int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT,
                   SIGTSTP };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    j->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (j->sig_fd < 0)
        wl_say("signalfd: %s", strerror(errno));
    return j->sig_fd < 0 ? -errno : 0;
}

/* ------------------------------------------------------------ timers */

static void timers(struct wl_job *j, struct wl_poll *p)
{
    int64_t now = wl_now_ms();
    if (j->abort_pending) {
        if (now >= j->abort_at)
            commit_abort(j);
        else
            wl_poll_wake_at(p, j->abort_at);
    }
    if (j->deadline >= 0 && !j->stopping) {
        if (now >= j->deadline)
            wl_job_fail(j, WL_EXIT_TIMEOUT, "the job did not finish within --timeout %g s; "
                        "stopping it", j->o->timeout);
        else
            wl_poll_wake_at(p, j->deadline);
    }
    if (j->stopping && j->kill_at >= 0) {
        if (now >= j->kill_at) {
            if (j->o->verbose)
                wl_say("ranks still alive %g s after SIGTERM: sending SIGKILL", j->o->grace);
            signal_all(j, SIGKILL, 0);
            j->kill_at = -1;
        } else {
            wl_poll_wake_at(p, j->kill_at);
        }
    }
}

static int poll_timeout(const struct wl_poll *p)
{
    if (p->deadline < 0)
        return -1;
    int64_t left = p->deadline - wl_now_ms();
    return left <= 0 ? 0 : left > INT_MAX ? INT_MAX : (int)left;
}

static void loop(struct wl_job *j)
{
    struct wl_poll p = { 0 };
    while (j->nalive > 0) {
        p.n = 0;
        p.deadline = -1;
        wl_poll_add(&p, j->sig_fd, POLLIN, on_signal, NULL);
        timers(j, &p);
        wl_wireup_poll(j, &p);
        wl_iofwd_poll(j, &p);
        if (poll(p.pfd, (nfds_t)p.n, poll_timeout(&p)) < 0 && errno != EINTR) {
            wl_say("poll: %s", strerror(errno));
            exit(WL_EXIT_INTERNAL);
        }
        for (int i = 0; i < p.n; i++)
            if (p.pfd[i].revents)
                p.slot[i].fn(j, p.slot[i].arg, p.pfd[i].revents);
    }
    free(p.pfd);
    free(p.slot);
}

/* ------------------------------------------------------------ set-up */

static void make_ids(struct wl_job *j)
{
    uint32_t tag = 0;
    if (getrandom(j->secret, sizeof j->secret, 0) != (ssize_t)sizeof j->secret ||
        getrandom(&tag, sizeof tag, 0) != (ssize_t)sizeof tag) {
        wl_say("getrandom: %s (cannot make the job secret)", strerror(errno));
        exit(WL_EXIT_INTERNAL);
    }
    wmpi_hex_encode(j->secret, sizeof j->secret, j->secret_hex);
    snprintf(j->jobid, sizeof j->jobid, "%d.%08x", (int)getpid(), tag);
}

/* mpirun's stdin goes to one rank, unless reading it would stop us
 * (a background job on a terminal gets SIGTTIN). */
static int stdin_source(const struct wl_opts *o)
{
    if (o->stdin_rank < 0)
        return -1;
    if (isatty(0) && tcgetpgrp(0) != getpgrp())
        return -1;
    return fcntl(0, F_GETFD) < 0 ? -1 : 0;
}

/* The ranks, numbered in program order: app k's -n ranks follow app k-1's.
 * A lone program without -n gets the hosts' default. */
static int make_ranks(struct wl_job *j, const struct wl_opts *o)
{
    j->n = 0;
    for (int k = 0; k < o->napps; k++)
        j->n += o->apps[k].np;
    if (j->n == 0)
        j->n = wl_hosts_default_np(&j->hosts);
    j->ranks = calloc((size_t)j->n, sizeof *j->ranks);
    if (!j->ranks)
        return -1;
    for (int i = 0, k = 0, left = o->apps[0].np; i < j->n; i++, left--) {
        while (left == 0 && k + 1 < o->napps)
            left = o->apps[++k].np;
        j->ranks[i] = (struct wl_rank){ .rank = i, .app = k, .launch_fd = -1,
                                        .out = { .fd = -1, .file = -1 },
                                        .err = { .fd = -1, .file = -1 } };
    }
    return 0;
}

static int setup(struct wl_job *j, const struct wl_opts *o)
{
    *j = (struct wl_job){ .o = o, .listen_fd = -1, .unix_fd = -1, .sig_fd = -1,
                          .uninit_exit = -1, .deadline = -1, .kill_at = -1,
                          .in = { .from = -1, .to = -1 } };
    if (wl_hosts_load(o, &j->hosts) || (o->outdir && wl_iofwd_check_dir(o->outdir)))
        return WL_EXIT_USAGE;
    if (make_ranks(j, o))
        return WL_EXIT_INTERNAL;
    if (o->stdin_rank >= j->n) {
        wl_say("--stdin %d: the job has only %d ranks", o->stdin_rank, j->n);
        return WL_EXIT_USAGE;
    }
    wl_hosts_place(&j->hosts, j->ranks, j->n);
    make_ids(j);
    j->in.from = stdin_source(o);
    if (o->timeout > 0)
        j->deadline = wl_now_ms() + (int64_t)(o->timeout * 1000);
    if (open_signals(j) || wl_wireup_open(j))
        return WL_EXIT_INTERNAL;
    return 0;
}

static void teardown(struct wl_job *j)
{
    wl_wireup_close(j);
    if (j->sig_fd >= 0)
        close(j->sig_fd);
    for (int i = 0; i < j->n; i++) {
        free(j->ranks[i].out.buf);
        free(j->ranks[i].err.buf);
    }
    free(j->ranks);
    wl_hosts_free(&j->hosts);
}

int wl_job_run(const struct wl_opts *o)
{
    struct wl_job j;
    int status = setup(&j, o);
    if (status == 0) {
        if (o->verbose)
            wl_say("job %s: %d ranks, control server %s (remote ranks: %s)", j.jobid, j.n,
                   j.ctl_local, j.ctl_remote);
        wl_spawn_all(&j);
        loop(&j);
        commit_abort(&j); /* every rank ended within the hold */
        wl_iofwd_drain(&j);
        status = j.status;
    }
    teardown(&j);
    return status;
}
