/* WEFT_MPI_TRANSPORT and the shared-memory transport, seen from mpirun,
 * with a real MPI program (mpi_prog):
 *   - a value other than auto, shm or tcp makes MPI_Init fail: the job
 *     exits non-zero and stderr names the variable, the value and the
 *     accepted values;
 *   - shm, tcp and auto each run a 2-rank job whose messages (1 byte and
 *     1 MiB, both ways) arrive right; under shm and auto the ranks map
 *     shared-memory segments, under tcp none;
 *   - a rank killed by SIGKILL while 4 MiB messages stream both ways over
 *     shared memory (read straight from the sender's memory with
 *     WEFT_MPI_CMA=16384, copied through the rings with WEFT_MPI_CMA=0)
 *     ends the job: mpirun exits 128 + 9 naming the rank and the signal,
 *     no process is left behind, and /dev/shm holds nothing it did not
 *     hold before.
 *
 * /dev/shm: when it may (as root), the test runs in a mount namespace of
 * its own with a fresh tmpfs on /dev/shm, so the listings before and after
 * a job show only what our jobs did; otherwise it compares listings of the
 * shared /dev/shm, which other users of the machine could change meanwhile.
 */
#include <dirent.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <cmocka.h>

#include "launch_harness.h"

#define BOUND_S 60 /* only stops a hung job; never part of a verdict */

static struct wt_job job;

/* ------------------------------------------------------------ /dev/shm */

static int private_dev_shm(void)
{
    if (unshare(CLONE_NEWNS) != 0)
        return 0;
    /* Our mounts must not propagate back to the host's namespace. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return 0;
    return mount("weft-test-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV,
                 "mode=1777,size=16m") == 0;
}

/* /dev/shm's entries, one per line, each line ending in '\n'. */
static char *dev_shm_listing(void)
{
    size_t len = 0;
    char *s = calloc(1, 1);
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && s && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        size_t n = strlen(e->d_name);
        s = realloc(s, len + n + 2);
        memcpy(s + len, e->d_name, n);
        s[len + n] = '\n';
        len += n + 1;
        s[len] = '\0';
    }
    if (d)
        closedir(d);
    assert_non_null(s);
    return s;
}

/* Entries of /dev/shm now that `before` did not list; each is printed. */
static int dev_shm_new_entries(const char *before)
{
    char *now = dev_shm_listing(), *save = NULL;
    int n = 0;
    for (char *name = strtok_r(now, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
        char line[300];
        snprintf(line, sizeof line, "%s\n", name);
        int known = 0;
        for (const char *p = before; (p = strstr(p, line)) && !known; p++)
            known = p == before || p[-1] == '\n';
        if (!known) {
            fprintf(stderr, "left in /dev/shm: %s\n", name);
            n++;
        }
    }
    free(now);
    return n;
}

/* ------------------------------------------------------------ jobs */

/* After each test, passed or not: no process of it is left (mpirun
 * first, then the ranks it leaves to us when it dies), nor its buffers. */
static int teardown(void **state)
{
    (void)state;
    wt_job_clear(&job);
    return 0;
}

/* Run mpi_prog ok under WEFT_MPI_TRANSPORT=`value`; check both ranks'
 * lines and return how many of them map shared-memory segments. */
static int run_ok(const char *value)
{
    char env[64];
    int mapping = 0;
    snprintf(env, sizeof env, "WEFT_MPI_TRANSPORT=%s", value);
    assert_int_equal(wt_job_start(&job, WT_ARGV(WT_MPIRUN, "-x", env, "-n", "2", WT_MPI_PROG,
                                                "ok"), NULL, 0), 0);
    int st = wt_job_finish(&job, BOUND_S);
    WT_ASSERT_STATUS(&job, st, st == 0);
    for (int r = 0; r < 2; r++) {
        char want[32];
        int n = snprintf(want, sizeof want, "rank %d ok memfd_maps=", r), m = -1;
        const char *l = strstr(job.out, want);
        assert_non_null(l);
        assert_int_equal(sscanf(l + n, "%d", &m), 1);
        assert_true(m >= 0);
        mapping += m > 0;
    }
    assert_int_equal(wt_count_lines(job.out, "rank "), 2);
    assert_int_equal(wt_leftovers(), 0);
    return mapping;
}

/* ------------------------------------------------------------ tests */

static void test_bogus_value_fails_readably(void **state)
{
    (void)state;
    assert_int_equal(wt_job_start(&job, WT_ARGV(WT_MPIRUN, "-x", "WEFT_MPI_TRANSPORT=bogus", "-n",
                                                "2", WT_MPI_PROG, "ok"), NULL, 0), 0);
    int st = wt_job_finish(&job, BOUND_S);
    WT_ASSERT_STATUS(&job, st, st > 0 && st != 124); /* failed, and on its own */
    assert_non_null(strstr(job.err, "WEFT_MPI_TRANSPORT=bogus"));
    assert_non_null(strstr(job.err, "auto, shm or tcp"));
    assert_int_equal(wt_count_lines(job.out, "rank "), 0);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_shm_runs(void **state)
{
    (void)state;
    assert_int_equal(run_ok("shm"), 2);
}

static void test_tcp_runs(void **state)
{
    (void)state;
    assert_int_equal(run_ok("tcp"), 0);
}

static void test_auto_runs(void **state)
{
    (void)state;
    assert_int_equal(run_ok("auto"), 2);
}

/* SIGKILL rank `victim` of a 2-rank job streaming 4 MiB messages both
 * ways over shared memory; `cma` is WEFT_MPI_CMA=... */
static void kill_mid_stream(const char *cma, int victim)
{
    char *before = dev_shm_listing(), want[128];
    pid_t pids[2];
    assert_int_equal(wt_job_start(&job, WT_ARGV(WT_MPIRUN, "-x", "WEFT_MPI_TRANSPORT=shm", "-x",
                                                (char *)cma, "-n", "2", WT_MPI_PROG, "stream",
                                                "4"), NULL, 0), 0);
    if (wt_job_wait_lines(&job, "ready ", 2, BOUND_S) != 0)
        fail_msg("the ranks never got ready; stderr:\n%s", job.err);
    assert_int_equal(wt_ready_pids(&job, pids, 2), 0);
    assert_null(strstr(job.out, "memfd_maps=0")); /* the stream is over shared memory */
    assert_int_equal(kill(pids[victim], SIGKILL), 0);
    int st = wt_job_finish(&job, BOUND_S);
    WT_ASSERT_STATUS(&job, st, st == 128 + SIGKILL);
    snprintf(want, sizeof want, "mpirun: rank %d (pid %d) was killed by signal 9 (Killed)\n",
             victim, (int)pids[victim]);
    assert_non_null(strstr(job.err, want));
    assert_int_equal(wt_count_lines(job.err, "mpirun: "), 1); /* only the cause */
    assert_int_equal(wt_leftovers(), 0);
    assert_int_equal(dev_shm_new_entries(before), 0);
    free(before);
}

/* SIGKILL rank 2 of 4 running shared-memory collectives in a loop: the
 * others wait on its flags, and the job still ends at once, naming it. */
static void test_killed_mid_collectives(void **state)
{
    char *before = dev_shm_listing(), want[128];
    pid_t pids[4];
    (void)state;
    assert_int_equal(wt_job_start(&job, WT_ARGV(WT_MPIRUN, "-x", "WEFT_MPI_TRANSPORT=shm", "-n",
                                                "4", WT_MPI_PROG, "barriers"), NULL, 0), 0);
    if (wt_job_wait_lines(&job, "ready ", 4, BOUND_S) != 0)
        fail_msg("the ranks never got ready; stderr:\n%s", job.err);
    assert_int_equal(wt_ready_pids(&job, pids, 4), 0);
    assert_null(strstr(job.out, "memfd_maps=0"));
    assert_int_equal(kill(pids[2], SIGKILL), 0);
    int st = wt_job_finish(&job, BOUND_S);
    WT_ASSERT_STATUS(&job, st, st == 128 + SIGKILL);
    snprintf(want, sizeof want, "mpirun: rank 2 (pid %d) was killed by signal 9 (Killed)\n",
             (int)pids[2]);
    assert_non_null(strstr(job.err, want));
    assert_int_equal(wt_leftovers(), 0);
    assert_int_equal(dev_shm_new_entries(before), 0);
    free(before);
}

static void test_killed_mid_single_copy(void **state)
{
    (void)state;
    kill_mid_stream("WEFT_MPI_CMA=16384", 1);
}

static void test_killed_mid_ring_copy(void **state)
{
    (void)state;
    kill_mid_stream("WEFT_MPI_CMA=0", 1);
}

static void test_killed_rank_0_mid_single_copy(void **state)
{
    (void)state;
    kill_mid_stream("WEFT_MPI_CMA=16384", 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    if (!private_dev_shm())
        fprintf(stderr, "note: /dev/shm is shared with the rest of the machine\n");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_bogus_value_fails_readably, teardown),
        cmocka_unit_test_teardown(test_shm_runs, teardown),
        cmocka_unit_test_teardown(test_tcp_runs, teardown),
        cmocka_unit_test_teardown(test_auto_runs, teardown),
        cmocka_unit_test_teardown(test_killed_mid_collectives, teardown),
        cmocka_unit_test_teardown(test_killed_mid_single_copy, teardown),
        cmocka_unit_test_teardown(test_killed_mid_ring_copy, teardown),
        cmocka_unit_test_teardown(test_killed_rank_0_mid_single_copy, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
