/* Strangers on this host cannot break a job while it starts: connections
 * that never present the job secret, opened against the job's own
 * listening ports at the worst moment, leave a 3-rank job (mpi_prog mesh:
 * every pair, every size, collectives, all checked) to a clean end. Each
 * attack is k silent connections plus k that stop after half a message
 * header, for k = 64 (the most a listener keeps unproven) and 200.
 *
 *   - mpirun's control server: while every rank is held before MPI_Init
 *     (mpi_prog's gate), the test opens the connections to the port in
 *     WEFT_MPI_CONTROL, then lets the ranks in: their connections queue
 *     behind the strangers' in the listen backlog.
 *   - rank 0's wire-up listener (the TCP transport): rank 2 is held at
 *     its first connect to a peer, to rank 0, inside MPI_Init; by then
 *     rank 0 listens and waits for ranks 1 and 2. The test opens the
 *     connections to that port, gives rank 0 a moment to take 64 of them
 *     (its process holds that many more sockets), then lets rank 2 go
 *     on: its connection comes after the strangers'.
 *
 * The strangers' connections stay open until the job has ended. Each test
 * asserts mpirun's exit status 0, every rank's "mesh ok" line, and no
 * process left. Bounds (BOUND_S, CONNECT_S) only stop a hung test or end
 * a wait that sets the stage: the verdict never depends on how many
 * connections the kernel completed, or rank 0 took, in that time.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "launch_harness.h"

#define BOUND_S   20  /* only stops a hung job; never part of a verdict */
#define CONNECT_S 5   /* how long the strangers' connects may take */
#define NRANKS    3
#define MAX_FLOOD 512

static struct wt_job job;
static int flood[MAX_FLOOD], nflood;
static char gate_path[256];

/* ------------------------------------------------------------ strangers */

/* Complete (or give up on) the pending connects; then every odd one sends
 * half a message header and stops, the others stay silent. */
static void settle_flood(void)
{
    struct pollfd p[MAX_FLOOD];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int left = nflood; left > 0;) {
        for (int i = 0; i < nflood; i++)
            p[i] = (struct pollfd){ .fd = flood[i], .events = POLLOUT };
        if (poll(p, (nfds_t)nflood, 100) < 0 && errno != EINTR)
            break;
        left = 0;
        for (int i = 0; i < nflood; i++)
            left += !(p[i].revents & (POLLOUT | POLLERR | POLLHUP));
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec >= CONNECT_S)
            break;
    }
    static const unsigned char piece[] = { 0, 0, 0, 1, 0, 0, 0 }; /* half a header */
    for (int i = 1; i < nflood; i += 2)
        (void)send(flood[i], piece, sizeof piece, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Open k silent connections to 127.0.0.1:port and k that stop after a
 * few bytes, and leave them open. */
static void open_flood(unsigned port, int k)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_true(2 * k <= MAX_FLOOD);
    for (nflood = 0; nflood < 2 * k; nflood++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        flood[nflood] = fd;
        if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
            assert_int_equal(errno, EINPROGRESS);
    }
    settle_flood();
}

static void close_flood(void)
{
    while (nflood > 0)
        close(flood[--nflood]);
}

/* ------------------------------------------------------------ the job */

static void open_gate(void)
{
    int fd = open(gate_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
}

/* Start mpirun: NRANKS ranks of mpi_prog mesh, rank `who` (or all) held
 * at `where` (mpi_prog's gate); wait until `held` ranks are there. */
static void start(const char *transport, const char *who, const char *where, int held)
{
    char env[64];
    const char *dir = getenv("TMPDIR");
    snprintf(gate_path, sizeof gate_path, "%s/weft-flood-gate.%d", dir ? dir : "/tmp",
             (int)getpid());
    unlink(gate_path);
    snprintf(env, sizeof env, "WEFT_MPI_TRANSPORT=%s", transport);
    assert_int_equal(wt_job_start(&job, WT_ARGV(WT_MPIRUN, "-v", "-x", env, "-n", "3", WT_MPI_PROG,
                                                "gate", gate_path, (char *)who, (char *)where,
                                                "mesh"), NULL, 0), 0);
    if (wt_job_wait_lines(&job, "gate ", held, BOUND_S) != 0)
        fail_msg("the ranks never reached the gate; stderr:\n%s", job.err);
}

/* The port in rank r's "gate R PID ADDR" line. */
static unsigned gate_port(int r)
{
    char want[16], addr[64];
    int pid = 0;
    snprintf(want, sizeof want, "gate %d ", r);
    const char *l = strstr(job.out, want);
    assert_non_null(l);
    assert_int_equal(sscanf(l + strlen(want), "%d %63s", &pid, addr), 2);
    const char *colon = strrchr(addr, ':');
    assert_non_null(colon);
    return (unsigned)atoi(colon + 1);
}

/* The job ended well: status 0, each rank's checks passed, nothing left. */
static void finish(void)
{
    int st = wt_job_finish(&job, BOUND_S);
    close_flood();
    WT_ASSERT_STATUS(&job, st, st == 0);
    assert_int_equal(wt_count_lines(job.out, "rank "), NRANKS);
    for (int r = 0; r < NRANKS; r++) {
        char want[32];
        snprintf(want, sizeof want, "rank %d mesh ok ", r);
        assert_non_null(strstr(job.out, want));
    }
    assert_int_equal(wt_leftovers(), 0);
}

static int teardown(void **state)
{
    (void)state;
    close_flood();
    wt_job_clear(&job);
    unlink(gate_path);
    return 0;
}

/* ------------------------------------------------------------ rank 0 */

/* The number of sockets process pid holds. */
static int sockets_of(pid_t pid)
{
    char path[64], link[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char fd[340];
        snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
        ssize_t len = readlink(fd, link, sizeof link - 1);
        link[len > 0 ? len : 0] = '\0';
        n += !strncmp(link, "socket:", 7);
    }
    if (d)
        closedir(d);
    return n;
}

/* Rank 0's pid, from mpirun -v's "mpirun: rank 0 on HOST: pid N". */
static pid_t rank0_pid(void)
{
    const char *l = strstr(job.err, "mpirun: rank 0 on ");
    const char *p = l ? strstr(l, ": pid ") : NULL;
    assert_non_null(p);
    return (pid_t)atoi(p + 6);
}

/* Give rank 0 up to CONNECT_S to take `k` more connections: the strangers
 * then sit in its table, not in the backlog, when the last rank comes.
 * The test goes on after the bound either way. */
static void let_rank0_take(pid_t pid, int base, int k)
{
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < CONNECT_S * 100 && sockets_of(pid) < base + k; i++)
        nanosleep(&tick, NULL);
}

/* ------------------------------------------------------------ tests */

static void control_flood(int k)
{
    start("auto", "all", "init", NRANKS);
    open_flood(gate_port(0), k);
    open_gate();
    finish();
}

/* Rank 2 connects to rank 0 first (tcp_connect.c: lower ranks in order),
 * so its gate line names rank 0's listener. */
static void wireup_flood(int k)
{
    start("tcp", "2", "connect", 1);
    pid_t pid = rank0_pid();
    int base = sockets_of(pid);
    open_flood(gate_port(2), k);
    /* 64: the most a listener keeps (the k that sent bytes are enough; it
     * may leave the silent ones in the kernel) */
    let_rank0_take(pid, base, 64);
    open_gate();
    finish();
}

static void test_control_flood_64(void **state)
{
    (void)state;
    control_flood(64);
}

static void test_control_flood_200(void **state)
{
    (void)state;
    control_flood(200);
}

static void test_wireup_flood_64(void **state)
{
    (void)state;
    wireup_flood(64);
}

static void test_wireup_flood_200(void **state)
{
    (void)state;
    wireup_flood(200);
}

int main(int argc, char **argv)
{
    wt_launch_init(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_control_flood_64, teardown),
        cmocka_unit_test_teardown(test_control_flood_200, teardown),
        cmocka_unit_test_teardown(test_wireup_flood_64, teardown),
        cmocka_unit_test_teardown(test_wireup_flood_200, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
