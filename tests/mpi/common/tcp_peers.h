/* Counting a rank's TCP connections to other ranks, for tests that
 * assert how many a job opens. A connection is an established IPv4 TCP
 * socket of this process to something other than mpirun's control server
 * (WEFT_MPI_CONTROL, "ip:port,..."). Each open fd is asked directly
 * (SO_DOMAIN, SO_TYPE, TCP_INFO's state, getpeername). Needs _GNU_SOURCE
 * (strdup, strtok_r) before the first include.
 */
#ifndef TCP_PEERS_H
#define TCP_PEERS_H

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Is a:port (network order) an item of WEFT_MPI_CONTROL? */
static inline int tcp_peer_is_control(const struct sockaddr_in *a)
{
    const char *env = getenv("WEFT_MPI_CONTROL");
    char *list = strdup(env ? env : ""), *save = NULL;
    int found = 0;

    for (char *it = strtok_r(list, ",", &save); it && !found; it = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(it, ':');
        struct in_addr ip;
        if (!colon)
            continue;
        *colon = '\0';
        found = inet_pton(AF_INET, it, &ip) == 1 && ip.s_addr == a->sin_addr.s_addr &&
                atoi(colon + 1) == ntohs(a->sin_port);
    }
    free(list);
    return found;
}

static inline int tcp_peer_is_rank(int fd)
{
    int domain = 0, type = 0;
    socklen_t len = sizeof domain;
    struct tcp_info ti;
    struct sockaddr_in peer;

    if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_INET)
        return 0;
    len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_STREAM)
        return 0;
    len = sizeof ti;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        ti.tcpi_state != TCP_ESTABLISHED)
        return 0;
    len = sizeof peer;
    return getpeername(fd, (struct sockaddr *)&peer, &len) == 0 && !tcp_peer_is_control(&peer);
}

static inline int tcp_peer_connections(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
            n += tcp_peer_is_rank(atoi(e->d_name));
    if (d)
        closedir(d);
    return n;
}

#endif /* TCP_PEERS_H */
