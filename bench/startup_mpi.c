/* bench/startup, the MPI program: the least a job does -- MPI_Init,
 * MPI_Barrier, MPI_Finalize -- so that the driver's wall time around
 * mpirun is the job's start-up and shut-down. Plain MPI, built twice by
 * CMake: against Weft's mpi.h and with mpicc.openmpi.
 *
 *   startup_mpi --variant NAME [--count-tcp]
 *
 * Rank 0 prints `up <variant> <size>` after the barrier, so the driver
 * knows the job really started. With --count-tcp every rank counts its
 * established TCP connections to other ranks, and rank 0 prints
 * `tcp_peers <variant> <max> <min>` over the ranks (startup.h).
 *
 * Counting: the tests' mpi_prog.c matches its socket inodes against
 * /proc/self/net/tcp; at 256 ranks over TCP that file lists every
 * connection of the job (about 65000 lines), which each rank would scan.
 * Here each socket fd is asked directly instead (SO_DOMAIN, SO_TYPE,
 * TCP_INFO's state, getpeername): cost per fd, not per connection of the
 * host. The connection to mpirun's control server (WEFT_MPI_CONTROL) is
 * not a peer and is left out, as in mpi_prog.c. The ranks count between
 * two barriers: no rank closes a connection before all have counted.
 *
 * A self-destruct alarm bounds the program's life even if its launcher's
 * time limit fails.
 */
#include <mpi.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "startup.h"

#define LIFETIME_S 900

/* Is sa one of the addresses of WEFT_MPI_CONTROL ("ip:port,...")? */
static int is_control(const struct sockaddr_in *sa)
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
        found = inet_pton(AF_INET, it, &a) == 1 &&
                a.s_addr == sa->sin_addr.s_addr &&
                atoi(colon + 1) == ntohs(sa->sin_port);
    }
    free(list);
    return found;
}

/* Is fd an established IPv4/IPv6 TCP connection to something other than
 * mpirun's control server? */
static int is_peer_connection(int fd)
{
    int domain = 0, type = 0;
    socklen_t len = sizeof domain;
    struct tcp_info ti;
    struct sockaddr_storage peer;
    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 ||
        (domain != AF_INET && domain != AF_INET6))
        return 0;
    len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
        type != SOCK_STREAM)
        return 0;
    len = sizeof ti;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        ti.tcpi_state != TCP_ESTABLISHED)
        return 0;
    len = sizeof peer;
    if (getpeername(fd, (struct sockaddr *)&peer, &len) != 0)
        return 0;
    return !(peer.ss_family == AF_INET &&
             is_control((const struct sockaddr_in *)&peer));
}

static int count_tcp_peers(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] != '.' && fd != dirfd(d))
            n += is_peer_connection(fd);
    }
    if (d)
        closedir(d);
    return n;
}

static void report_tcp_peers(int rank, const char *variant)
{
    int mine = count_tcp_peers(), hi = 0, lo = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce(&mine, &hi, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &lo, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(SU_TCP_FORMAT, variant, hi, lo);
}

/* --variant NAME [--count-tcp], in any order; 0 or -1. */
static int parse_args(int argc, char **argv, const char **variant,
                      int *count_tcp)
{
    *variant = NULL;
    *count_tcp = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc)
            *variant = argv[++i];
        else if (strcmp(argv[i], "--count-tcp") == 0)
            *count_tcp = 1;
        else
            return -1;
    }
    return *variant ? 0 : -1;
}

int main(int argc, char **argv)
{
    int rank, size, count_tcp;
    const char *variant;
    alarm(LIFETIME_S);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &variant, &count_tcp) != 0) {
        if (rank == 0)
            fprintf(stderr, "startup_mpi: --variant NAME [--count-tcp]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf(SU_UP_FORMAT, variant, size);
    if (count_tcp)
        report_tcp_peers(rank, variant);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
