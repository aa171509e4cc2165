/* mpirun's internal interfaces: the options, the job and its ranks, the
 * poll loop every part registers with, and one section per source file:
 *
 *   mpirun.c   command line, --help, --version, main()
 *   job.c      the job's life: set-up, poll loop, rank exits, failure,
 *              termination (SIGTERM, grace, SIGKILL), timeout, signals
 *   poll.c     the poll set, the clock, wl_say
 *   hosts.c    --host / --hostfile, slots, rank placement, locality
 *   slurm.c    the hosts and launch agent of a Slurm allocation
 *   spawn.c    starting ranks: environment, fork/exec, launch agents
 *   remote.c   the helper that starts a rank on another host
 *   wireup.c   the control server: secret check, all-gather, finalize, abort
 *   iofwd.c    stdout/stderr forwarding in whole lines, stdin to one rank,
 *              --output-filename copies
 *   bindings.c --report-bindings
 *
 * mpirun is single-threaded: one poll() loop, non-blocking sockets and
 * pipes, signals through a signalfd. Writes to its own stdout/stderr are
 * blocking (the reader's pace is the job's pace, as with any program).
 */
#ifndef WL_LAUNCHER_H
#define WL_LAUNCHER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../boot/boot_proto.h"

#define WL_VERSION_STRING "0.1.0"
#define WL_EXIT_USAGE     2   /* bad command line */
#define WL_EXIT_LAUNCH    127 /* a rank could not be started */
#define WL_EXIT_TIMEOUT   124 /* --timeout expired (as timeout(1)) */
#define WL_EXIT_INTERNAL  1   /* mpirun's own failure; improper rank exit */

/* ------------------------------------------------------------ options */

/* One program of the command line ("a : b" gives two). */
struct wl_app {
    char **argv;             /* the program and its arguments, NULL-ended */
    int np;                  /* -n; 0: not given */
    const char **xvars;      /* its own -x / -env settings, nx of them */
    int nx;
    const char *wdir;        /* its own -wd / --wdir, or NULL */
};

struct wl_opts {
    char *hosts;             /* every --host list, joined by ','; or NULL */
    const char *hostfile;    /* --hostfile / -f */
    const char **xvars;      /* -x VAR or VAR=value, -genv: for every app */
    int nx;
    int envall;              /* -genvall: remote ranks get all of environ */
    int ppn;                 /* -N / --npernode / -ppn: ranks per host; 0 */
    int map_by_node;         /* --map-by node: ranks round-robin over hosts */
    int map_by_socket;       /* --map-by socket: a host's ranks over its packages */
    const char *bind;        /* --bind-to: none, core, hwthread, socket; NULL */
    int report_bindings;     /* --report-bindings */
    double timeout;          /* --timeout seconds; 0: none */
    double grace;            /* seconds from SIGTERM to SIGKILL */
    const char *agent;       /* remote-exec template ("ssh") */
    const char *control_addr; /* --control-address: IPv4 to bind/advertise */
    const char *wdir;        /* --wdir / -wd before the first program */
    int stdin_rank;          /* --stdin: rank that reads mpirun's stdin; -1 */
    int tag_output;          /* --tag-output */
    int timestamp;           /* --timestamp-output */
    int merge_stderr;        /* --merge-stderr-to-stdout */
    const char *outdir;      /* --output-filename DIR */
    int verbose;             /* -v */
    struct wl_app *apps;     /* the programs, napps of them (at least 1) */
    int napps;
    char **owned;            /* strings the parser made (-genv, -env) */
    int nowned;
};

/* ------------------------------------------------------------ hosts */

struct wl_host {
    char *name;
    int slots;               /* 0: as many as asked for */
    int local;               /* run with fork/exec, not the launch agent */
    int nranks;              /* ranks placed here */
};

struct wl_hosts {
    struct wl_host *v;
    int n;
    int ppn;                 /* ranks per host when placing; 0: slots */
    int by_node;             /* round-robin over hosts, not slot by slot */
};

/* ------------------------------------------------------------ ranks */

struct wl_stream {           /* a rank's stdout or stderr pipe */
    int fd;                  /* read end (non-blocking); -1 after EOF */
    int to;                  /* 1 or 2: mpirun's stream it goes to */
    int rank;                /* for --tag-output */
    char *buf;               /* bytes of the incomplete last line */
    size_t len, cap;
    int held_eof;            /* closed while another stream owned `to`:
                                buf is written when it lets go (iofwd.c) */
    int file;                /* --output-filename copy, or -1 */
};

struct wl_conn;

struct wl_rank {
    int rank;
    int app;                 /* index into o->apps: MPI_APPNUM */
    struct wl_host *host;
    int local_rank;
    pid_t pid;               /* the child mpirun forked (rank or agent) */
    int launch_fd;           /* reports a failed exec until checked; -1 */
    pid_t rpid;              /* the rank's own pid, from its HELLO; 0 */
    int alive;               /* not reaped yet */
    int status;              /* wait status, once reaped */
    int connected;           /* sent HELLO (called MPI_Init) */
    int finalized;           /* sent FINALIZE */
    int aborting;            /* sent ABORT: it exits by itself */
    struct wl_conn *conn;    /* its control connection, or NULL */
    struct wl_stream out, err;
};

/* ------------------------------------------------------------ poll loop */

struct wl_job;
typedef void wl_handler(struct wl_job *j, void *arg, short revents);

struct wl_poll {
    struct pollfd *pfd;
    struct wl_slot { wl_handler *fn; void *arg; } *slot;
    int n, cap;
    int64_t deadline;        /* earliest timer anyone asked for; -1 none */
};

/* poll.c */
void wl_poll_add(struct wl_poll *p, int fd, short events, wl_handler *fn, void *arg);
void wl_poll_wake_at(struct wl_poll *p, int64_t when_ms);
int64_t wl_now_ms(void);
/* A line "mpirun: ..." on stderr. */
void wl_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------ the job */

struct wl_gather {
    size_t len;              /* bytes per rank in this round */
    int count;               /* ranks that contributed */
    uint8_t *data;           /* n * len, being filled */
    uint8_t *have;           /* n flags */
    uint8_t *done;           /* the last completed round, being sent */
};

struct wl_stdin {
    int from;                /* mpirun's stdin, or -1 */
    int to;                  /* write end of the target rank's stdin, or -1 */
    char buf[65536];
    size_t len, off;
};

struct wl_job {
    const struct wl_opts *o;
    struct wl_hosts hosts;
    int n;
    struct wl_rank *ranks;
    uint8_t secret[WMPI_SECRET_LEN];
    char secret_hex[2 * WMPI_SECRET_LEN + 1];
    char jobid[48];
    /* wireup.c */
    int listen_fd;
    int unix_fd;             /* this host's ranks' listener (abstract name); -1 */
    char *ctl_local, *ctl_remote; /* WEFT_MPI_CONTROL for each kind of host */
    struct wl_conn *conns;
    int nconns;
    struct wl_gather g;
    int any_connected;
    int uninit_exit;         /* a rank that exited 0 never connecting; -1 */
    /* iofwd.c */
    struct wl_stdin in;
    int out_broken[3];       /* writing to mpirun's fd 1/2 failed */
    struct wl_stream *owner[3]; /* stream whose overlong line is half out */
    /* job.c */
    int sig_fd;
    int nalive;
    int failed;              /* the first failure was reported */
    int status;              /* mpirun's exit status */
    int stopping;            /* SIGTERM sent; kill_at is the SIGKILL time */
    int64_t kill_at;
    int64_t deadline;        /* --timeout, or -1 */
    /* job.c: an ABORT held back for a moment (wl_job_abort) */
    int abort_pending, abort_status;
    int64_t abort_at;
    char abort_text[WMPI_ABORT_MSG_MAX + 128];
};

/* job.c */
int wl_job_run(const struct wl_opts *o);
void wl_job_fail(struct wl_job *j, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void wl_job_rank_joined(struct wl_job *j, struct wl_rank *r);
/* A rank sent ABORT (status, message): the job fails with it unless
 * another rank's exit is seen within WL_ABORT_HOLD_MS (job.c). */
void wl_job_abort(struct wl_job *j, int status, const char *text);
const char *wl_rank_name(const struct wl_rank *r, char *buf, size_t len);

/* hosts.c */
int wl_hosts_load(const struct wl_opts *o, struct wl_hosts *h);
int wl_hosts_default_np(const struct wl_hosts *h);
void wl_hosts_place(struct wl_hosts *h, struct wl_rank *r, int n);
int wl_hosts_any_remote(const struct wl_hosts *h);
void wl_hosts_free(struct wl_hosts *h);

/* slurm.c: mpirun inside a Slurm allocation */
#define WL_SLURM_AGENT "srun --nodes=1 --ntasks=1 --nodelist={host} --overlap --mpi=none --quiet"
/* Whether mpirun runs inside one (SLURM_JOB_ID and SLURM_JOB_NODELIST). */
int wl_slurm_in_allocation(void);
/* The allocation as a --host list ("node:slots,..."), malloc'd in *out;
 * -EINVAL (said why) if its variables cannot be read, -ENOMEM. */
int wl_slurm_host_list(char **out);
/* Expand a Slurm host list ("n[1-3,07],m") into *n names (free them with
 * wl_slurm_free_hosts); -EINVAL if malformed, -E2BIG, -ENOMEM. */
int wl_slurm_expand_hosts(const char *list, char ***names, int *n);
void wl_slurm_free_hosts(char **names, int n);
/* Read SLURM_TASKS_PER_NODE ("2(x3),1") into slots[0..n-1]; -EINVAL unless
 * it names exactly n nodes. */
int wl_slurm_tasks(const char *spec, int *slots, int n);

/* spawn.c */
int wl_spawn_all(struct wl_job *j);
void wl_spawn_signal(struct wl_rank *r, int sig);
/* Does the launch agent pass signals on to the remote helper (not ssh or
 * rsh, which need a terminal to)? */
int wl_agent_relays_signals(const char *agent);
/* execvp, then (a bare name not on PATH) the working directory's file of
 * that name, as Open MPI finds programs; returns the errno that explains
 * the failure. */
int wl_exec(char *const *argv);
/* The reason a rank's program did not start, told apart: not found (and
 * where it was looked for), not executable, other. */
void wl_exec_error(char *buf, size_t len, const char *prog, int err, const char *dir);

/* bindings.c: --report-bindings, when rank r has joined. */
void wl_report_binding(const struct wl_rank *r);

/* remote.c */
char *wl_remote_blob(const char *cwd, int strict, char **env, int nenv, char *const *argv);
/* The second stdin line for the remote helper: env in hex, then '\n'. */
char *wl_remote_env_line(char **env, int nenv);
#define WL_PRIVATE_ENV_MAX (4u << 20) /* hex bytes of that line */
int wl_remote_main(int argc, char **argv);
#define WL_REMOTE_FLAG "--weft-remote-exec"

/* wireup.c */
int wl_wireup_open(struct wl_job *j);
void wl_wireup_poll(struct wl_job *j, struct wl_poll *p);
/* Serve `fd`, a connection accepted from `peer` (for messages), as a
 * stranger until its HELLO proves the secret; reads what it sent at once.
 * The listener calls it for each accepted connection; the fuzz target
 * hands it one end of a socket pair. Takes `fd` in every case. */
void wl_wireup_adopt(struct wl_job *j, int fd, const char *peer);
void wl_wireup_close(struct wl_job *j);

/* iofwd.c */
void wl_stream_init(struct wl_stream *s, int fd, int to, int rank);
/* --output-filename: make DIR/1 (0, or a message and -errno) before the
 * job; open rank r's files (DIR/1/rank.R/stdout, stderr) as it starts. */
int wl_iofwd_check_dir(const char *outdir);
void wl_iofwd_open_files(struct wl_job *j, struct wl_rank *r);
void wl_iofwd_poll(struct wl_job *j, struct wl_poll *p);
void wl_iofwd_drain(struct wl_job *j);
void wl_iofwd_rank_gone(struct wl_job *j, struct wl_rank *r);

#endif /* WL_LAUNCHER_H */
