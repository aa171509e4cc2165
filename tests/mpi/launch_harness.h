/* Running mpirun from a launcher test: start it with pipes on its stdio,
 * collect its output, wait for it with a bound, and make sure no process
 * it started outlives it.
 *
 * Each test program gets the path of mpirun and of the rank program
 * (boot_prog) as its first two arguments, and the tests that need the MPI
 * engine a third: mpi_prog, a rank program linked with it
 * (tests/mpi/CMakeLists.txt). The test process makes itself a child
 * subreaper, so a rank that mpirun failed to stop is re-parented to it and
 * found by wt_leftovers().
 */
#ifndef WT_LAUNCH_HARNESS_H
#define WT_LAUNCH_HARNESS_H

#include <stddef.h>
#include <sys/types.h>

struct wt_job {
    pid_t pid;               /* mpirun */
    int out_fd, err_fd, in_fd;
    char *out, *err;         /* everything read so far, NUL-terminated */
    size_t out_len, err_len;
    const char *in_data;     /* what is left to write to mpirun's stdin */
    size_t in_len;
    int status;              /* exit code, 128 + signal, or -1 (running) */
};

/* argv arrays for wt_job_start: WT_ARGV(WT_MPIRUN, "-n", "2", WT_PROG, "ok") */
#define WT_ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })
#define WT_MPIRUN    ((char *)wt_mpirun())
#define WT_PROG      ((char *)wt_prog())
#define WT_MPI_PROG  ((char *)wt_mpi_prog())

/* Parse the test's arguments (mpirun, rank program, and the MPI rank
 * program if given); become a subreaper. */
void wt_launch_init(int argc, char **argv);
const char *wt_mpirun(void);
const char *wt_prog(void);
/* The MPI rank program; exits the test with a usage message if the test
 * was not given one. */
const char *wt_mpi_prog(void);

/* Start `argv` (argv[0] is run as is); stdin gets in_data (in_len bytes,
 * then EOF), or /dev/null if in_data is NULL. 0 or -1. */
int wt_job_start(struct wt_job *j, char *const argv[], const char *in_data, size_t in_len);

/* Read output until stdout holds `count` lines starting with `prefix`;
 * 0, or -1 if mpirun exited or `bound_s` seconds passed first. */
int wt_job_wait_lines(struct wt_job *j, const char *prefix, int count, int bound_s);

/* Read everything until mpirun exits; its status (exit code or 128 +
 * signal), or -1 if it had to be killed after `bound_s` seconds. */
int wt_job_finish(struct wt_job *j, int bound_s);

void wt_job_free(struct wt_job *j);

/* A test's teardown, whether it passed or not: kill what is left of its
 * processes (mpirun first, then the ranks it leaves to us), free j's
 * buffers and make j ready for the next job. */
void wt_job_clear(struct wt_job *j);

/* In a CMocka test: fail with mpirun's stderr unless `cond` holds about
 * its status `st`. */
#define WT_ASSERT_STATUS(j, st, cond)                                                    \
    do {                                                                                 \
        if (!(cond))                                                                     \
            fail_msg("mpirun exited with status %d, not %s; stderr:\n%s", st, #cond,     \
                     (j)->err);                                                          \
    } while (0)

/* Start, feed, finish in one call. */
int wt_run(struct wt_job *j, char *const argv[], const char *in_data, size_t in_len, int bound_s);

/* Count lines of `text` that start with `prefix`. */
int wt_count_lines(const char *text, const char *prefix);

/* The pids from "ready R PID" lines, by rank; n entries. 0 or -1. */
int wt_ready_pids(const struct wt_job *j, pid_t *pids, int n);

/* Kill and reap every descendant still around (a rank mpirun left behind
 * re-parents to us); return how many there were. */
int wt_leftovers(void);

#endif
