/* A rank program for the launcher tests that need the MPI engine itself
 * (boot_prog.c has only the bootstrap). The first argument picks a
 * behaviour:
 *
 *   ok          exchange messages of 1 byte and 1 MiB with the next and the
 *               previous rank (checked); print "rank R ok memfd_maps=N"
 *   stream MIB  pairs of ranks (0 with 1, 2 with 3...) exchange messages of
 *               MIB MiB both ways, forever, checking each; after the first
 *               exchange print "ready R PID memfd_maps=N"
 *   barriers    every rank runs MPI_Barrier and an 8-byte MPI_Allreduce
 *               (checked) forever; after the first round print "ready R
 *               PID memfd_maps=N"
 *   mesh        every rank exchanges messages of 0 B to 4 MiB (both sides
 *               of the 64 KiB eager limit) with every other rank, then runs
 *               barrier, allreduce (1 int, 1 MiB of doubles), bcast,
 *               allgather and alltoall, all checked, then puts into an
 *               allocated window (MPI_Win_allocate), then tries a shared
 *               window (MPI_Win_allocate_shared on MPI_COMM_WORLD: its
 *               stores checked through MPI_Win_shared_query where it
 *               works); print "rank R mesh ok netns=INO memfd_maps=N
 *               tcp_peers=T shared_win=W", W "ok", or "refused" for
 *               MPI_ERR_RMA_SHARED (ranks on several hosts)
 *   whoami VAR...  print "rank R size S appnum A prog NAME" (A the
 *               MPI_APPNUM attribute of MPI_COMM_WORLD, NAME the basename
 *               of argv[0]), "rank R cpus=N" (the CPUs the main thread may
 *               run on, as threads it starts inherit them), then "rank R
 *               VAR=value" (or "VAR unset") for each VAR
 *   signals     no MPI: block SIGUSR1 and SIGUSR2, print "ready R PID",
 *               then print "rank R got SIGUSR2" for each SIGUSR2 and, on
 *               SIGUSR1, "rank R got SIGUSR1" and exit 0
 *
 * Any behaviour may be preceded by "gate PATH WHO WHERE": rank WHO (or
 * every rank, for "all") stops at WHERE and waits until the file PATH
 * exists, after printing "gate R PID ADDR". WHERE is "init" (before
 * MPI_Init; ADDR is WEFT_MPI_CONTROL) or "connect" (at the rank's first
 * TCP connect to anything but mpirun, i.e. to a peer's wire-up listener,
 * inside MPI_Init; ADDR is that listener's 127.0.0.1:port). A test uses it
 * to do something to a job at a known point of its start-up. The connect
 * gate works by defining connect() here, which the MPI library's calls
 * reach before libc's.
 *
 * memfd_maps=N counts the mappings of Weft's shared-memory segments in the
 * process (/proc/self/maps lines naming the memfd "weft-mpi-shm"), so a
 * test can tell whether the ranks talk through shared memory. tcp_peers=T
 * counts the process's established IPv4 TCP connections (its socket fds
 * found in /proc/self/net/tcp, state 01) other than the one to mpirun's
 * control server (WEFT_MPI_CONTROL): one per peer reached over TCP.
 * netns=INO is the inode of the rank's network namespace, which a test
 * compares with those of the namespaces it made. A failed check prints
 * "mpi_prog: rank R: ..." on stderr and exits 3.
 *
 * Invariants: output lines are written with one write(), so a test that
 * reads them sees whole lines.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

static int rank, size;

static void say(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (write(1, buf, (size_t)n) < 0)
        exit(99);
}

static void check(int ok, const char *what)
{
    if (ok)
        return;
    fprintf(stderr, "mpi_prog: rank %d: %s\n", rank, what);
    exit(3);
}

static int memfd_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        n += strstr(line, "/memfd:weft-mpi-shm") != NULL;
    if (f)
        fclose(f);
    return n;
}

/* ------------------------------------------------------------ launcher */

static int mode_whoami(int argc, char **argv)
{
    int *appnum = NULL, flag = 0;
    const char *name = strrchr(argv[0], '/');
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    check(flag && appnum, "MPI_APPNUM is not set on MPI_COMM_WORLD");
    say("rank %d size %d appnum %d prog %s\n", rank, size, *appnum, name ? name + 1 : argv[0]);
    cpu_set_t cpus;
    check(sched_getaffinity(0, sizeof cpus, &cpus) == 0, "sched_getaffinity failed");
    say("rank %d cpus=%d\n", rank, CPU_COUNT(&cpus));
    for (int i = 2; i < argc; i++) {
        const char *v = getenv(argv[i]);
        if (v)
            say("rank %d %s=%s\n", rank, argv[i], v);
        else
            say("rank %d %s unset\n", rank, argv[i]);
    }
    return 0;
}

/* Before MPI_Init and without it: the launcher's signal forwarding. */
static int mode_signals(void)
{
    const char *r = getenv("WEFT_MPI_RANK");
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigprocmask(SIG_BLOCK, &set, NULL);
    say("ready %s %d\n", r ? r : "?", (int)getpid());
    for (;;) {
        int sig = sigwaitinfo(&set, NULL);
        if (sig == SIGUSR2)
            say("rank %s got SIGUSR2\n", r ? r : "?");
        if (sig == SIGUSR1) {
            say("rank %s got SIGUSR1\n", r ? r : "?");
            return 0;
        }
    }
}

/* ------------------------------------------------------------ sockets */

#define MAX_SOCKS 256

/* Inodes of this process's sockets (/proc/self/fd links "socket:[INO]"). */
static int own_sockets(unsigned long *ino, int max)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && n < max && (e = readdir(d));) {
        char path[300], link[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, link, sizeof link - 1);
        link[len > 0 ? len : 0] = '\0';
        n += sscanf(link, "socket:[%lu]", &ino[n]) == 1;
    }
    if (d)
        closedir(d);
    return n;
}

/* Is addr:port (network, host order) an item of WEFT_MPI_CONTROL? */
static int is_control(uint32_t addr, unsigned port)
{
    const char *env = getenv("WEFT_MPI_CONTROL");
    char *list = strdup(env ? env : ""), *save = NULL;
    int found = 0;
    for (char *it = list ? strtok_r(list, ",", &save) : NULL; it && !found;
         it = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(it, ':');
        struct in_addr a;
        if (!colon)
            continue;
        *colon = '\0';
        found = inet_pton(AF_INET, it, &a) == 1 && a.s_addr == addr &&
                (unsigned)atoi(colon + 1) == port;
    }
    free(list);
    return found;
}

static int tcp_peers(void)
{
    unsigned long mine[MAX_SOCKS];
    int nmine = own_sockets(mine, MAX_SOCKS), n = 0;
    FILE *f = fopen("/proc/self/net/tcp", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned raddr, rport, st;
        unsigned long ino;
        if (sscanf(line, " %*d: %*x:%*x %x:%x %x %*s %*s %*s %*u %*u %lu", &raddr, &rport, &st,
                   &ino) != 4 || st != 1 || is_control(raddr, rport))
            continue;
        for (int i = 0; i < nmine; i++)
            n += mine[i] == ino;
    }
    if (f)
        fclose(f);
    return n;
}

static unsigned long netns_inode(void)
{
    struct stat st;
    return stat("/proc/self/ns/net", &st) == 0 ? (unsigned long)st.st_ino : 0;
}

/* ------------------------------------------------------------ messages */

static unsigned char byte_of(int from, unsigned iter, size_t i)
{
    uint64_t x = ((uint64_t)from << 40 ^ (uint64_t)iter << 20 ^ i) * 0x9e3779b97f4a7c15ull;
    return (unsigned char)(x >> 56);
}

static void fill(unsigned char *b, size_t n, int from, unsigned iter)
{
    for (size_t i = 0; i < n; i++)
        b[i] = byte_of(from, iter, i);
}

static int verify(const unsigned char *b, size_t n, int from, unsigned iter)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != byte_of(from, iter, i))
            return 0;
    return 1;
}

/* Send n bytes to `to` while receiving n from `from`; check them. */
static void exchange(unsigned char *out, unsigned char *in, size_t n, int to, int from,
                     unsigned iter)
{
    MPI_Request r[2];
    fill(out, n, rank, iter);
    check(MPI_Irecv(in, (int)n, MPI_BYTE, from, (int)(iter % 1000), MPI_COMM_WORLD, &r[0]) ==
              MPI_SUCCESS, "MPI_Irecv failed");
    check(MPI_Isend(out, (int)n, MPI_BYTE, to, (int)(iter % 1000), MPI_COMM_WORLD, &r[1]) ==
              MPI_SUCCESS, "MPI_Isend failed");
    check(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall failed");
    check(verify(in, n, from, iter), "a message arrived wrong");
}

static int mode_ok(void)
{
    size_t n = (size_t)1 << 20;
    unsigned char *out = malloc(n), *in = malloc(n);
    check(out && in, "no memory");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    exchange(out, in, 1, next, prev, 0);
    exchange(out, in, n, next, prev, 1);
    exchange(out, in, n, prev, next, 2);
    check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier failed");
    say("rank %d ok memfd_maps=%d\n", rank, memfd_maps());
    free(out);
    free(in);
    return 0;
}

/* Both sides of the eager limit (64 KiB), and up to 4 MiB. */
static const size_t mesh_sizes[] = { 0, 1, 4095, 65536, 65537, 1 << 20, 4 << 20 };
#define MESH_MAX ((size_t)4 << 20)

/* Every ordered pair of ranks, every size: at step d each rank sends to
 * rank + d and receives from rank - d, so every step pairs up. */
static void mesh_pt2pt(unsigned char *out, unsigned char *in)
{
    unsigned iter = 0;
    for (size_t s = 0; s < sizeof mesh_sizes / sizeof mesh_sizes[0]; s++)
        for (int d = 1; d < size; d++, iter++)
            exchange(out, in, mesh_sizes[s], (rank + d) % size, (rank + size - d) % size, iter);
}

static void mesh_reductions(void)
{
    size_t n = ((size_t)1 << 20) / sizeof(double);
    double *v = malloc(n * sizeof *v), *sum = malloc(n * sizeof *sum);
    int one = rank + 1, total = 0;
    check(v && sum, "no memory");
    check(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
              total == size * (size + 1) / 2, "MPI_Allreduce of an int went wrong");
    for (size_t i = 0; i < n; i++)
        v[i] = (double)(rank + (int)(i % 1000));
    check(MPI_Allreduce(v, sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allreduce of 1 MiB failed");
    for (size_t i = 0; i < n; i++)
        check(sum[i] == (double)(size * (int)(i % 1000) + size * (size - 1) / 2),
              "MPI_Allreduce of 1 MiB summed wrong");
    free(v);
    free(sum);
}

static void mesh_collectives(unsigned char *buf)
{
    size_t n = (size_t)1 << 20;
    int root = size - 1, *mine = malloc(2 * (size_t)size * sizeof *mine), *all = mine + size;
    check(mine != NULL, "no memory");
    check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier failed");
    mesh_reductions();
    if (rank == root)
        fill(buf, n, root, 7777);
    check(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS &&
              verify(buf, n, root, 7777), "MPI_Bcast of 1 MiB went wrong");
    mine[0] = rank * 7;
    check(MPI_Allgather(mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Allgather failed");
    for (int r = 0; r < size; r++)
        check(all[r] == r * 7, "MPI_Allgather gathered wrong");
    for (int r = 0; r < size; r++)
        mine[r] = rank * 100 + r;
    check(MPI_Alltoall(mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) == MPI_SUCCESS,
          "MPI_Alltoall failed");
    for (int r = 0; r < size; r++)
        check(all[r] == r * 100 + rank, "MPI_Alltoall delivered wrong");
    check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier failed");
    free(mine);
}

/* MPI_Win_allocate_shared on MPI_COMM_WORLD: "ok" (each rank's int seen
 * by every rank through plain loads) or "refused" (MPI_ERR_RMA_SHARED);
 * any other outcome stops the rank. */
static const char *mesh_shared_window(void)
{
    MPI_Win win;
    int *mine, cls, rc;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                                 &win);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_RMA_SHARED)
        return "refused";
    check(rc == MPI_SUCCESS, "MPI_Win_allocate_shared failed");
    check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS, "MPI_Win_lock_all failed");
    *mine = rank + 1;
    MPI_Win_sync(win);
    check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Barrier failed");
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        MPI_Aint bytes;
        int unit, *p;
        check(MPI_Win_shared_query(win, r, &bytes, &unit, &p) == MPI_SUCCESS && *p == r + 1,
              "a shared window's store is not seen");
    }
    check(MPI_Win_unlock_all(win) == MPI_SUCCESS && MPI_Win_free(&win) == MPI_SUCCESS,
          "MPI_Win_free failed");
    return "ok";
}

/* MPI_Win_allocate on MPI_COMM_WORLD (its memory shared where the ranks
 * share a host, each rank's own otherwise): each rank puts its rank into
 * the next one's window; after the fence each holds its predecessor's. */
static void mesh_allocated_window(void)
{
    MPI_Win win;
    int *mine, me = rank, next = (rank + 1) % size;

    check(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine,
                           &win) == MPI_SUCCESS, "MPI_Win_allocate failed");
    *mine = -1;
    check(MPI_Win_fence(0, win) == MPI_SUCCESS &&
              MPI_Put(&me, 1, MPI_INT, next, 0, 1, MPI_INT, win) == MPI_SUCCESS &&
              MPI_Win_fence(0, win) == MPI_SUCCESS, "a put in a fence epoch failed");
    check(*mine == (rank + size - 1) % size, "a put landed wrong");
    check(MPI_Win_free(&win) == MPI_SUCCESS, "MPI_Win_free failed");
}

static int mode_mesh(void)
{
    unsigned char *out = malloc(MESH_MAX), *in = malloc(MESH_MAX);
    check(out && in, "no memory");
    mesh_pt2pt(out, in);
    mesh_collectives(in);
    mesh_allocated_window();
    const char *shared = mesh_shared_window();
    say("rank %d mesh ok netns=%lu memfd_maps=%d tcp_peers=%d shared_win=%s\n", rank,
        netns_inode(), memfd_maps(), tcp_peers(), shared);
    free(out);
    free(in);
    return 0;
}

/* The same message every time, fully checked every 16th, so that nearly
 * all the time goes to moving bytes: a kill lands mid-transfer. */
static _Noreturn void mode_stream(size_t mib)
{
    size_t n = mib << 20;
    int partner = rank ^ 1;
    unsigned char *out = malloc(n), *in = malloc(n);
    check(out && in && mib > 0, "no memory, or a size of 0");
    check(partner < size, "stream needs an even number of ranks");
    fill(out, n, rank, 0);
    for (unsigned iter = 0;; iter++) {
        MPI_Request r[2];
        in[0] = (unsigned char)~byte_of(partner, 0, 0);
        check(MPI_Irecv(in, (int)n, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &r[0]) == MPI_SUCCESS &&
                  MPI_Isend(out, (int)n, MPI_BYTE, partner, 0, MPI_COMM_WORLD, &r[1]) ==
                      MPI_SUCCESS &&
                  MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS,
              "a stream exchange failed");
        check(in[0] == byte_of(partner, 0, 0) && (iter % 16 || verify(in, n, partner, 0)),
              "a message arrived wrong");
        if (iter == 0)
            say("ready %d %d memfd_maps=%d\n", rank, (int)getpid(), memfd_maps());
    }
}

/* Collectives forever (through the shared-memory slots between ranks of
 * one host): a kill lands while the others wait on the victim's flags. */
static _Noreturn void mode_barriers(void)
{
    for (long iter = 0;; iter++) {
        long v = rank + iter, sum = 0;
        check(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS &&
                  MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
              "a collective failed");
        check(sum == (long)size * (size - 1) / 2 + (long)size * iter, "a wrong sum");
        if (iter == 0)
            say("ready %d %d memfd_maps=%d\n", rank, (int)getpid(), memfd_maps());
    }
}

/* ------------------------------------------------------------ gate */

#define GATE_BOUND_S 120 /* a test that never opens the gate has failed */

static const char *gate_path; /* the connect gate's file, until it opened */

/* Announce this process at the gate, then wait for its file. */
static void gate_wait(const char *path, const char *addr)
{
    const char *r = getenv("WEFT_MPI_RANK");
    struct timespec tick = { 0, 10 * 1000 * 1000 };
    say("gate %s %d %s\n", r ? r : "?", (int)getpid(), addr);
    for (long i = 0; access(path, F_OK) != 0; i++) {
        check(i < GATE_BOUND_S * 100L, "the gate never opened");
        nanosleep(&tick, NULL);
    }
}

/* Is sa an IPv4 address other than mpirun's control server? */
static int is_peer(const struct sockaddr *sa, socklen_t len)
{
    const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
    return sa && len >= sizeof *in && in->sin_family == AF_INET &&
           !is_control(in->sin_addr.s_addr, ntohs(in->sin_port));
}

int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
    if (gate_path && is_peer(sa, len)) {
        char addr[32];
        snprintf(addr, sizeof addr, "127.0.0.1:%u",
                 ntohs(((const struct sockaddr_in *)sa)->sin_port));
        gate_wait(gate_path, addr);
        gate_path = NULL;
    }
    return (int)syscall(SYS_connect, fd, sa, len);
}

/* "gate PATH WHO WHERE": stop here, or arm the connect gate. */
static void gate(const char *path, const char *who, const char *where)
{
    const char *r = getenv("WEFT_MPI_RANK"), *ctl = getenv("WEFT_MPI_CONTROL");
    if (strcmp(who, "all") != 0 && (!r || atoi(r) != atoi(who)))
        return;
    if (!strcmp(where, "connect"))
        gate_path = path;
    else
        gate_wait(path, ctl ? ctl : "?");
}

int main(int argc, char **argv)
{
    if (argc > 4 && !strcmp(argv[1], "gate")) {
        gate(argv[2], argv[3], argv[4]);
        argv[4] = argv[0];
        argv += 4;
        argc -= 4;
    }
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 2;
    if (!strcmp(mode, "signals"))
        return mode_signals();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!strcmp(mode, "ok"))
        rc = mode_ok();
    else if (!strcmp(mode, "mesh"))
        rc = mode_mesh();
    else if (!strcmp(mode, "barriers"))
        mode_barriers();
    else if (!strcmp(mode, "whoami"))
        rc = mode_whoami(argc, argv);
    else if (!strcmp(mode, "stream") && argc == 3)
        mode_stream((size_t)atol(argv[2]));
    else
        fprintf(stderr, "mpi_prog: unknown mode\n");
    MPI_Finalize();
    return rc;
}
