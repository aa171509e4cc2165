/* Starting the ranks: each rank's environment, fork/exec on this host, the
 * launch agent (ssh, or any remote-exec command) for other hosts, and the
 * signals that stop them.
 *
 * Environment of a rank. A local rank inherits mpirun's whole environment;
 * a remote one gets only what mpirun sends: every WEFT_* variable of
 * mpirun's environment (with -genvall, every variable) except the
 * launcher's own WEFT_MPIRUN_* and the per-job ones below (so runtime
 * settings such as WEFT_WORKERS or WEFT_EAGER_LIMIT reach every rank, but
 * an enclosing job's secret does not reach a command line), and the -x
 * variables. Then, for every rank, the job's -x VAR=value and -genv
 * settings, its program's -x and -env settings, and the per-rank variables
 * override, in that order: WEFT_MPI_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE,
 * _HOST, _APPNUM, _JOBID, _SECRET, _CONTROL (boot.h), and for scripts
 * written for other launchers OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK,
 * _LOCAL_SIZE, _NODE_RANK, OMPI_UNIVERSE_SIZE, PMI_RANK, PMI_SIZE and
 * Hydra's MPI_LOCALRANKID, MPI_LOCALNRANKS (values only; they start no PMI
 * client).
 *
 * A local rank: fork, then in the child its own process group (so a signal
 * reaches the rank and any children it started, and the terminal's Ctrl-C
 * reaches only mpirun, which stops the job in order), PR_SET_PDEATHSIG so it
 * dies with mpirun even if mpirun is SIGKILLed, pipes on 0/1/2 (stdin is
 * /dev/null except for the --stdin rank; with --merge-stderr-to-stdout
 * stderr is the stdout pipe), empty signal mask, then execvp, and for a
 * bare name not on PATH the file of that name in the working directory
 * (Open MPI runs "mpirun prog" so; a shell would not). A CLOEXEC pipe
 * reports a failed chdir or exec to the parent, so "not found" (and where
 * it was looked for) and "not an executable file" are reported as such,
 * not as an exit code.
 *
 * A remote rank: the launch agent template (--launch-agent, else
 * WEFT_MPIRUN_RSH, else "ssh") is split into words at blanks; "{host}" is
 * replaced by the host name (or the name is appended as a word when no
 * word mentions it); then come mpirun's own path (WEFT_MPIRUN_REMOTE_PATH
 * overrides /proc/self/exe: mpirun must exist at that path on the remote
 * host), WL_REMOTE_FLAG and a hex blob with the working directory, the
 * environment and the program (remote.c). The blob is plain hex so the same
 * words work whether the agent passes them on as argv (ip netns exec, env)
 * or joins them into a shell command (ssh). The secret is not in the blob,
 * since command lines are public: mpirun writes it as the first line on the
 * agent's stdin (ssh carries it encrypted), and what -genvall adds as the
 * second; the remote helper reads exactly those lines and leaves the rest
 * of stdin to the rank.
 *
 * Rejected: posix_spawn (no way to set PDEATHSIG or report a failed chdir);
 * shell-quoting a command line for ssh (breaks agents that take argv).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "launcher.h"

extern char **environ;

struct envlist {
    char **v;
    int n, cap;
};

static void env_add(struct envlist *e, const char *fmt, ...)
{
    if (e->n + 1 >= e->cap) {
        e->cap = e->cap ? 2 * e->cap : 32;
        e->v = realloc(e->v, (size_t)e->cap * sizeof *e->v);
        if (!e->v) {
            wl_say("out of memory");
            exit(WL_EXIT_INTERNAL);
        }
    }
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&e->v[e->n], fmt, ap) < 0) {
        wl_say("out of memory");
        exit(WL_EXIT_INTERNAL);
    }
    va_end(ap);
    e->v[++e->n] = NULL;
}

/* What scripts written for other launchers read: values only, they start
 * no PMI client. OMPI_UNIVERSE_SIZE is the job's size, as MPI_UNIVERSE_SIZE. */
static void add_foreign_vars(const struct wl_job *j, const struct wl_rank *r, struct envlist *e)
{
    env_add(e, "OMPI_COMM_WORLD_RANK=%d", r->rank);
    env_add(e, "OMPI_COMM_WORLD_SIZE=%d", j->n);
    env_add(e, "OMPI_COMM_WORLD_LOCAL_RANK=%d", r->local_rank);
    env_add(e, "OMPI_COMM_WORLD_LOCAL_SIZE=%d", r->host->nranks);
    env_add(e, "OMPI_COMM_WORLD_NODE_RANK=%d", r->local_rank);
    env_add(e, "OMPI_UNIVERSE_SIZE=%d", j->n);
    env_add(e, "PMI_RANK=%d", r->rank);
    env_add(e, "PMI_SIZE=%d", j->n);
    env_add(e, "MPI_LOCALRANKID=%d", r->local_rank);
    env_add(e, "MPI_LOCALNRANKS=%d", r->host->nranks);
}

static void env_free(struct envlist *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->v[i]);
    free(e->v);
}

/* WEFT_* settings (with -genvall, everything) go to remote ranks, but not
 * mpirun's own nor a job's identity (an enclosing job's secret must not
 * reach a command line). */
static int is_job_var(const char *kv)
{
    static const char *const job[] = { WMPI_ENV_RANK, WMPI_ENV_SIZE, WMPI_ENV_LOCAL_RANK,
                                       WMPI_ENV_LOCAL_SIZE, WMPI_ENV_HOST, WMPI_ENV_JOBID,
                                       WMPI_ENV_SECRET, WMPI_ENV_CONTROL, WMPI_ENV_APPNUM };
    size_t len = strcspn(kv, "=");
    for (size_t i = 0; i < sizeof job / sizeof job[0]; i++)
        if (strlen(job[i]) == len && !strncmp(kv, job[i], len))
            return 1;
    return 0;
}

static int forwardable(const char *kv)
{
    return !strncmp(kv, "WEFT_", 5) && strncmp(kv, "WEFT_MPIRUN_", 12) && !is_job_var(kv);
}

static void add_x_list(struct envlist *e, const char *const *xv, int nx, int remote)
{
    for (int i = 0; i < nx; i++) {
        const char *x = xv[i], *v = getenv(x);
        if (strchr(x, '='))
            env_add(e, "%s", x);
        else if (remote && v)
            env_add(e, "%s=%s", x, v);
    }
}

/* e: what the remote plan carries; priv: what -genvall adds, which goes
 * over the agent's stdin instead (an environment may hold credentials). */
static void add_forwarded(const struct wl_job *j, const struct wl_app *a, struct envlist *e,
                          struct envlist *priv, int remote)
{
    for (char **p = environ; remote && *p; p++)
        if (forwardable(*p))
            env_add(e, "%s", *p);
        else if (j->o->envall && strncmp(*p, "WEFT_", 5) && !is_job_var(*p))
            env_add(priv, "%s", *p);
    add_x_list(e, j->o->xvars, j->o->nx, remote);
    add_x_list(e, a->xvars, a->nx, remote);
}

/* A rank needs hwloc's CPU topology only; hwloc's I/O plugins (PCI,
 * OpenCL, GL, and XML through libxml2 and libicu) are each dlopened at
 * start-up by every rank that does not name them here, which makes up
 * most of a large job's start-up on few CPUs (bench/startup,
 * variant weft_hwloc_io). A user who set the variable, or chose hwloc's
 * components or plugin path, keeps that choice. */
#define WL_HWLOC_IO_PLUGINS "hwloc_xml_libxml,hwloc_opencl,hwloc_gl,hwloc_pci"

static void add_hwloc_vars(struct envlist *e)
{
    if (!getenv("HWLOC_PLUGINS_BLACKLIST") && !getenv("HWLOC_COMPONENTS") &&
        !getenv("HWLOC_PLUGINS_PATH"))
        env_add(e, "HWLOC_PLUGINS_BLACKLIST=%s", WL_HWLOC_IO_PLUGINS);
}

static void add_rank_vars(const struct wl_job *j, const struct wl_rank *r, struct envlist *e,
                          int remote)
{
    const char *ctl = remote ? j->ctl_remote : j->ctl_local;
    env_add(e, "%s=%d", WMPI_ENV_RANK, r->rank);
    env_add(e, "%s=%d", WMPI_ENV_SIZE, j->n);
    env_add(e, "%s=%d", WMPI_ENV_LOCAL_RANK, r->local_rank);
    env_add(e, "%s=%d", WMPI_ENV_LOCAL_SIZE, r->host->nranks);
    env_add(e, "%s=%s", WMPI_ENV_HOST, r->host->name);
    env_add(e, "%s=%d", WMPI_ENV_APPNUM, r->app);
    env_add(e, "%s=%s", WMPI_ENV_JOBID, j->jobid);
    env_add(e, "%s=%s", WMPI_ENV_CONTROL, ctl);
    if (!remote)
        env_add(e, "%s=%s", WMPI_ENV_SECRET, j->secret_hex);
    if (j->o->bind) /* none: no share per rank, and no worker pinned either */
        env_add(e, "WEFT_MPI_BIND=%s", j->o->bind);
    if (j->o->bind && !strcmp(j->o->bind, "none"))
        env_add(e, "WEFT_BIND=none");
    if (j->o->map_by_socket)
        env_add(e, "WEFT_MPI_MAP=socket");
    add_hwloc_vars(e);
    add_foreign_vars(j, r, e);
}

/* ------------------------------------------------------------ launch agent */

static const char *self_path(void)
{
    static char path[PATH_MAX];
    const char *p = getenv("WEFT_MPIRUN_REMOTE_PATH");
    if (p && *p)
        return p;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    path[n > 0 ? n : 0] = '\0';
    return n > 0 ? path : "mpirun";
}

/* word with every "{host}" replaced by host; *used set if there was one. */
static char *subst_host(const char *word, const char *host, int *used)
{
    size_t n = 1;
    for (const char *s = word; (s = strstr(s, "{host}")); s += 6)
        n++;
    char *out = malloc(strlen(word) + n * strlen(host) + 1), *o = out;
    for (const char *s = word; out && *s;) {
        if (!strncmp(s, "{host}", 6)) {
            o = stpcpy(o, host);
            s += 6;
            *used = 1;
        } else {
            *o++ = *s++;
        }
    }
    if (out)
        *o = '\0';
    return out;
}

static void agent_argv(const struct wl_job *j, const struct wl_rank *r, const char *blob,
                       struct envlist *a)
{
    char *tmpl = strdup(j->o->agent), *save = NULL;
    int used = 0;
    for (char *w = strtok_r(tmpl, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        char *s = subst_host(w, r->host->name, &used);
        env_add(a, "%s", s ? s : w);
        free(s);
    }
    free(tmpl);
    if (!used)
        env_add(a, "%s", r->host->name);
    env_add(a, "%s", self_path());
    env_add(a, "%s", WL_REMOTE_FLAG);
    env_add(a, "%s", blob);
}

/* ------------------------------------------------------------ the child */

struct child_io {
    int in, out, err, report;
    pid_t parent;
    const char *wdir;
};

static _Noreturn void report(int fd, int stage, int err)
{
    int msg[2] = { stage, err };
    ssize_t n = write(fd, msg, sizeof msg); /* nothing to do if it fails */
    (void)n;
    _exit(WL_EXIT_LAUNCH);
}

int wl_exec(char *const *argv)
{
    execvp(argv[0], argv);
    int err = errno;
    if (err == ENOENT && !strchr(argv[0], '/')) {
        execv(argv[0], argv); /* a bare name may be in the working directory */
        if (errno != ENOENT)
            err = errno;
    }
    return err;
}

void wl_exec_error(char *buf, size_t len, const char *prog, int err, const char *dir)
{
    if (err == ENOENT && !strchr(prog, '/'))
        snprintf(buf, len, "program '%s' not found (not on PATH, nor in %s)", prog, dir);
    else if (err == ENOENT)
        snprintf(buf, len, "program '%s' not found (%s)", prog, strerror(err));
    else if (err == EACCES)
        snprintf(buf, len, "'%s' is not an executable file (%s)", prog, strerror(err));
    else
        snprintf(buf, len, "%s: %s", prog, strerror(err));
}

static _Noreturn void child(const struct child_io *io, char **env, char **argv)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != io->parent)
        _exit(WL_EXIT_LAUNCH);
    if (dup2(io->in, 0) < 0 || dup2(io->out, 1) < 0 || dup2(io->err, 2) < 0)
        report(io->report, 0, errno);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (io->wdir && chdir(io->wdir) < 0)
        report(io->report, 1, errno);
    for (int i = 0; env && env[i]; i++)
        putenv(env[i]);
    report(io->report, 2, wl_exec(argv));
}

/* 0 if the child exec'd, else a message and -1. */
static int check_launch(struct wl_job *j, const struct wl_rank *r, int fd, const char *prog,
                        const char *wdir)
{
    int msg[2];
    ssize_t n;
    char what[PATH_MAX + 128], cwd[PATH_MAX];
    do
        n = read(fd, msg, sizeof msg);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n != (ssize_t)sizeof msg)
        return 0;
    if (msg[0] == 2)
        wl_exec_error(what, sizeof what, prog, msg[1],
                      wdir ? wdir : getcwd(cwd, sizeof cwd) ? cwd : "the working directory");
    else
        snprintf(what, sizeof what, "%s%s: %s", msg[0] == 1 ? "cannot enter " : "",
                 msg[0] == 1 ? wdir : "stdio", strerror(msg[1]));
    wl_job_fail(j, WL_EXIT_LAUNCH, "cannot start rank %d on %s: %s", r->rank, r->host->name,
                what);
    return -1;
}

/* ------------------------------------------------------------ spawning */

struct pipes {
    int out[2], err[2], in[2], rep[2];
};

static int open_pipes(struct pipes *p, int want_in)
{
    *p = (struct pipes){ { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
    if (pipe2(p->out, O_CLOEXEC) || pipe2(p->err, O_CLOEXEC) || pipe2(p->rep, O_CLOEXEC))
        return -errno;
    if (want_in)
        return pipe2(p->in, O_CLOEXEC) ? -errno : 0;
    p->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return p->in[0] < 0 ? -errno : 0;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void close_child_ends(struct pipes *p)
{
    close_fd(&p->out[1]);
    close_fd(&p->err[1]);
    close_fd(&p->in[0]);
    close_fd(&p->rep[1]);
}

static void close_all(struct pipes *p)
{
    close_child_ends(p);
    close_fd(&p->out[0]);
    close_fd(&p->err[0]);
    close_fd(&p->in[1]);
    close_fd(&p->rep[0]);
}

static void write_all(int fd, const char *p, size_t len, const struct wl_job *j)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (j->o->verbose)
                wl_say("cannot pass the secret to a launch agent: %s", strerror(errno));
            return;
        }
        p += w;
        len -= (size_t)w;
    }
}

/* Give the rank its stdin: if remote, the secret line and the -genvall
 * line (priv) first; keep the pipe open only for the rank that reads
 * mpirun's stdin. */
static void hand_stdin(struct wl_job *j, int fd, const struct envlist *priv, int remote,
                       int takes_stdin)
{
    if (fd < 0)
        return;
    if (remote) {
        char line[sizeof j->secret_hex + 1];
        snprintf(line, sizeof line, "%s\n", j->secret_hex);
        char *env = wl_remote_env_line(priv->v, priv->n);
        write_all(fd, line, strlen(line), j);
        write_all(fd, env, strlen(env), j);
        free(env);
    }
    if (!takes_stdin) {
        close(fd);
        return;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    j->in.to = fd;
}

static const char *rank_wdir(const struct wl_job *j, const struct wl_rank *r)
{
    const char *w = j->o->apps[r->app].wdir;
    return w ? w : j->o->wdir;
}

static int fork_rank(struct wl_job *j, struct wl_rank *r, struct pipes *p, char **env,
                     char **argv)
{
    int remote = !r->host->local;
    struct child_io io = { p->in[0], p->out[1], j->o->merge_stderr ? p->out[1] : p->err[1],
                           p->rep[1], getpid(), remote ? NULL : rank_wdir(j, r) };
    pid_t pid = fork();
    if (pid == 0)
        child(&io, remote ? NULL : env, argv);
    if (pid < 0) {
        wl_job_fail(j, WL_EXIT_LAUNCH, "cannot start rank %d: fork: %s", r->rank, strerror(errno));
        close_all(p);
        return -1;
    }
    close_child_ends(p);
    setpgid(pid, pid);
    r->pid = pid;
    r->alive = 1;
    j->nalive++;
    wl_stream_init(&r->out, p->out[0], 1, r->rank);
    wl_stream_init(&r->err, p->err[0], 2, r->rank);
    wl_iofwd_open_files(j, r);
    if (j->o->verbose)
        wl_say("rank %d on %s: pid %d", r->rank, r->host->name, (int)pid);
    if (remote) /* checked at once: the agent's name is known only here */
        return check_launch(j, r, p->rep[0], argv[0], io.wdir);
    r->launch_fd = p->rep[0];
    p->rep[0] = -1;
    return 0;
}

/* The agent's command line for a remote rank: the plan travels in it. */
static void remote_argv(const struct wl_job *j, const struct wl_rank *r, struct envlist *env,
                        struct envlist *agent)
{
    char cwd[PATH_MAX];
    const char *wdir = rank_wdir(j, r);
    const char *dir = wdir ? wdir : getcwd(cwd, sizeof cwd) ? cwd : "";
    char *blob = wl_remote_blob(dir, wdir != NULL, env->v, env->n, j->o->apps[r->app].argv);
    agent_argv(j, r, blob, agent);
    free(blob);
}

static int spawn_rank(struct wl_job *j, struct wl_rank *r)
{
    int remote = !r->host->local;
    int takes_stdin = r->rank == j->o->stdin_rank && j->in.from >= 0;
    struct envlist env = { 0 }, agent = { 0 }, priv = { 0 };
    struct pipes p;
    add_forwarded(j, &j->o->apps[r->app], &env, &priv, remote);
    add_rank_vars(j, r, &env, remote);
    char **argv = j->o->apps[r->app].argv;
    if (remote) {
        remote_argv(j, r, &env, &agent);
        argv = agent.v;
    }
    int err = open_pipes(&p, remote || takes_stdin);
    if (err) {
        wl_job_fail(j, WL_EXIT_LAUNCH, "cannot start rank %d: %s", r->rank, strerror(-err));
        close_all(&p);
    } else {
        err = fork_rank(j, r, &p, env.v, argv);
        if (err)
            close_fd(&p.in[1]);
        hand_stdin(j, p.in[1], &priv, remote, takes_stdin);
    }
    env_free(&env);
    env_free(&agent);
    env_free(&priv);
    return err;
}

/* 0 if local rank r's exec succeeded (its report pipe closes on exec). */
static int check_rank(struct wl_job *j, struct wl_rank *r)
{
    int fd = r->launch_fd;

    r->launch_fd = -1;
    return check_launch(j, r, fd, j->o->apps[r->app].argv[0], rank_wdir(j, r));
}

/* Every local rank is forked before any exec is checked: waiting for
 * each child to reach exec before forking the next costs a scheduler
 * round trip per rank, which on a loaded host was a large part of the
 * start-up of a big job (docs/performance-notes.md). */
int wl_spawn_all(struct wl_job *j)
{
    int forked = 0, err = 0;

    while (forked < j->n && !err)
        err = spawn_rank(j, &j->ranks[forked++]);
    for (int i = 0; i < forked; i++) {
        struct wl_rank *r = &j->ranks[i];
        if (r->launch_fd < 0)
            continue;
        if (!err) /* the job fails once, for the first rank that failed */
            err = check_rank(j, r);
        else
            close_fd(&r->launch_fd);
    }
    return err ? -1 : 0;
}

int wl_agent_relays_signals(const char *agent)
{
    char word[256];
    agent += strspn(agent, " \t");
    snprintf(word, sizeof word, "%.*s", (int)strcspn(agent, " \t"), agent);
    const char *slash = strrchr(word, '/'), *name = slash ? slash + 1 : word;
    size_t len = strlen(name);
    return strcmp(name, "rsh") && !(len >= 3 && !strcmp(name + len - 3, "ssh"));
}

void wl_spawn_signal(struct wl_rank *r, int sig)
{
    if (!r->alive)
        return;
    if (kill(-r->pid, sig) < 0)
        kill(r->pid, sig);
}
