/* Strangers on this host cannot break a job while it starts: connections
 * that never present the job secret, opened against the job's own
 * listening ports at the worst moment, leave a 3-rank job (mpi_prog mesh:
 * every pair, every size, collectives, all checked) to a clean end. Each
 * attack is k silent connections plus k that stop after half a message
 * header, for k = 64 (the most a listener keeps unproven) and 200.
 *
 *   - mpirun's control server: while every rank is held before MPI_Init
 *     (mpi_prog's gate), the test opens the connections to the TCP port in
 *     WEFT_MPI_CONTROL, then lets the ranks in. Again with the Unix socket
 *     the ranks of mpirun's host use (unix:@name), where their
 *     connections queue behind the strangers' in the listen backlog.
 *   - the same Unix socket, from a process of another user (root only):
 *     each of its connections is closed at once, before it sends a byte
 *     (a silent one of the job's user would wait for its HELLO deadline),
 *     and mpirun -v says so.
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
#include <sys/un.h>
#include <sys/wait.h>
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

/* Open k silent connections to `a` and k that stop after a few bytes,
 * and leave them open. */
static void open_flood(const struct sockaddr *a, socklen_t len, int k)
{
    assert_true(2 * k <= MAX_FLOOD);
    for (nflood = 0; nflood < 2 * k; nflood++) {
        int fd = socket(a->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        flood[nflood] = fd;
        if (connect(fd, a, len) != 0)
            assert_int_equal(errno, EINPROGRESS);
    }
    settle_flood();
}

static void open_tcp_flood(unsigned port, int k)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    open_flood((struct sockaddr *)&a, sizeof a, k);
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

/* ADDR of rank r's "gate R PID ADDR" line into addr[128]. */
static void gate_addr(int r, char *addr)
{
    char want[16];
    int pid = 0;
    snprintf(want, sizeof want, "gate %d ", r);
    const char *l = strstr(job.out, want);
    assert_non_null(l);
    assert_int_equal(sscanf(l + strlen(want), "%d %127s", &pid, addr), 2);
}

/* The TCP port in rank r's gate line (its last item). */
static unsigned gate_port(int r)
{
    char addr[128];
    gate_addr(r, addr);
    const char *colon = strrchr(addr, ':');
    assert_non_null(colon);
    return (unsigned)atoi(colon + 1);
}

/* The abstract Unix address of the control server ("unix:@name," first in
 * rank r's WEFT_MPI_CONTROL) into *a; its length. */
static socklen_t gate_unix(int r, struct sockaddr_un *a)
{
    char addr[128];
    gate_addr(r, addr);
    assert_memory_equal(addr, "unix:@", 6);
    size_t n = strcspn(addr + 6, ",");
    assert_true(n > 0 && n < sizeof a->sun_path);
    *a = (struct sockaddr_un){ .sun_family = AF_UNIX };
    memcpy(a->sun_path + 1, addr + 6, n); /* sun_path[0] = 0: abstract */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
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
    open_tcp_flood(gate_port(0), k);
    open_gate();
    finish();
}

static void control_unix_flood(int k)
{
    struct sockaddr_un a;
    start("auto", "all", "init", NRANKS);
    socklen_t len = gate_unix(0, &a);
    open_flood((struct sockaddr *)&a, len, k);
    open_gate();
    finish();
}

/* In a child of user `uid`: connect `n` times to `a` without a word; the
 * number of connections the other end closed within CONNECT_S. */
static int knock_as(uid_t uid, const struct sockaddr_un *a, socklen_t len, int n)
{
    int pfd[2], closed = -1;
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pfd[0]);
        if (setgid(uid) != 0 || setuid(uid) != 0)
            _exit(2);
        closed = 0;
        for (int i = 0; i < n; i++) {
            int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            char c;
            struct pollfd p = { .fd = fd, .events = POLLIN };
            closed += fd >= 0 && connect(fd, (const struct sockaddr *)a, len) == 0 &&
                      poll(&p, 1, CONNECT_S * 1000) == 1 && recv(fd, &c, 1, 0) == 0;
            if (fd >= 0)
                close(fd);
        }
        _exit(write(pfd[1], &closed, sizeof closed) == sizeof closed ? 0 : 3);
    }
    close(pfd[1]);
    int status;
    if (read(pfd[0], &closed, sizeof closed) != sizeof closed)
        closed = -1;
    close(pfd[0]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return closed;
}

/* Rank 2 connects to rank 0 first (tcp_connect.c: lower ranks in order),
 * so its gate line names rank 0's listener. */
static void wireup_flood(int k)
{
    start("tcp", "2", "connect", 1);
    pid_t pid = rank0_pid();
    int base = sockets_of(pid);
    open_tcp_flood(gate_port(2), k);
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

static void test_control_unix_flood_64(void **state)
{
    (void)state;
    control_unix_flood(64);
}

static void test_control_unix_flood_200(void **state)
{
    (void)state;
    control_unix_flood(200);
}

#define NOBODY 65534
#define KNOCKS 16

static void test_control_unix_other_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip(); /* only root can be another user */
    struct sockaddr_un a;
    start("auto", "all", "init", NRANKS);
    socklen_t len = gate_unix(0, &a);
    assert_int_equal(knock_as(NOBODY, &a, len, KNOCKS), KNOCKS);
    open_gate();
    finish();
    assert_int_equal(wt_count_lines(job.err, "mpirun: refused a control connection from "
                                             "another user (uid 65534)"), KNOCKS);
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
        cmocka_unit_test_teardown(test_control_unix_flood_64, teardown),
        cmocka_unit_test_teardown(test_control_unix_flood_200, teardown),
        cmocka_unit_test_teardown(test_control_unix_other_user, teardown),
        cmocka_unit_test_teardown(test_wireup_flood_64, teardown),
        cmocka_unit_test_teardown(test_wireup_flood_200, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
