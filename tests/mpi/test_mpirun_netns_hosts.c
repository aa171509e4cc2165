/* Two hosts made of network namespaces: a job of 2 namespaces x 2 ranks,
 * started through mpirun's launch agent, runs mixed, shared memory between
 * the ranks of one namespace and TCP between the namespaces (route.c;
 * host.c tells namespaces apart by their inode).
 *
 * Set-up (group fixture, as root): namespaces wt-netns-PID-a and -b, lo up
 * in each, one veth pair between them, 10.213.7.1/24 in a and .2 in b.
 * Each address exists only inside the two namespaces, so a fixed subnet
 * cannot clash with the machine's networks or with another run's. mpirun
 * itself runs in a (`ip netns exec`), listens for its control connections
 * on a's address (--control-address), and starts every rank through
 * `ip netns exec {host}` with the namespace names as host names: a name
 * that is not this machine's host name always goes through the agent
 * (hosts.c). Every link is private to the two namespaces.
 *
 * Tests (mpi_prog mesh: 0 B..4 MiB between every pair, then collectives,
 * all checked; each rank reports its namespace, its shared-memory mappings
 * and its TCP connections to peers):
 *   - auto: every rank sits in the namespace mpirun placed it in, maps
 *     shared memory, and has exactly 2 TCP peers (the other namespace);
 *   - tcp: no rank maps shared memory, each has 3 TCP peers;
 *   - both: a shared window over all four ranks is refused on every rank
 *     (MPI_ERR_RMA_SHARED: two hosts cannot share memory);
 *   - link down: the veth link goes down under a job of collectives
 *     forever (WEFT_MPI_TCP_TIMEOUT=3); the job ends on its own, before
 *     mpirun's --timeout, non-zero, with a rank saying which rank it lost
 *     and at which address of the other namespace; the link comes back
 *     up for the next test;
 *   - shm: MPI_Init fails and names, for the rank that reports it, the
 *     first rank of the other namespace as unreachable; no rank runs.
 * After each: no process left. The namespaces (and so the veth pair) are
 * deleted in the group teardown, also after a failed assertion; a run
 * killed before it leaves its namespaces behind, and the next run deletes
 * those whose pid is gone.
 *
 * Without root or iproute2, or where `ip netns add` is refused (an
 * unprivileged container), every test calls skip() after saying why, and
 * CTest reports the test as skipped (tests/mpi/CMakeLists.txt), not passed.
 *
 * 2 to 6 s on a busy 2-core machine, mostly the three jobs.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

#define BOUND_S   60   /* only stops a hung job; never part of a verdict */
#define TIMEOUT_S "40" /* mpirun's own --timeout, so it stops its ranks */
#define IP_BOUND_S 10
#define NS_PREFIX "wt-netns-"
#define ADDR_A    "10.213.7.1"
#define ADDR_B    "10.213.7.2"
#define NETNS_DIR "/var/run/netns" /* iproute2's NETNS_RUN_DIR */

static const char *const ip_paths[] = { "/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip" };

static char *ip_path;             /* NULL if iproute2 is missing */
static char ns[2][64], veth[2][16], agent[128];
static int made[2];               /* namespaces to delete */
static const char *unavailable;   /* why the tests skip, or NULL */
static struct wt_job job;

/* ------------------------------------------------------------ ip */

/* Run `ip ARGS...`; its status, with its stderr shown if not 0. */
static int run_ip(char *const argv[])
{
    struct wt_job j;
    int st = wt_run(&j, argv, NULL, 0, IP_BOUND_S);
    if (st != 0) {
        fprintf(stderr, "%sstatus %d from: ip", j.err ? j.err : "", st);
        for (int i = 1; argv[i]; i++)
            fprintf(stderr, " %s", argv[i]);
        fprintf(stderr, "\n");
    }
    wt_job_free(&j);
    return st;
}

#define IP(...) run_ip(WT_ARGV(ip_path, __VA_ARGS__))

static char *find_ip(void)
{
    for (size_t i = 0; i < sizeof ip_paths / sizeof ip_paths[0]; i++)
        if (access(ip_paths[i], X_OK) == 0)
            return (char *)ip_paths[i];
    return NULL;
}

/* Namespaces of earlier runs that were killed before their teardown. */
static void delete_stale(void)
{
    DIR *d = opendir(NETNS_DIR);
    for (struct dirent *e; d && (e = readdir(d));) {
        int pid;
        char side;
        if (sscanf(e->d_name, NS_PREFIX "%d-%c", &pid, &side) == 2 && pid > 0 &&
            kill(pid, 0) != 0 && errno == ESRCH)
            IP("netns", "delete", e->d_name);
    }
    if (d)
        closedir(d);
}

static unsigned long ns_inode(const char *name)
{
    char path[128];
    struct stat st;
    snprintf(path, sizeof path, NETNS_DIR "/%s", name);
    return stat(path, &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* ------------------------------------------------------------ fixtures */

static int group_teardown(void **state)
{
    (void)state;
    int bad = 0;
    for (int i = 0; i < 10 && wt_leftovers() > 0; i++) {
    }
    for (int i = 1; i >= 0; i--)
        if (made[i]) {
            bad |= IP("netns", "delete", ns[i]) != 0;
            made[i] = 0;
        }
    return bad ? -1 : 0;
}

/* The two namespaces, lo up in each, a veth pair between them. */
static int links(void)
{
    return IP("-n", ns[0], "link", "set", "lo", "up") ||
           IP("-n", ns[1], "link", "set", "lo", "up") ||
           IP("-n", ns[0], "link", "add", veth[0], "type", "veth", "peer", "name", veth[1],
              "netns", ns[1]) ||
           IP("-n", ns[0], "addr", "add", ADDR_A "/24", "dev", veth[0]) ||
           IP("-n", ns[1], "addr", "add", ADDR_B "/24", "dev", veth[1]) ||
           IP("-n", ns[0], "link", "set", veth[0], "up") ||
           IP("-n", ns[1], "link", "set", veth[1], "up");
}

static int group_setup(void **state)
{
    (void)state;
    int pid = (int)getpid();
    if (geteuid() != 0) {
        unavailable = "needs root, to make network namespaces";
        return 0;
    }
    if (!(ip_path = find_ip())) {
        unavailable = "needs the ip command (iproute2)";
        return 0;
    }
    delete_stale();
    for (int i = 0; i < 2; i++) {
        snprintf(ns[i], sizeof ns[i], NS_PREFIX "%d-%c", pid, 'a' + i);
        snprintf(veth[i], sizeof veth[i], "wtn%c%d", 'a' + i, pid); /* <= 15 chars */
    }
    snprintf(agent, sizeof agent, "%s netns exec {host}", ip_path);
    if (IP("netns", "add", ns[0]) != 0) {
        unavailable = "`ip netns add` was refused (a container without the privilege?)";
        return 0;
    }
    made[0] = 1;
    made[1] = IP("netns", "add", ns[1]) == 0;
    if (made[1] && links() == 0)
        return 0;
    group_teardown(NULL); /* it worked for a, so this is a failure */
    return -1;
}

static void need_namespaces(void)
{
    if (!unavailable)
        return;
    fprintf(stderr, "skipped: %s\n", unavailable);
    skip();
}

/* After each test, passed or not: no process of it is left, nor its buffers. */
static int teardown(void **state)
{
    (void)state;
    wt_job_clear(&job);
    return 0;
}

/* ------------------------------------------------------------ jobs */

/* mpi_prog mesh on ranks 0, 1 in namespace a and 2, 3 in b, mpirun in a,
 * under WEFT_MPI_TRANSPORT=`value`; mpirun's status. */
static int run_mesh(const char *value)
{
    char env[64], hosts[160];
    snprintf(env, sizeof env, "WEFT_MPI_TRANSPORT=%s", value);
    snprintf(hosts, sizeof hosts, "%s:2,%s:2", ns[0], ns[1]);
    assert_int_equal(wt_job_start(&job, WT_ARGV(ip_path, "netns", "exec", ns[0], WT_MPIRUN,
                                                "--launch-agent", agent, "--control-address",
                                                ADDR_A, "--host", hosts, "-n", "4", "--timeout",
                                                TIMEOUT_S, "-x", env, WT_MPI_PROG, "mesh"),
                                  NULL, 0), 0);
    return wt_job_finish(&job, BOUND_S);
}

/* Check every rank's line: it ran in its namespace, mapped shared memory
 * or not (`shm`), and had `tcp` peers over TCP. */
static void check_ranks(int shm, int tcp)
{
    unsigned long want_ns[2] = { ns_inode(ns[0]), ns_inode(ns[1]) };
    assert_true(want_ns[0] && want_ns[1] && want_ns[0] != want_ns[1]);
    for (int r = 0; r < 4; r++) {
        char want[32];
        unsigned long netns = 0;
        int n = snprintf(want, sizeof want, "rank %d mesh ok ", r), maps = -1, peers = -1;
        char shared[16] = "";
        const char *l = strstr(job.out, want);
        if (!l)
            fail_msg("no line from rank %d; stdout:\n%s\nstderr:\n%s", r, job.out, job.err);
        assert_int_equal(sscanf(l + n, "netns=%lu memfd_maps=%d tcp_peers=%d shared_win=%15s",
                                &netns, &maps, &peers, shared), 4);
        assert_string_equal(shared, "refused");
        assert_int_equal(netns, want_ns[r / 2]);
        if (shm ? maps <= 0 : maps != 0)
            fail_msg("rank %d maps %d shared-memory segments; stdout:\n%s", r, maps, job.out);
        if (peers != tcp)
            fail_msg("rank %d has %d TCP peers, not %d; stdout:\n%s", r, peers, tcp, job.out);
    }
    assert_int_equal(wt_count_lines(job.out, "rank "), 4);
}

/* ------------------------------------------------------------ tests */

static void test_auto_is_mixed(void **state)
{
    (void)state;
    need_namespaces();
    int st = run_mesh("auto");
    WT_ASSERT_STATUS(&job, st, st == 0);
    check_ranks(1, 2);
    assert_int_equal(wt_leftovers(), 0);
}

static void test_tcp_only(void **state)
{
    (void)state;
    need_namespaces();
    int st = run_mesh("tcp");
    WT_ASSERT_STATUS(&job, st, st == 0);
    check_ranks(0, 3);
    assert_int_equal(wt_leftovers(), 0);
}

/* Each "rank R: ... but rank P is not reachable" line names the first rank
 * of the other namespace; there is at least one. */
static void test_shm_only_fails(void **state)
{
    (void)state;
    need_namespaces();
    int st = run_mesh("shm"), lines = 0;
    WT_ASSERT_STATUS(&job, st, st > 0 && st != 124); /* failed, and on its own */
    const char *key = ": WEFT_MPI_TRANSPORT=shm, but rank ";
    for (const char *l = strstr(job.err, key); l; l = strstr(l + 1, key)) {
        const char *head = l;
        while (head > job.err && head[-1] != '\n')
            head--;
        int r = -1, p = -1;
        if (sscanf(head, "weft-mpi: rank %d", &r) != 1 || sscanf(l + strlen(key), "%d", &p) != 1)
            fail_msg("unexpected line in stderr:\n%s", job.err);
        if (r < 0 || r > 3 || p != (r < 2 ? 2 : 0))
            fail_msg("rank %d names rank %d as unreachable; stderr:\n%s", r, p, job.err);
        assert_non_null(strstr(l, " is not reachable through shared memory"));
        lines++;
    }
    if (lines == 0)
        fail_msg("no rank named an unreachable rank; stderr:\n%s", job.err);
    assert_int_equal(wt_count_lines(job.out, "rank "), 0);
    assert_int_equal(wt_leftovers(), 0);
}

/* A link cut under a running job ends it (keepalive and TCP_USER_TIMEOUT
 * find the silent peers), never hangs it. */
static void test_link_down(void **state)
{
    (void)state;
    need_namespaces();
    char hosts[160];
    snprintf(hosts, sizeof hosts, "%s:2,%s:2", ns[0], ns[1]);
    assert_int_equal(wt_job_start(&job, WT_ARGV(ip_path, "netns", "exec", ns[0], WT_MPIRUN,
                                                "--launch-agent", agent, "--control-address",
                                                ADDR_A, "--host", hosts, "-n", "4", "--timeout",
                                                TIMEOUT_S, "-x", "WEFT_MPI_TCP_TIMEOUT=3",
                                                WT_MPI_PROG, "barriers"),
                                  NULL, 0), 0);
    if (wt_job_wait_lines(&job, "ready ", 4, BOUND_S) != 0)
        fail_msg("the job did not start; stdout:\n%s\nstderr:\n%s", job.out, job.err);
    int down = IP("-n", ns[0], "link", "set", veth[0], "down");
    int st = wt_job_finish(&job, BOUND_S);
    int up = IP("-n", ns[0], "link", "set", veth[0], "up");
    assert_int_equal(down, 0);
    assert_int_equal(up, 0);
    WT_ASSERT_STATUS(&job, st, st > 0 && st != 124); /* failed, and on its own */
    int named = 0;
    const char *key = "lost the connection to rank ";
    for (const char *l = strstr(job.err, key); l; l = strstr(l + 1, key)) {
        int p = -1;
        char addr[32] = "";
        if (sscanf(l + strlen(key), "%d (tcp to %31[0-9.]", &p, addr) == 2)
            named += !strcmp(addr, p < 2 ? ADDR_A : ADDR_B);
    }
    if (!named)
        fail_msg("no rank names the rank and address it lost; stderr:\n%s", job.err);
    assert_int_equal(wt_leftovers(), 0);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_auto_is_mixed, teardown),
        cmocka_unit_test_teardown(test_tcp_only, teardown),
        cmocka_unit_test_teardown(test_shm_only_fails, teardown),
        cmocka_unit_test_teardown(test_link_down, teardown),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
