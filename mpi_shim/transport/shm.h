/* The shared-memory transport's internals, shared by shm.c (moving
 * frames) and shm_setup.c (making and mapping the segments). The engine
 * sees only wmpi_shm_ops (transport.h).
 *
 * Layout. Each rank owns one segment (a memfd, so nothing is left in
 * /dev/shm whatever kills the job) holding the rings its local peers
 * write to it: a control line, then one ring per local rank, indexed by
 * the sender's place among this host's ranks, then the rank's collective
 * slots (shm_slots.h: flags and data only their owner writes, which its
 * local peers read during a collective). A ring is a single-producer
 * single-consumer byte ring; its producer alone writes `tail` and
 * `waiting`, its consumer alone writes `head` and `cma_ok`, each on a
 * cache line of its own, so neither side ever needs an atomic
 * read-modify-write. The data belong to the producer between `head` and
 * `head` + ring_bytes, to the consumer below `head`.
 */
#ifndef WMPI_SHM_H
#define WMPI_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

#include "transport/shm_slots.h"
#include "transport/transport.h"

#define SHM_LINE 64
#define SHM_MAGIC 0x57534d31u /* "WSM1" */

/* The first line of a segment. */
typedef struct shm_ctl {
    uint32_t magic;
    uint32_t nslots;
    uint64_t ring_bytes;
    uint64_t owner;    /* this job's tag for the owning rank (shm_setup.c) */
    int finalized;     /* atomic: the owner began MPI_Finalize (finishing) */
    _Alignas(SHM_LINE) int asleep; /* owner: a thread sleeps on its doorbell */
    _Alignas(SHM_LINE) uint64_t heard; /* peers: stores to their slots that
                                          the owner may wait for */
} shm_ctl;

/* One ring's indexes; its bytes follow (ring_bytes, a power of two). */
typedef struct shm_ring {
    _Alignas(SHM_LINE) uint64_t tail; /* producer: bytes written so far */
    int waiting;                      /* producer: it waits for head to move */
    _Alignas(SHM_LINE) uint64_t head; /* consumer: bytes consumed so far */
    int cma_ok;                       /* consumer: it can read the producer's
                                         memory (process_vm_readv) */
    _Alignas(SHM_LINE) unsigned char data[];
} shm_ring;

/* A frame's record in a ring: exactly one cache line, starting on one
 * (ring sizes are multiples of it, so a record never wraps); an inline
 * payload follows, and the next record starts on the next line. A payload
 * of at most SHM_SMALL bytes rides in the record itself, so a small
 * message is one cache line from sender to receiver.
 * The stamp is written last (a release store): the record's position in
 * the ring, which is a multiple of the line, with the kind in its low
 * bits. A stamp that names a position can only have been written for
 * it, as positions never repeat. A record that completes its frame
 * (SHM_WHOLE, SHM_CMA) clears the stamp word where the next record goes
 * before its own stamp is written, so the consumer finds the next record
 * by reading that word alone, without reading `tail`. After a streamed
 * frame (SHM_INLINE: a payload too large to write at once) the next
 * record's line may hold payload bytes of an earlier lap, and the
 * consumer waits for `tail` to cover it.
 */
enum {
    SHM_INLINE = 1, /* the payload follows, as the ring has room: `tail` covers it */
    SHM_CMA = 2,    /* the payload stays in the sender (addr) */
    SHM_WHOLE = 3   /* the payload is in the record (at most SHM_SMALL bytes) or
                       follows it, all written before the stamp */
};
#define SHM_SMALL 8
#define SHM_WHOLE_MAX 4096 /* larger payloads are streamed */
typedef struct shm_rec {
    uint64_t stamp; /* atomic: position | kind */
    union {
        uint64_t addr;                  /* SHM_CMA: the payload's address in the sender */
        unsigned char small[SHM_SMALL]; /* SHM_WHOLE, plen <= SHM_SMALL: the payload */
    } u;
    wmpi_hdr hdr;
} shm_rec;
_Static_assert(sizeof(shm_rec) == SHM_LINE, "a record is one cache line");

typedef struct shm_peer {
    int rank;            /* world rank */
    int on;              /* 1: this pair talks through shared memory */
    int dead;            /* the peer is gone (or its ring broke) */
    pid_t pid;
    int pidfd;           /* readable once the peer exits; -1 */
    int bell;            /* the peer's doorbell (an eventfd); -1 */
    shm_ctl *peer_ctl;   /* the peer's segment, mapped */
    size_t peer_len;
    shm_ring *out;       /* our ring in the peer's segment */
    shm_ring *in;        /* its ring in ours */
    /* sending: frames in order; the head may be partly written */
    wmpi_frame *sq_head, *sq_tail;
    wmpi_frame *cma_head, *cma_tail; /* SHM_CMA records the peer still reads */
    uint64_t head_seen;  /* atomic: out->head as last read */
    uint64_t cleared;    /* a line whose stamp word the last record cleared */
    int in_tx;           /* tx() is running for this peer (re-entry guard) */
    /* receiving */
    int in_payload;
    int rkind;           /* the record's kind (its stamp's low bits) */
    int after_payload;   /* the last record's payload came through the ring */
    shm_rec rrec;
    wmpi_rx rx;
    uint64_t rgot;
    /* single copies: may we read its memory (wmpi_shm_cma_probe)? */
    int cma_probed;
    uint64_t probe_addr, probe_value; /* a word of its and what it holds */
} shm_peer;

struct wmpi_transport {
    int rank, size;
    const wmpi_upcalls *up;
    wmpi_boot *boot;
    shm_peer *peers;     /* [size] */
    int *local;          /* [nlocal]: this host's world ranks, ascending */
    int nlocal, me;      /* me: this rank's index in local[] */
    size_t ring_bytes;
    size_t cma_min;      /* payloads this big go by CMA; SIZE_MAX: none */
    size_t cma_stream;   /* and those this big in a stream; SIZE_MAX: none */
    char *area;          /* every local rank's segment, at its local index */
    size_t area_len, seg_stride; /* seg_stride: seg_len in whole pages */
    shm_ctl *ctl;        /* our segment */
    size_t seg_len;
    int memfd;           /* our segment's fd, closed once peers mapped it */
    int bell;            /* our doorbell: an eventfd */
    int epfd;            /* the pollfd: our doorbell and the peers' pidfds */
    int exited;          /* atomic: a peer's pidfd fired (sleeping saw it) */
    unsigned passes;     /* progress passes, to look for dead peers now and then */
    uint64_t moved;      /* atomic: ring bytes moved either way, ever */
    uint64_t moved_told; /* `moved` when sleeping() last looked */
    uint64_t slots_told; /* our ctl->heard when sleeping() last looked */
};

/* The ring of local index `slot` in the segment at `ctl`. */
static inline shm_ring *wmpi_shm_ring(shm_ctl *ctl, int slot)
{
    size_t stride = sizeof(shm_ring) + (size_t)ctl->ring_bytes;
    return (shm_ring *)((char *)ctl + sizeof(shm_ctl) + (size_t)slot * stride);
}

/* The collective slots of the segment at `ctl` (after its rings). */
static inline wmpi_shm_slot *wmpi_shm_slots(shm_ctl *ctl)
{
    return (wmpi_shm_slot *)wmpi_shm_ring(ctl, (int)ctl->nslots);
}

static inline size_t wmpi_shm_segment_bytes(int nslots, size_t ring_bytes)
{
    return sizeof(shm_ctl) + (size_t)nslots * (sizeof(shm_ring) + ring_bytes) +
           WMPI_SHM_SLOTS * sizeof(wmpi_shm_slot);
}

static inline void wmpi_shm_ring_bell(int fd)
{
    uint64_t one = 1;

    if (write(fd, &one, sizeof one) < 0) {
        /* the counter is saturated: the bell is ringing anyway */
    }
}

/* How many stores to their slots the local peers announced to this rank
 * (shm_slots.c): a thread about to sleep compares it with the count it
 * saw last. Never blocks. */
uint64_t wmpi_shm_slots_heard(struct wmpi_transport *t);

/* Make our segment and doorbell, trade them with the job through the
 * launcher, map the segment of every local peer r with want[r], and agree
 * with each on whether the pair uses shared memory (both sides could map
 * and ring the other); with WEFT_MPI_CMA=<bytes>, also probe whether we
 * may read each peer's memory (wmpi_shm_cma_probe). Collective over the
 * job. Returns 0 (peers[r].on says which pairs) or a
 * negative WEFT_E* code. Blocks: the calling kernel thread. */
int wmpi_shm_setup(struct wmpi_transport *t, const uint8_t *want);

/* Find out once whether we may read p's memory (process_vm_readv of a
 * word it published) and, if so, let p send us payloads by CMA (cma_ok in
 * its ring to us). A probe costs tens of microseconds (the kernel's ptrace
 * check and a page walk in p), so by default it waits for the first
 * payload from p large enough to go by CMA. Never blocks. */
void wmpi_shm_cma_probe(shm_peer *p);

/* Unmap and close everything setup made. */
void wmpi_shm_teardown(struct wmpi_transport *t);

#endif /* WMPI_SHM_H */
