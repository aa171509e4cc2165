/* weft_info: what this Weft is and how it would run a program here, as
 * Open MPI's ompi_info tells it for Open MPI.
 *
 *   weft_info              version, build options, transports, MPI function
 *                          counts, and the settings in force
 *   weft_info --all        also the compiler, what each setting means, and
 *                          the MPI functions not supported yet
 *   weft_info --parsable   the same as key:value lines (with --all: all)
 *
 * Parsable keys (a script may rely on them): version, mpi:standard,
 * build:{type,sanitizer,context,pmix,hwloc,compiler}, transport:<name>,
 * mpi:{functions,supported,unsupported,partial}, mpi:unsupported_function,
 * mpi:partial_function (name:kind), setting:<VAR>:{value,source,meaning},
 * runtime (ok, or error: Weft does not start with this environment).
 *
 * Design: the build facts are compile definitions made by CMake
 * (CMakeLists.txt beside this file); the MPI function counts come from the
 * table generated with the MPI stubs, the one mpirun --list-unsupported
 * prints, so the two always agree. A setting's value is the one in force:
 * the runtime is started (weft_init) and asked for what it reads from the
 * environment (workers, quantum, I/O strategy), so a malformed variable
 * makes weft_init fail, with its message; the other variables, and these
 * when Weft does not start, show the environment's value or the documented
 * default. The source says which ("environment" or "default").
 *
 * Rejected: reading the settings from a running job (ranks may differ, and
 * the environment a job gets is the one weft_info sees when run in it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <weft.h>

#include "weft_mpi_api_table.h"

enum { FMT_TEXT, FMT_PARSABLE };

struct setting {
    const char *name;
    const char *fallback; /* the documented default, if Weft cannot tell */
    const char *meaning;
};

static const struct setting settings[] = {
    { "WEFT_WORKERS", "one per core", "kernel worker threads (default: one per core)" },
    { "WEFT_QUANTUM_US", "10000", "time slice in microseconds; 0: no preemption" },
    { "WEFT_STACK_SIZE", "262144", "default user-level thread stack, bytes" },
    { "WEFT_BIND", "core", "core: pin each worker to a core; none: do not" },
    { "WEFT_IO_STRATEGY", "adaptive", "I/O event detection: adaptive|polling|blocking|naive" },
    { "WEFT_DISABLE", "", "heuristics turned off, for A/B measurements" },
    { "WEFT_EAGER_LIMIT", "65536", "largest MPI message sent eagerly, bytes" },
    { "WEFT_MPI_BIND", "core", "core, hwthread or socket: each rank its share; none" },
    { "WEFT_MPI_TRANSPORT", "auto", "auto (shm on one host, else tcp), tcp or shm" },
    { "WEFT_MPI_CONNECT_TIMEOUT", "60", "seconds for a TCP connection to a rank to open" },
    { "WEFT_MPI_TCP_TIMEOUT", "30", "seconds before a silent TCP peer is given up; 0: kernel's" },
    { "WEFT_MPI_CMA", "auto", "single copies (process_vm_readv): auto (streams), 0, or bytes" },
    { "WEFT_MPI_SHM_COLL", "1", "0: collectives as messages, not shared-memory slots" },
    { "WEFT_MPI_BACKTRACE", "1", "0: no report of a rank killed by a fatal signal" },
    { "WEFT_MPI_RMA_SHM", "1", "0: puts/gets on one host as messages, not copies" },
    { "WEFT_MPI_RMA_THREAD", "kernel", "a window's service thread: kernel or ult" },
};
#define NSETTINGS (sizeof settings / sizeof settings[0])

static int format = FMT_TEXT, all;
static int runtime_up; /* weft_init succeeded: ask it */

/* -------------------------------------------------------------- printing */

static void item(const char *key, const char *label, const char *value)
{
    if (format == FMT_PARSABLE)
        printf("%s:%s\n", key, value);
    else
        printf("%16s: %s\n", label, value);
}

/* ------------------------------------------------------------ the build */

static void print_build(void)
{
    char std[16];
    snprintf(std, sizeof std, "%d.%d", MPI_VERSION, MPI_SUBVERSION);
    item("version", "Weft", WI_VERSION);
    item("mpi:standard", "MPI standard", std);
    item("build:type", "Build type", WI_BUILD_TYPE);
    item("build:sanitizer", "Sanitizer", WI_SANITIZER);
    item("build:context", "Context switch", WI_CONTEXT);
    item("build:pmix", "PMIx bootstrap", WI_PMIX);
    item("build:hwloc", "hwloc", WI_HWLOC);
    if (all)
        item("build:compiler", "C compiler", WI_COMPILER);
}

static void print_transports(void)
{
    if (format == FMT_PARSABLE) {
        printf("transport:shm:ranks of one host\n");
        printf("transport:tcp:any two ranks\n");
        return;
    }
    item("", "Transports", "shm (ranks of one host), tcp (any two ranks)");
}

/* ---------------------------------------------------- the MPI interface */

static void print_functions(void)
{
    int supported = WMPI_API_COUNT - WMPI_API_UNSUPPORTED_COUNT;
    if (format == FMT_PARSABLE) {
        printf("mpi:functions:%d\nmpi:supported:%d\nmpi:unsupported:%d\nmpi:partial:%d\n",
               WMPI_API_COUNT, supported, WMPI_API_UNSUPPORTED_COUNT, WMPI_API_PARTIAL_COUNT);
    } else {
        char buf[160];
        snprintf(buf, sizeof buf,
                 "%d supported, %d not yet (of %d); %d not on every kind of communicator",
                 supported, WMPI_API_UNSUPPORTED_COUNT, WMPI_API_COUNT,
                 WMPI_API_PARTIAL_COUNT);
        item("", "MPI functions", buf);
    }
    if (!all)
        return;
    if (format == FMT_TEXT)
        printf("\nMPI functions not supported yet (mpirun --list-unsupported):\n");
    for (int i = 0; i < WMPI_API_COUNT; i++)
        if (!wmpi_api_table[i].implemented)
            printf(format == FMT_PARSABLE ? "mpi:unsupported_function:%s\n" : "  %s\n",
                   wmpi_api_table[i].name);
    for (int i = 0; i < WMPI_API_PARTIAL_COUNT; i++)
        printf(format == FMT_PARSABLE ? "mpi:partial_function:%s:%s\n" : "  %s on %s\n",
               wmpi_api_partial[i].name, wmpi_api_partial[i].kind);
}

/* ------------------------------------------------------------- settings */

static const char *io_strategy_name(weft_io_strategy s)
{
    switch (s) {
    case WEFT_IO_ADAPTIVE: return "adaptive";
    case WEFT_IO_POLLING: return "polling";
    case WEFT_IO_BLOCKING: return "blocking";
    case WEFT_IO_NAIVE: return "naive";
    }
    return "?";
}

/* The value in force of setting s into buf: asked of the runtime where it
 * can tell, else the environment's or the default. */
static const char *value_of(const struct setting *s, const char *env, char *buf, size_t n)
{
    if (!strcmp(s->name, "WEFT_WORKERS") && runtime_up)
        snprintf(buf, n, "%d", weft_num_workers());
    else if (!strcmp(s->name, "WEFT_QUANTUM_US") && runtime_up)
        snprintf(buf, n, "%lld", (long long)(weft_get_quantum() / 1000));
    else if (!strcmp(s->name, "WEFT_IO_STRATEGY") && runtime_up)
        snprintf(buf, n, "%s", io_strategy_name(weft_io_get_strategy()));
    else
        snprintf(buf, n, "%s", env ? env : s->fallback);
    return buf;
}

static void print_settings(void)
{
    if (format == FMT_TEXT)
        printf("\nSettings in force (the environment overrides the default):\n");
    for (size_t i = 0; i < NSETTINGS; i++) {
        const struct setting *s = &settings[i];
        const char *env = getenv(s->name);
        const char *source = env && *env ? "environment" : "default";
        char buf[128];
        value_of(s, env && *env ? env : NULL, buf, sizeof buf);
        if (format == FMT_PARSABLE) {
            printf("setting:%s:value:%s\nsetting:%s:source:%s\n", s->name, buf, s->name, source);
            if (all)
                printf("setting:%s:meaning:%s\n", s->name, s->meaning);
        } else if (all) {
            printf("  %-19s %-9s %-12s %s\n", s->name, *buf ? buf : "(none)", source, s->meaning);
        } else {
            printf("  %-19s %-9s %s\n", s->name, *buf ? buf : "(none)", source);
        }
    }
    if (format == FMT_PARSABLE)
        printf("runtime:%s\n", runtime_up ? "ok" : "error");
    else if (!runtime_up)
        printf("Weft does not start with this environment: see the message above.\n");
}

/* ----------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fprintf(f, "usage: weft_info [--all] [--parsable] [--help]\n"
               "Prints Weft's version, build options, transports, MPI function counts and\n"
               "the thread, I/O and MPI settings in force (value, and whether it comes from\n"
               "the environment or is the default).\n"
               "  -a, --all        everything: also the compiler, what each setting means\n"
               "                   and the MPI functions not supported yet\n"
               "  -p, --parsable   key:value lines, for scripts\n"
               "  -h, --help       this text\n");
}

static int parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
            all = 1;
        } else if (!strcmp(a, "--parsable") || !strcmp(a, "--parseable") || !strcmp(a, "-p")) {
            format = FMT_PARSABLE;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "weft_info: unknown option '%s'\n", a);
            usage(stderr);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (parse_args(argc, argv) != 0)
        return 2;
    runtime_up = weft_init() == 0;
    print_build();
    print_transports();
    print_functions();
    print_settings();
    if (runtime_up)
        weft_fini();
    return 0;
}
