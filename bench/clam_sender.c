/* bench/clam, the sending side: the bounded UDP socket pair, CLAM's
 * estimate of Lmax, and the arrival processes.
 *
 * Arrivals, the paper's rates divided by CLAM_SCALE (100):
 *   Poisson  exponential gaps of the paper's inter-arrival times (10 to
 *            250 ms there, 100 us to 2.5 ms here); the paper's sender kept
 *            its gaps nearly constant, Poisson makes bursts as a real
 *            source does at the same mean rate;
 *   Markov   the paper's two-state chain (section 3.7): 10 ms gaps in state
 *            H, 100 ms in L (100 us and 1 ms here), a transition drawn after
 *            each datagram with gamma = delta = (1 + rho) / 2.
 * The sender (plain C, no Weft) sleeps to absolute deadlines; when it falls
 * behind by more than CATCH_UP_NS (the machine is shared) it drops the
 * backlog rather than sending it as a burst nobody asked for, so its rate
 * is measured, not assumed.
 */
#include "clam.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "loopback.h"

#define LMAX_FLOOD 200 /* datagrams thrown at an unread socket */

/* ------------------------------------------------------------- sockets */

static int bounded_socket(struct sockaddr_in *addr)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0), size = CLAM_RCVBUF;
    socklen_t len = sizeof *addr;
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) != 0 ||
        bind(fd, (struct sockaddr *)addr, sizeof *addr) != 0 ||
        getsockname(fd, (struct sockaddr *)addr, &len) != 0) {
        fprintf(stderr, "clam: receive socket: %s\n", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

int clam_open_sockets(int *rx_fd, int *tx_fd)
{
    struct sockaddr_in addr;
    *rx_fd = bounded_socket(&addr);
    if (*rx_fd < 0)
        return -1;
    *tx_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (*tx_fd < 0 ||
        connect(*tx_fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        fprintf(stderr, "clam: send socket: %s\n", strerror(errno));
        close(*rx_fd);
        if (*tx_fd >= 0)
            close(*tx_fd);
        return -1;
    }
    return 0;
}

int clam_measure_lmax(void)
{
    int rx, tx, kept = 0;
    char buf[CLAM_PAYLOAD] = {0};
    if (clam_open_sockets(&rx, &tx) != 0)
        return -1;
    for (int i = 0; i < LMAX_FLOOD; i++)
        send(tx, buf, sizeof buf, MSG_DONTWAIT);
    while (recv(rx, buf, sizeof buf, MSG_DONTWAIT) > 0)
        kept++;
    close(rx);
    close(tx);
    return kept;
}

/* ------------------------------------------------------------ arrivals */

void clam_source_init(clam_source *src, const clam_arrival *a, uint64_t seed)
{
    src->arrival = *a;
    src->rng = seed ? seed : 1;
    src->high = 1;
}

/* Uniform in (0, 1]. */
static double uniform(clam_source *src)
{
    return (double)((lb_rand(&src->rng) >> 11) + 1) / 9007199254740992.0;
}

int64_t clam_source_next_gap(clam_source *src)
{
    const clam_arrival *a = &src->arrival;
    if (a->kind == CLAM_POISSON)
        return (int64_t)(-log(uniform(src)) * (double)a->mean_ns);
    int64_t gap = src->high ? CLAM_MARKOV_H_NS : CLAM_MARKOV_L_NS;
    double stay = (1 + a->rho) / 2;
    if (uniform(src) > stay)
        src->high = !src->high;
    return gap;
}

/* ------------------------------------------------------------- sending */

#define CATCH_UP_NS 500000 /* behind by more: drop the backlog */

static int readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) > 0;
}

static void sleep_until(int64_t t)
{
    struct timespec ts = {.tv_sec = t / 1000000000, .tv_nsec = t % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* One datagram: its sequence number first, the rest of the MTU after. */
static void send_one(int tx, uint64_t seq)
{
    char buf[CLAM_PAYLOAD];
    memset(buf, 0, sizeof buf);
    memcpy(buf, &seq, sizeof seq);
    send(tx, buf, sizeof buf, MSG_DONTWAIT);
}

uint64_t clam_send_until(int tx, clam_source *src, int stop_fd)
{
    uint64_t seq = 0;
    int64_t next = bench_now_ns();
    while (!readable(stop_fd)) {
        sleep_until(next);
        send_one(tx, seq++);
        next += clam_source_next_gap(src);
        int64_t now = bench_now_ns();
        if (now - next > CATCH_UP_NS)
            next = now;
    }
    return seq;
}
