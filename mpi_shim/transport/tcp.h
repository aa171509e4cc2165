/* The TCP transport's internals, shared by tcp.c (moving frames) and
 * tcp_connect.c (setting connections up). The engine sees only
 * wmpi_tcp_ops (transport.h).
 */
#ifndef WMPI_TCP_H
#define WMPI_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

#define WMPI_TCP_RBUF (64 * 1024) /* per-peer receive staging buffer */

typedef struct tcp_peer {
    int fd;            /* -1: no connection (self, or lost) */
    int rank;          /* world rank */
    char where[16];    /* its IPv4 address, for messages; "" if unknown */
    unsigned armed;    /* epoll events currently watched */
    /* sending: frames in order; the head may be partly written */
    wmpi_frame *sq_head, *sq_tail;
    int in_tx;         /* tx() is running for this peer (re-entry guard) */
    /* receiving: bytes read but not parsed are rbuf[rhead, rtail) */
    unsigned char *rbuf;
    size_t rhead, rtail;
    int in_payload;    /* reading rhdr's payload; rgot bytes so far */
    wmpi_hdr rhdr;
    wmpi_rx rx;
    uint64_t rgot;
} tcp_peer;

struct wmpi_transport {
    int epfd;          /* every connected peer's socket */
    int rank, size;
    tcp_peer *peers;   /* [size] */
    const uint8_t *want; /* [size]: peers to connect (create()'s table) */
    const wmpi_upcalls *up;
    wmpi_boot *boot;
};

/* Connect this rank to every rank r with want[r] (tcp_connect.c):
 * listen, trade addresses with wmpi_boot_allgather, connect to lower
 * ranks and accept higher ones, each side presenting the job secret. On
 * success peers[r].fd is a connected non-blocking TCP_NODELAY socket for
 * every wanted r, with receive timestamps on (SO_TIMESTAMPNS) where the
 * kernel allows. Blocks the calling kernel thread (once, at MPI_Init).
 * Errors: -errno, WEFT_ETIMEDOUT (a peer did not connect within
 * WEFT_MPI_CONNECT_TIMEOUT seconds, default 60). */
int wmpi_tcp_connect_all(struct wmpi_transport *t);

#endif /* WMPI_TCP_H */
