/* The TCP transport's internals, shared by tcp.c (moving frames, progress),
 * tcp_connect.c (business cards, opening a connection to a peer) and
 * tcp_accept.c (the listening socket and the strangers it lets in). The
 * engine sees only wmpi_tcp_ops (transport.h).
 *
 * A peer's connection goes through these states (tcp_connect.c's head
 * comment tells why):
 *   UNUSED      not carried by TCP (this rank, or a shared-memory peer);
 *   IDLE        no frame sent yet, no connection;
 *   CONNECTING  our non-blocking connect() is under way (fd, EPOLLOUT);
 *   HELLO       connected; our hello is being written (fd, EPOLLOUT);
 *   AWAIT       a higher rank's hello was written; it waits for the lower
 *               rank's one-byte answer (fd, EPOLLIN);
 *   YIELDED     the lower rank answered that its own connection wins; no
 *               fd, waiting for that connection to come in;
 *   UP          frames flow (fd, EPOLLIN and EPOLLOUT while queued);
 *   LOST        the connection failed or broke: no fd, never again.
 * Frames queue in every state but LOST and are written only when UP.
 */
#ifndef WMPI_TCP_H
#define WMPI_TCP_H

#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

#define WMPI_TCP_RBUF (64 * 1024) /* per-peer receive staging buffer */
#define WMPI_TCP_MAX_ADDRS 8
#define WMPI_TCP_MAX_STRANGERS 64 /* unauthenticated connections at once */

enum tcp_state {
    TCP_UNUSED, TCP_IDLE, TCP_CONNECTING, TCP_HELLO, TCP_AWAIT, TCP_YIELDED, TCP_UP, TCP_LOST
};

/* What an epoll event's data.u64 names: kind << 32 | index. */
enum tcp_ev_kind { TCP_EV_PEER = 1, TCP_EV_LISTEN, TCP_EV_STRANGER, TCP_EV_TIMER };
#define TCP_EV(kind, index) (((uint64_t)(kind) << 32) | (uint32_t)(index))

/* The one-byte answer of a lower rank to a higher rank's hello. */
#define TCP_ANSWER_ACCEPT 'A'
#define TCP_ANSWER_MINE   'M' /* my own connection to you wins: wait for it */

typedef struct tcp_card {
    uint8_t host[16];
    uint16_t port;  /* network order */
    uint16_t naddr;
    uint32_t addr[WMPI_TCP_MAX_ADDRS]; /* network order */
} tcp_card;

#define WMPI_TCP_MAGIC "WEFTMPI1" /* the hello's first 8 bytes (no NUL) */

typedef struct tcp_hello {
    char magic[8];
    uint8_t secret[WMPI_SECRET_LEN];
    int32_t rank, size;
} tcp_hello;

typedef struct tcp_peer {
    int fd;            /* -1 in UNUSED, IDLE, YIELDED, LOST */
    int rank;          /* world rank */
    int state;         /* enum tcp_state */
    char where[16];    /* its IPv4 address, for messages; "" if unknown */
    unsigned armed;    /* epoll events currently watched; 0: fd not in the set */
    /* opening: the address tried (-1: loopback), its and the whole deadline */
    int try_addr;
    int64_t try_until, until;
    size_t hello_sent;
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

typedef struct tcp_stranger {
    int fd;            /* -1: free slot */
    size_t got;        /* hello bytes read */
    int64_t until;     /* closed unproven at this time */
    tcp_hello h;
} tcp_stranger;

struct wmpi_transport {
    int epfd;          /* sockets, the listener, the timer */
    int lfd;           /* listening socket, open for the whole job */
    int tfd;           /* timerfd: the next deadline of a stranger or opening */
    int listening;     /* lfd is in the epoll set */
    int rank, size;
    tcp_peer *peers;   /* [size] */
    tcp_card *cards;   /* [size]: every rank's addresses */
    int unsettled;     /* peers neither UNUSED, UP nor LOST */
    int dead_s;        /* WEFT_MPI_TCP_TIMEOUT */
    int64_t connect_ns; /* WEFT_MPI_CONNECT_TIMEOUT */
    int64_t timer_at;  /* tfd's expiry; 0: disarmed */
    tcp_stranger strangers[WMPI_TCP_MAX_STRANGERS];
    int nstrangers;
    int warned_secret; /* one line on stderr per job for a wrong secret */
    const wmpi_upcalls *up;
    wmpi_boot *boot;
};

/* --- tcp_connect.c */

/* Listen, trade business cards with wmpi_boot_allgather (collective) and
 * put the listener and the timer in the epoll set; peers r with want[r]
 * become IDLE. No connection is made. Errors: -errno, WEFT_ENOMEM. Blocks
 * the calling thread (in the card trade only). */
int wmpi_tcp_setup(struct wmpi_transport *t, const uint8_t *want);
/* Start connecting to IDLE peer p (its first frame is queued). */
void wmpi_tcp_open(struct wmpi_transport *t, tcp_peer *p);
/* An epoll event on p's socket while it is CONNECTING, HELLO or AWAIT. */
void wmpi_tcp_opening_event(struct wmpi_transport *t, tcp_peer *p, unsigned events);
/* Socket options of every peer connection (TCP_NODELAY, keepalive,
 * TCP_USER_TIMEOUT) and its address for messages. */
void wmpi_tcp_tune(struct wmpi_transport *t, tcp_peer *p);
/* Have the timer fire by `when` (weft_now() ns) at the latest. */
void wmpi_tcp_due(struct wmpi_transport *t, int64_t when);
/* The timer fired: give up openings and strangers past their deadline. */
void wmpi_tcp_timer_event(struct wmpi_transport *t);

/* --- tcp_accept.c */

/* Accept what the listen backlog holds and read the hellos that came. */
void wmpi_tcp_listen_event(struct wmpi_transport *t);
/* More of stranger `slot`'s hello may have come. */
void wmpi_tcp_stranger_event(struct wmpi_transport *t, int slot);
/* Close the strangers past their deadline; the earliest one left (or
 * INT64_MAX). */
int64_t wmpi_tcp_expire_strangers(struct wmpi_transport *t, int64_t now);
/* Close every stranger and stop watching the listener. */
void wmpi_tcp_stop_listening(struct wmpi_transport *t);

/* --- tcp.c */

/* Watch `events` on p's socket (adding it to the epoll set if needed). */
void wmpi_tcp_watch(struct wmpi_transport *t, tcp_peer *p, unsigned events);
/* Close p's socket, if any, without touching its queue. */
void wmpi_tcp_close(struct wmpi_transport *t, tcp_peer *p);
/* p's connection is `fd` from now on: UP, its queue written. */
void wmpi_tcp_up(struct wmpi_transport *t, tcp_peer *p, int fd);
/* p failed: LOST, everything in flight finished with `err`, the engine
 * told. */
void wmpi_tcp_lose(struct wmpi_transport *t, tcp_peer *p, int err);

#endif /* WMPI_TCP_H */
