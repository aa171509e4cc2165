/* Launching MPI jobs from a benchmark driver (bench/osu_like and
 * bench/mpi_reactivity): build the command line for Weft's mpirun or Open
 * MPI's, run it with its stdout on a pipe, hand each line to a callback,
 * and bound it in time.
 *
 * Where the tools are: CMake passes their paths as compile definitions
 * (WEFT_MPIRUN_PATH, OMPI_MPIRUN_PATH; empty when not found), so no path of
 * the build machine appears in a source file.
 */
#ifndef BENCH_OSU_LIKE_LAUNCH_H
#define BENCH_OSU_LIKE_LAUNCH_H

#include <stdint.h>

#include "bench_util.h"

#define OL_ARGV_MAX 32
#define OL_ENV_MAX  4

typedef enum ol_lib { OL_LIB_WEFT, OL_LIB_OPENMPI } ol_lib;

/* The mpirun of a library, or NULL if it is not there (not installed, or
 * not built). */
const char *ol_mpirun_path(ol_lib lib);

/* "Open MPI 4.1.4" or similar from `mpirun.openmpi --version`, in buf;
 * returns buf ("" if unknown). */
const char *ol_openmpi_version(char *buf, size_t size);

/* Whether cross-memory attach (process_vm_readv, the single-copy path of
 * Open MPI's vader) works between two processes of this user here:
 * probed once, by reading a forked child's memory. Returns 1 or 0. Where
 * it fails, Open MPI's jobs run with
 * OMPI_MCA_btl_vader_single_copy_mechanism=none (see osu_like_launch.c). */
int ol_cma_works(void);

/* One line on f saying how Open MPI's shared memory runs here: at its
 * defaults (single copy by CMA), or without single copy and why. */
void ol_print_openmpi_cma(FILE *f);

/* A command line under construction. */
typedef struct ol_argv {
    const char *v[OL_ARGV_MAX + 1];
    int n;
    char np_text[16], timeout_text[16];
    /* set in the job's environment (value NULL: removed from it) */
    const char *env_name[OL_ENV_MAX], *env_value[OL_ENV_MAX];
    int nenv;
} ol_argv;

/* `mpirun -n <np> --timeout <s> [transport options] <prog>`; append the
 * program's own arguments with ol_argv_add. tcp_only: Open MPI restricted
 * to its TCP path (--mca btl tcp,self); otherwise its defaults. */
void ol_argv_mpirun(ol_argv *a, ol_lib lib, int np, int timeout_s,
                    int tcp_only, const char *prog);
void ol_argv_add(ol_argv *a, const char *arg);
/* Set (value NULL: unset) var in the job's environment, which both
 * mpiruns' local ranks inherit; it overrides the driver's own. */
void ol_argv_setenv(ol_argv *a, const char *var, const char *value);
/* Insert a launcher option before the program (the last argument so
 * far). */
void ol_argv_option(ol_argv *a, const char *opt);
/* Insert `-x var` before the program (the last argument so far): both
 * mpiruns then pass var from their environment to the ranks. */
void ol_argv_export(ol_argv *a, const char *var);

/* Called with each line of the job's stdout (newline removed). */
typedef void (*ol_line_fn)(void *arg, char *line);

/* Run the command (environment: a's settings, and Open MPI's
 * root-permission and, where CMA fails, single-copy settings added, see
 * osu_like_launch.c), pass its stdout lines to fn, and kill its process
 * group if it is still running timeout_s + 10 seconds later (the
 * launchers' own --timeout should have ended it by then) or, if
 * stall_s > 0, once it has printed nothing for stall_s seconds (a job
 * that stopped making progress). Returns 0 if it exited with status 0,
 * else -1 (a message naming `what` printed on stderr). */
int ol_run_job(const ol_argv *a, int timeout_s, int stall_s, ol_line_fn fn,
               void *arg, const char *what);

/* Parse a `row ...` line of bench_util's child format into t; `note ...`
 * lines become notes. Returns 1 if the line was one of those, else 0. */
int ol_parse_child_line(const char *line, bench_table *t);

#endif /* BENCH_OSU_LIKE_LAUNCH_H */
