/* mpirun / mpiexec: the command line, --help and --version, and main().
 * The job itself is run by job.c; launcher.h maps the other files.
 *
 * Syntax: mpirun [options] program [arguments], or several programs in one
 * job (MPMD): mpirun [options] prog1 [args] : [options] prog2 [args] ...
 * Their ranks share one MPI_COMM_WORLD, numbered in command-line order,
 * and each rank learns its program's index (WEFT_MPI_APPNUM, MPI_APPNUM).
 * Options stop at the first word that does not start with '-' (or after
 * "--"), so the program's own options are never taken for mpirun's; the
 * program's arguments run up to the next ':' word. Program options (-n,
 * -x, -env, -wd) may follow a ':' and then apply to that program only;
 * before the first program -x and -wd apply to every program and -n to
 * the first. Job options (hosts, output, timeout...) come before the
 * first program only: after a ':' they are a usage error, not silently
 * applied to the whole job. In a ':' line every program needs its -n.
 *
 * Long options may be written with one dash or two, and with "=value" or
 * as two words (-np 4, --np=4, -host a,b), as Open MPI accepts them;
 * Hydra's (MPICH) spellings of common options are accepted too (-ppn,
 * -hosts, -f, -genv, -env, -genvall). --bind-to and --map-by take Open
 * MPI's values; the levels Weft does not tell apart (numa, caches, board)
 * act as the nearest of hwthread, core and socket, so existing scripts
 * run. A few Open MPI options that change nothing here are
 * accepted and ignored: --oversubscribe, --allow-run-as-root, and --mca K V
 * (with a warning: the parameter is Open MPI's, not ours).
 *
 * Rejected: getopt_long (no single-dash long options like -np and -host,
 * which every MPI script uses); Open MPI's --app file (a ':' line says the
 * same on the command line).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"
#ifdef WL_HAVE_API_TABLE
#include "weft_mpi_api_table.h"
#endif

enum opt_id {
    O_NP, O_HOST, O_HOSTFILE, O_X, O_GENV, O_ENV, O_GENVALL, O_PPN, O_PERNODE, O_TIMEOUT,
    O_AGENT, O_CONTROL, O_WDIR, O_STDIN, O_TAG, O_TIMESTAMP, O_MERGE, O_OUTFILE, O_VERBOSE,
    O_VERSION, O_HELP, O_IGNORE, O_BIND, O_MAP, O_REPORT, O_MCA, O_LIST_UNSUPPORTED,
};

/* local: allowed after a ':' too, where it applies to that program only
 * (the rest describe the whole job and come before the first program). */
static const struct opt_def {
    const char *name;
    enum opt_id id;
    int nargs;
    int local;
} opt_table[] = {
    { "n", O_NP, 1, 1 }, { "np", O_NP, 1, 1 }, { "c", O_NP, 1, 1 },
    { "H", O_HOST, 1, 0 }, { "host", O_HOST, 1, 0 }, { "hosts", O_HOST, 1, 0 },
    { "hostfile", O_HOSTFILE, 1, 0 }, { "machinefile", O_HOSTFILE, 1, 0 },
    { "f", O_HOSTFILE, 1, 0 },
    { "x", O_X, 1, 1 }, { "genv", O_GENV, 2, 0 }, { "env", O_ENV, 2, 1 },
    { "genvall", O_GENVALL, 0, 0 },
    { "N", O_PPN, 1, 0 }, { "npernode", O_PPN, 1, 0 }, { "ppn", O_PPN, 1, 0 },
    { "pernode", O_PERNODE, 0, 0 }, { "timeout", O_TIMEOUT, 1, 0 },
    { "launch-agent", O_AGENT, 1, 0 }, { "control-address", O_CONTROL, 1, 0 },
    { "wdir", O_WDIR, 1, 1 }, { "wd", O_WDIR, 1, 1 }, { "stdin", O_STDIN, 1, 0 },
    { "tag-output", O_TAG, 0, 0 }, { "timestamp-output", O_TIMESTAMP, 0, 0 },
    { "merge-stderr-to-stdout", O_MERGE, 0, 0 }, { "output-filename", O_OUTFILE, 1, 0 },
    { "v", O_VERBOSE, 0, 0 }, { "verbose", O_VERBOSE, 0, 0 },
    { "V", O_VERSION, 0, 0 }, { "version", O_VERSION, 0, 0 }, { "h", O_HELP, 0, 0 },
    { "help", O_HELP, 0, 0 }, { "oversubscribe", O_IGNORE, 0, 0 },
    { "allow-run-as-root", O_IGNORE, 0, 0 }, { "bind-to", O_BIND, 1, 0 },
    { "map-by", O_MAP, 1, 0 }, { "report-bindings", O_REPORT, 0, 0 },
    { "mca", O_MCA, 2, 0 }, { "list-unsupported", O_LIST_UNSUPPORTED, 0, 0 },
};

static void usage(FILE *f)
{
    fputs("usage: mpirun [options] program [arguments...]   (also: mpiexec)\n"
          "       mpirun [options] prog1 [args] : [program options] prog2 [args] : ...\n"
          "Runs an MPI program built with Weft's mpicc as a job of several processes.\n"
          "Programs joined by ':' share one MPI_COMM_WORLD (MPI_APPNUM tells them apart).\n\n"
          "Program options (after a ':' they apply to that program only):\n"
          "  -n, -np N             number of ranks (default: the hosts' slots, else the CPUs)\n"
          "  -x VAR, -x VAR=VALUE  pass mpirun's VAR, or set VAR (before the first program:\n"
          "                        in every rank)\n"
          "  -env VAR VALUE        set VAR in this program's ranks\n"
          "  --wdir, -wd DIR       the ranks' working directory\n"
          "Job options:\n"
          "  -H, --host, -hosts LIST  hosts, comma-separated, NAME or NAME:SLOTS\n"
          "  --hostfile, -f FILE   hosts, one a line: NAME [slots=N] or NAME:N\n"
          "  -N, --npernode, -ppn N  N ranks per host (default -n: N per host)\n"
          "  --pernode             one rank per host\n"
          "  --map-by node|slot|socket|ppr:N:node  ranks to the hosts in turn, fill\n"
          "                        each host's slots (default), deal them to its packages\n"
          "                        in turn, N per host (core, hwthread: as slot)\n"
          "  --bind-to core|hwthread|socket|none  each rank its share of the host's\n"
          "                        cores (default), threads or packages, or every CPU\n"
          "  --report-bindings     print each rank's CPUs as it starts\n"
          "  -genv VAR VALUE       set VAR in every rank\n"
          "  -genvall              pass all of mpirun's environment to remote ranks too\n"
          "  --tag-output          prefix lines with [1,RANK]<stdout>: or <stderr>:\n"
          "  --timestamp-output    prefix lines with the time mpirun read them\n"
          "  --merge-stderr-to-stdout  the ranks' stderr goes to stdout\n"
          "  --output-filename DIR also write rank R's output to DIR/1/rank.R/stdout\n"
          "                        and .../stderr\n"
          "  --stdin RANK|none     the rank that reads mpirun's stdin (default 0)\n"
          "  --timeout S           stop the job after S seconds, exit status 124\n"
          "  --launch-agent CMD    how to start ranks on other hosts (default ssh, or\n"
          "                        srun inside a Slurm allocation); {host} in CMD is\n"
          "                        replaced by the host name\n"
          "  --control-address IP  the address remote ranks reach mpirun at\n"
          "  -v, --verbose         say what mpirun does\n"
          "  -V, --version         print the version\n"
          "  -h, --help            print this help\n"
          "  --list-unsupported    list the MPI functions Weft does not implement yet\n"
          "Accepted and ignored (Open MPI): --oversubscribe, --allow-run-as-root,\n"
          "  --mca K V.\n\n"
          "Signals: SIGUSR1, SIGUSR2, SIGCONT and SIGTSTP are passed on to every rank\n"
          "  (SIGTSTP then stops mpirun too), but not through ssh; SIGINT, SIGTERM,\n"
          "  SIGHUP, SIGQUIT stop the job.\n"
          "Environment: WEFT_MPIRUN_RSH (launch agent), WEFT_MPIRUN_CONTROL_ADDRESS,\n"
          "  WEFT_MPIRUN_KILL_GRACE (seconds from SIGTERM to SIGKILL, default 1),\n"
          "  WEFT_MPIRUN_REMOTE_PATH (mpirun's path on remote hosts), MPIEXEC_TIMEOUT.\n"
          "Every WEFT_* variable is passed to remote ranks; local ranks inherit all.\n"
          "Inside a Slurm allocation (salloc, sbatch) without --host or --hostfile,\n"
          "  the hosts and their slots are the allocation's (SLURM_JOB_NODELIST,\n"
          "  SLURM_TASKS_PER_NODE), and -n defaults to its tasks.\n\n"
          "Exit status: 0 if every rank exited 0 after MPI_Finalize (or never called\n"
          "MPI_Init); else the first failure's: the rank's exit code, 128+signal if it\n"
          "was killed, the MPI_Abort code, 1 for an exit without MPI_Finalize, 124 for\n"
          "--timeout, 127 if a rank could not start, 128+signal if mpirun was signalled.\n",
          f);
}

static const struct opt_def *lookup(const char *arg, const char **val)
{
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    *val = eq ? eq + 1 : NULL;
    for (size_t i = 0; i < sizeof opt_table / sizeof opt_table[0]; i++)
        if (strlen(opt_table[i].name) == len && !strncmp(opt_table[i].name, name, len))
            return &opt_table[i];
    return NULL;
}

static int bad(const char *opt, const char *val, const char *want)
{
    wl_say("%s '%s': expected %s", opt, val, want);
    return WL_EXIT_USAGE;
}

static int parse_int(const char *opt, const char *s, int min, int max, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < min || v > max)
        return bad(opt, s, "a whole number in range");
    *out = (int)v;
    return 0;
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (!*s || *end || !(v >= 0) || v > 1e7)
        return bad(opt, s, "a number of seconds");
    *out = v;
    return 0;
}

static int add_host_list(struct wl_opts *o, const char *list)
{
    char *joined;
    if (asprintf(&joined, "%s%s%s", o->hosts ? o->hosts : "", o->hosts ? "," : "", list) < 0)
        return WL_EXIT_INTERNAL;
    free(o->hosts);
    o->hosts = joined;
    return 0;
}

static int valid_var(const char *x, size_t len)
{
    return len > 0 && !(x[0] >= '0' && x[0] <= '9') &&
           strspn(x, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

/* Append x to a list of -x settings (o's, or one program's). */
static int push_x(const char ***list, int *n, const char *x)
{
    const char **v = realloc(*list, (size_t)(*n + 1) * sizeof *v);
    if (!v)
        return WL_EXIT_INTERNAL;
    *list = v;
    v[(*n)++] = x;
    return 0;
}

static int add_x(const char ***list, int *n, const char *x)
{
    size_t name = strcspn(x, "=");
    if (!valid_var(x, name))
        return bad("-x", x, "VAR or VAR=VALUE");
    if (!x[name] && !getenv(x))
        wl_say("-x %s: %s is not set here; not passed on", x, x);
    return push_x(list, n, x);
}

/* -genv / -env VAR VALUE: a VAR=VALUE setting the options own. */
static int add_env(struct wl_opts *o, const char ***list, int *n, const char *opt,
                   const char **val)
{
    char *kv, **owned;
    if (!valid_var(val[0], strlen(val[0])))
        return bad(opt, val[0], "a variable name");
    owned = realloc(o->owned, (size_t)(o->nowned + 1) * sizeof *owned);
    if (!owned)
        return WL_EXIT_INTERNAL;
    o->owned = owned;
    if (asprintf(&kv, "%s=%s", val[0], val[1]) < 0)
        return WL_EXIT_INTERNAL;
    owned[o->nowned++] = kv;
    return push_x(list, n, kv);
}

/* --list-unsupported: the MPI functions whose binding is a generated stub
 * (mpi_shim/api/gen_stubs.cmake writes the table), one a line, then those
 * that refuse a kind of communicator ("MPI_X on intercommunicators"),
 * then the counts. */
static void list_unsupported(void)
{
#ifdef WL_HAVE_API_TABLE
    for (int i = 0; i < WMPI_API_COUNT; i++)
        if (!wmpi_api_table[i].implemented)
            printf("%s\n", wmpi_api_table[i].name);
    for (int i = 0; i < WMPI_API_PARTIAL_COUNT; i++)
        printf("%s on %s\n", wmpi_api_partial[i].name, wmpi_api_partial[i].kind);
    printf("%d of %d MPI functions are not supported by Weft yet, "
           "%d more not on every kind of communicator\n",
           WMPI_API_UNSUPPORTED_COUNT, WMPI_API_COUNT, WMPI_API_PARTIAL_COUNT);
#else
    printf("this mpirun was built without the MPI library: no list\n");
#endif
}

/* A program option, for program a (first: before the first program, where
 * -x and --wdir apply to every program). */
static int apply_app(struct wl_opts *o, struct wl_app *a, int first, enum opt_id id,
                     const char *opt, const char **val)
{
    switch (id) {
    case O_NP: return parse_int(opt, val[0], 1, 1000000, &a->np);
    case O_X: return first ? add_x(&o->xvars, &o->nx, val[0]) : add_x(&a->xvars, &a->nx, val[0]);
    case O_ENV: return add_env(o, &a->xvars, &a->nx, opt, val);
    case O_WDIR: *(first ? &o->wdir : &a->wdir) = val[0]; return 0;
    default: return 0;
    }
}

/* Is the first `len` bytes of s one of the words of list (blank-separated)? */
static int one_of(const char *s, size_t len, const char *list)
{
    for (const char *w = list; *w;) {
        size_t wl = strcspn(w, " ");
        if (wl == len && !strncmp(s, w, len))
            return 1;
        w += wl + (w[wl] == ' ');
    }
    return 0;
}

#define WL_RESOURCES "slot node core socket hwthread numa board"

/* --bind-to WHAT[:modifiers]: none leaves each rank every CPU mpirun has;
 * core, hwthread and socket bind each rank to its share of the host's
 * cores, hardware threads or packages (engine/core/bind.c, in MPI_Init).
 * The levels between a core and a package bind as the nearer one of the
 * two: the caches private to a core as core, numa, board and l3cache as
 * socket. */
static int parse_bind(struct wl_opts *o, const char *opt, const char *v)
{
    static const char *const as[][2] = {
        { "none", "none" },       { "core", "core" },       { "hwthread", "hwthread" },
        { "socket", "socket" },   { "l1cache", "core" },    { "l2cache", "core" },
        { "l3cache", "socket" },  { "numa", "socket" },     { "board", "socket" },
    };
    size_t len = strcspn(v, ":");
    for (size_t i = 0; i < sizeof as / sizeof as[0]; i++)
        if (strlen(as[i][0]) == len && !strncmp(v, as[i][0], len)) {
            o->bind = as[i][1];
            return 0;
        }
    return bad(opt, v, "none, core, hwthread or socket");
}

/* --map-by WHAT[:modifiers] or ppr:N:WHAT: node places ranks round-robin
 * over the hosts, ppr:N:node N per host; the others fill each host's slots
 * in turn, the default; socket then also deals a host's ranks to its
 * packages in turn (engine/core/bind.c). */
static int parse_map(struct wl_opts *o, const char *opt, const char *v)
{
    size_t len = strcspn(v, ":");
    if (len == 3 && !strncmp(v, "ppr", 3)) {
        char *end;
        long n = v[3] == ':' ? strtol(v + 4, &end, 10) : 0;
        if (n < 1 || n > 100000 || *end != ':' || !one_of(end + 1, strcspn(end + 1, ":"),
                                                         WL_RESOURCES))
            return bad(opt, v, "ppr:N:node (or :socket, :core...)");
        if (!strncmp(end + 1, "node", 4))
            o->ppn = (int)n;
        return 0;
    }
    if (!one_of(v, len, WL_RESOURCES))
        return bad(opt, v, "slot, node, core, socket, hwthread or ppr:N:RESOURCE");
    o->map_by_node = len == 4 && !strncmp(v, "node", 4);
    o->map_by_socket = len == 6 && !strncmp(v, "socket", 6);
    return 0;
}

static int apply_output(struct wl_opts *o, enum opt_id id, const char *opt, const char **val)
{
    switch (id) {
    case O_STDIN:
        o->stdin_rank = -1;
        if (!strcmp(val[0], "none"))
            return 0;
        return parse_int(opt, val[0], 0, 1000000, &o->stdin_rank);
    case O_TAG: o->tag_output = 1; return 0;
    case O_TIMESTAMP: o->timestamp = 1; return 0;
    case O_MERGE: o->merge_stderr = 1; return 0;
    case O_OUTFILE:
        o->outdir = val[0];
        return *val[0] ? 0 : bad(opt, val[0], "a directory");
    default: return 0;
    }
}

/* Apply one option; 0, -1 to exit 0 at once (help, version), or a status. */
static int apply(struct wl_opts *o, enum opt_id id, const char *opt, const char **val)
{
    switch (id) {
    case O_HOST: return add_host_list(o, val[0]);
    case O_HOSTFILE: o->hostfile = val[0]; return 0;
    case O_GENV: return add_env(o, &o->xvars, &o->nx, opt, val);
    case O_GENVALL: o->envall = 1; return 0;
    case O_PPN: return parse_int(opt, val[0], 1, 100000, &o->ppn);
    case O_PERNODE: o->ppn = 1; return 0;
    case O_TIMEOUT: return parse_seconds(opt, val[0], &o->timeout);
    case O_AGENT: o->agent = val[0]; return 0;
    case O_CONTROL: o->control_addr = val[0]; return 0;
    case O_VERBOSE: o->verbose = 1; return 0;
    case O_VERSION: printf("mpirun (Weft) %s\n", WL_VERSION_STRING); return -1;
    case O_HELP: usage(stdout); return -1;
    case O_LIST_UNSUPPORTED: list_unsupported(); return -1;
    case O_MCA: wl_say("ignoring --mca %s %s (an Open MPI parameter)", val[0], val[1]);
        return 0;
    case O_BIND: return parse_bind(o, opt, val[0]);
    case O_MAP: return parse_map(o, opt, val[0]);
    case O_REPORT: o->report_bindings = 1; return 0;
    default: return apply_output(o, id, opt, val);
    }
}

static void defaults(struct wl_opts *o)
{
    const char *e;
    *o = (struct wl_opts){ .grace = 1, .agent = "ssh" };
    if (wl_slurm_in_allocation())
        o->agent = WL_SLURM_AGENT;
    if ((e = getenv("WEFT_MPIRUN_RSH")) && *e)
        o->agent = e;
    if ((e = getenv("WEFT_MPIRUN_CONTROL_ADDRESS")) && *e)
        o->control_addr = e;
    if ((e = getenv("WEFT_MPIRUN_KILL_GRACE")) && *e)
        parse_seconds("WEFT_MPIRUN_KILL_GRACE", e, &o->grace);
    if ((e = getenv("MPIEXEC_TIMEOUT")) && *e)
        parse_seconds("MPIEXEC_TIMEOUT", e, &o->timeout);
}

/* The options of one section of the command line, from argv[*i] up to its
 * program; *i is left at the program (or past the end). */
static int parse_section(int argc, char **argv, int *i, struct wl_opts *o, struct wl_app *a,
                         int first)
{
    for (; *i < argc && argv[*i][0] == '-' && argv[*i][1]; ++*i) {
        const char *val[2] = { NULL, NULL }, *opt = argv[*i];
        if (!strcmp(opt, "--")) {
            ++*i;
            break;
        }
        const struct opt_def *d = lookup(opt, &val[0]);
        if (!d) {
            wl_say("unknown option '%s' (see mpirun --help)", opt);
            return WL_EXIT_USAGE;
        }
        if (!first && !d->local) {
            wl_say("'%s' is an option of the whole job: give it before the first program", opt);
            return WL_EXIT_USAGE;
        }
        for (int k = val[0] ? 1 : 0; k < d->nargs; k++) {
            if (*i + 1 >= argc) {
                wl_say("option '%s' needs a value", opt);
                return WL_EXIT_USAGE;
            }
            val[k] = argv[++*i];
        }
        int r = d->local ? apply_app(o, a, first, d->id, opt, val) : apply(o, d->id, opt, val);
        if (r)
            return r;
    }
    return 0;
}

static struct wl_app *new_app(struct wl_opts *o)
{
    struct wl_app *v = realloc(o->apps, (size_t)(o->napps + 1) * sizeof *v);
    if (!v)
        return NULL;
    o->apps = v;
    v[o->napps] = (struct wl_app){ 0 };
    return &v[o->napps++];
}

/* In an MPMD line every program says how many ranks it wants. */
static int check_apps(const struct wl_opts *o)
{
    for (int k = 0; o->napps > 1 && k < o->napps; k++)
        if (!o->apps[k].np) {
            wl_say("program %d (%s) of a ':' line needs -n", k + 1, o->apps[k].argv[0]);
            return WL_EXIT_USAGE;
        }
    return 0;
}

/* 0 with o filled in, -1 to exit 0 at once, or an exit status. The
 * sections are split at ':' words, each program's argv ended in place. */
static int parse(int argc, char **argv, struct wl_opts *o)
{
    int i = 1;
    defaults(o);
    for (;;) {
        struct wl_app *a = new_app(o);
        if (!a)
            return WL_EXIT_INTERNAL;
        int r = parse_section(argc, argv, &i, o, a, o->napps == 1);
        if (r)
            return r;
        if (i >= argc || !strcmp(argv[i], ":")) {
            wl_say("no program to run%s (see mpirun --help)", o->napps > 1 ? " after ':'" : "");
            return WL_EXIT_USAGE;
        }
        a->argv = argv + i;
        while (i < argc && strcmp(argv[i], ":"))
            i++;
        if (i >= argc)
            return check_apps(o);
        argv[i++] = NULL;
    }
}

/* Children get pipes on 0/1/2; our own must be open so a pipe never
 * lands there. */
static void open_std_fds(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", fd ? O_WRONLY : O_RDONLY) < 0)
            exit(WL_EXIT_INTERNAL);
}

static void free_opts(struct wl_opts *o)
{
    for (int k = 0; k < o->napps; k++)
        free(o->apps[k].xvars);
    for (int k = 0; k < o->nowned; k++)
        free(o->owned[k]);
    free(o->apps);
    free(o->owned);
    free(o->hosts);
    free(o->xvars);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], WL_REMOTE_FLAG))
        return wl_remote_main(argc, argv);
    open_std_fds();
    struct wl_opts o;
    int status = parse(argc, argv, &o);
    if (status == 0)
        status = wl_job_run(&o);
    else if (status < 0)
        status = 0;
    free_opts(&o);
    return status;
}
