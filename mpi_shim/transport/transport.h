/* The transport interface: how the engine moves frames between ranks.
 *
 * A frame is a fixed header (struct wmpi_hdr, the engine's protocol, opaque
 * to transports but for `plen`) followed by `plen` payload bytes. The engine
 * hands outgoing frames to send(); the transport writes them in order per
 * peer, never blocking: what the peer's socket (or ring) does not take now
 * stays queued and is written by later progress() calls. Incoming frames go
 * up through three callbacks:
 *   header(peer, hdr, rx)       a header arrived; the engine says in *rx
 *                               where its payload's first rx->keep bytes go
 *                               (the rest is read and dropped);
 *   payload(peer, hdr, rx, err) every payload byte arrived (err 0), or the
 *                               peer was lost midway (err < 0);
 *   lost(peer, err)             the peer's connection broke; queued frames
 *                               to it were already finished with err.
 * Receiving never waits for sending and vice versa (the EARTH lesson: two
 * ranks writing large messages to each other must not deadlock): progress()
 * reads whatever arrived and writes whatever the peer accepts, each on its
 * own.
 *
 * Contract for a transport:
 *  - create() is collective over the job (it may use wmpi_boot_allgather)
 *    and connects every peer it is asked to reach and can, or prepares to
 *    connect lazily (TCP: at a peer's first frame); reaches() then says
 *    which it took (the engine routes each peer to one transport,
 *    MPICH's "is this address local");
 *  - send(), progress() and every callback run with the engine lock held;
 *    callbacks may call send() again (on any peer);
 *  - frame->done(frame, err) is called exactly once per frame given to
 *    send(), possibly from inside send() itself, after which the transport
 *    no longer touches the frame;
 *  - pollfd() returns an fd that is readable whenever progress() has work
 *    (an epoll fd, an eventfd doorbell): the I/O server keeps it in its
 *    poll set while threads wait for the engine;
 *  - a transport whose frames land in memory rather than on an fd has a
 *    sleeping() op: from sleeping(t, 1) until sleeping(t, 0) its pollfd
 *    must become readable for every frame (its peers ring a doorbell);
 *  - nothing blocks a kernel thread after create().
 * Frames use host byte order: all ranks of a job share one architecture.
 */
#ifndef WMPI_TRANSPORT_H
#define WMPI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <weft/errno.h>

#include "boot/boot.h"

typedef struct wmpi_hdr {
    uint32_t type; /* the engine's message type */
    uint32_t ctx;  /* communicator context id */
    int32_t  src;  /* sender's rank in the communicator */
    int32_t  tag;
    uint64_t size; /* message size in bytes (protocol-defined) */
    uint64_t plen; /* payload bytes that follow this header */
    uint64_t sreq; /* sender's request id */
    uint64_t rreq; /* receiver's request id */
} wmpi_hdr;

typedef struct wmpi_frame wmpi_frame;
struct wmpi_frame {
    wmpi_frame *next;   /* private to the transport (queue link) */
    size_t      sent;   /* private to the transport (bytes written) */
    wmpi_hdr    hdr;    /* public */
    const void *payload; /* public: hdr.plen bytes */
    /* public: called once when the frame is written (err 0) or dropped */
    void (*done)(wmpi_frame *f, int err);
    int         queued; /* private to the transport: 1 while it owns f */
};

typedef struct wmpi_rx {
    void  *buf;    /* where the payload's first `keep` bytes go */
    size_t keep;   /* <= hdr.plen */
    void  *cookie; /* the engine's */
    int    kind;   /* the engine's */
} wmpi_rx;

typedef struct wmpi_upcalls {
    void (*header)(int peer, const wmpi_hdr *h, wmpi_rx *rx);
    void (*payload)(int peer, const wmpi_hdr *h, wmpi_rx *rx, int err);
    void (*lost)(int peer, int err);
} wmpi_upcalls;

typedef struct wmpi_transport wmpi_transport; /* each transport's own */

struct wmpi_transport_ops {
    const char *name;
    /* Collective: set up the transport for this job, for the peers r with
     * want[r] != 0 (every rank passes a consistent table: want[j] on rank
     * i equals want[i] on rank j). A transport may take fewer (reaches);
     * it then agrees with those peers. Returns 0 or a negative WEFT_E*
     * code with a message on stderr. Blocks: the calling kernel thread. */
    int (*create)(wmpi_transport **out, wmpi_boot *b, const wmpi_upcalls *up,
                  const uint8_t *want);
    /* 1 if this transport carries frames to world rank `peer`. */
    int (*reaches)(wmpi_transport *t, int peer);
    /* Optional (NULL: always 1): 1 if frames went, or are going, between
     * this rank and `peer`, in either direction; a transport that connects
     * lazily answers 0 for a peer neither side has sent to (MPI_Finalize
     * then trades no closing messages with it). Never blocks. */
    int (*linked)(wmpi_transport *t, int peer);
    /* Optional: this rank has begun MPI_Finalize; from now on it sends
     * frames only to linked peers. A transport that watches every peer
     * for its exit can tell the unlinked ones that this rank's exit is no
     * failure. Under the engine lock; never blocks. */
    void (*finishing)(wmpi_transport *t);
    /* Queue `f` for `peer` and write what the peer accepts now. Returns 0,
     * or a negative WEFT_E* code after having called f->done(f, code). */
    int (*send)(wmpi_transport *t, int peer, wmpi_frame *f);
    /* Read and write what is possible without blocking, about `budget`
     * bytes per peer and direction at most (the rest waits for the next
     * call, and the pollfd stays readable meanwhile). */
    void (*progress)(wmpi_transport *t, size_t budget);
    /* An fd readable when progress() has work; -1 if none. */
    int (*pollfd)(wmpi_transport *t);
    /* Optional (NULL for fd-driven transports): a thread is about to
     * sleep on pollfd (asleep 1; return 1 if progress() has work already)
     * or woke (asleep 0). Called without the engine lock; never blocks. */
    int (*sleeping)(wmpi_transport *t, int asleep);
    /* Optional: where `peer` is, for messages (an address); NULL if
     * unknown. Never blocks. */
    const char *(*where)(wmpi_transport *t, int peer);
    /* Close every connection and release `t`. */
    void (*destroy)(wmpi_transport *t);
};

extern const struct wmpi_transport_ops wmpi_tcp_ops;
extern const struct wmpi_transport_ops wmpi_shm_ops;

/* This host's identity for the transports (16 bytes): the kernel's boot id
 * combined with the network and pid namespaces, so that two network
 * namespaces of one machine (multi-host tests) count as two hosts. Never
 * blocks. */
void wmpi_host_identity(uint8_t id[16]);

/* pidfd_open(2) and pidfd_getfd(2): a pidfd for process `pid`, and a copy
 * of that process's fd `fd` (allowed to a process that may ptrace it);
 * -1 with errno on error. Never block. */
int wmpi_pidfd_open(pid_t pid);
int wmpi_pidfd_getfd(int pidfd, int fd);

/* FNV-1a over `n` bytes, continuing from `h` (WMPI_HASH64_SEED to start):
 * identities and tags, not security. Never blocks. */
#define WMPI_HASH64_SEED 0xcbf29ce484222325u
uint64_t wmpi_hash64(uint64_t h, const void *data, size_t n);

#endif /* WMPI_TRANSPORT_H */
