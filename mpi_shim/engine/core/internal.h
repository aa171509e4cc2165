/* Engine internals shared by the files of mpi_shim/engine/ (not by the
 * bindings: they use engine.h).
 *
 * One engine per process, `wmpi_eng`. Everything in it is guarded by
 * wmpi_eng.lock unless a field says otherwise. Functions named *_locked
 * expect the caller to hold it. Request completion flags and the counters
 * marked "atomic" are also read without the lock, by the I/O server's
 * poll/block callbacks.
 */
#ifndef WMPI_INTERNAL_H
#define WMPI_INTERNAL_H

#include <stdint.h>
#include <weft/io.h>

#include "boot/boot.h"
#include "engine/engine.h"
#include "engine/core/lock.h"

/* --------------------------------------------------------------- protocol */

/* Message types on the wire (wmpi_hdr.type). */
enum wmpi_msg {
    WMPI_MSG_EAGER = 1, /* envelope + whole payload */
    WMPI_MSG_RTS = 2,   /* envelope, size; sreq = sender's request */
    WMPI_MSG_CTS = 3,   /* sreq, rreq; size = receiver's capacity */
    WMPI_MSG_DATA = 4,  /* rreq + payload of a rendezvous */
};

/* Reserved context ids (communicators take pairs from WMPI_CTX_FIRST). */
#define WMPI_CTX_WORLD  0u
#define WMPI_CTX_SELF   2u
#define WMPI_CTX_FINAL  4u /* MPI_Finalize's closing handshake */
#define WMPI_CTX_FIRST  6u

#define WMPI_EAGER_DEFAULT ((size_t)64 * 1024)

/* Request protocol states (wmpi_request.state). */
enum wmpi_state {
    WMPI_ST_IDLE = 0,
    WMPI_ST_POSTED,     /* receive in the posted queue */
    WMPI_ST_SENDING,    /* eager or DATA frame queued on the transport */
    WMPI_ST_RTS,        /* sender: RTS sent, waiting for CTS */
    WMPI_ST_RNDV_RECV,  /* receiver: CTS sent, waiting for DATA */
    WMPI_ST_IN_RX,      /* receiver: payload being read into its buffer */
    WMPI_ST_SELF,       /* sender: parked in the unexpected queue (loopback) */
};

/* Which list holds a request (wmpi_request.queue). */
enum wmpi_queue { WMPI_Q_NONE = 0, WMPI_Q_POSTED, WMPI_Q_RTS, WMPI_Q_RNDV };

/* -------------------------------------------------------------- matching */

/* A message that arrived before its receive was posted. */
typedef struct wmpi_unexp wmpi_unexp;
struct wmpi_unexp {
    wmpi_unexp *next, *prev;
    int src, tag;       /* envelope: comm rank of sender, tag */
    int wsrc;           /* world rank of the sender */
    int kind;           /* WMPI_MSG_EAGER, WMPI_MSG_RTS, or 0 for loopback */
    int64_t bytes;      /* message size */
    uint64_t sreq;      /* RTS: sender's request id */
    wmpi_request *self; /* loopback: the send request (NULL: data copied) */
    size_t room;        /* bytes data[] can hold (unexp.c) */
    unsigned char data[]; /* EAGER / copied loopback payload */
};

/* A record with room for `data` payload bytes, its other fields zero;
 * NULL when memory runs out. Any context; never blocks. */
wmpi_unexp *wmpi_unexp_new(size_t data);
/* Free u (NULL-safe), or keep it as a spare if its room is a spare size. */
void wmpi_unexp_free(wmpi_unexp *u);
/* Free the spares (MPI_Finalize). */
void wmpi_unexp_spares_drain(void);

typedef struct wmpi_list {
    void *head, *tail;
} wmpi_list;

/* Posted receives and unexpected messages of one context id. */
typedef struct wmpi_mq {
    wmpi_list posted; /* of wmpi_request, in posting order */
    wmpi_list unexp;  /* of wmpi_unexp, in arrival order */
} wmpi_mq;

/* The queues of context `ctx`, created on first use (a message may arrive
 * for a communicator this rank has not created yet). NULL: no memory. */
wmpi_mq *wmpi_mq_get_locked(uint32_t ctx);

/* Does the envelope (src, tag) satisfy the pattern (psrc, ptag)? */
static inline int wmpi_match(int psrc, int ptag, int src, int tag)
{
    return (psrc == WMPI_ANY_SOURCE || psrc == src) &&
           (ptag == WMPI_ANY_TAG || ptag == tag);
}

/* First posted receive of mq matching (src, tag), unlinked; or NULL. */
wmpi_request *wmpi_mq_take_posted_locked(wmpi_mq *mq, int src, int tag);
/* First unexpected message matching (src, tag); unlinked if `take`. */
wmpi_unexp *wmpi_mq_find_unexp_locked(wmpi_mq *mq, int src, int tag, int take);
void wmpi_mq_post_locked(wmpi_mq *mq, wmpi_request *r);
void wmpi_mq_add_unexp_locked(wmpi_mq *mq, wmpi_unexp *u);
/* Cancel support: unlink `r` if it is still posted; 1 if it was. */
int wmpi_mq_unpost_locked(wmpi_request *r);
/* Fail every posted receive that `peer`'s loss leaves unmatchable. */
void wmpi_mq_fail_peer_locked(int wpeer, int err);

/* Intrusive doubly-linked lists (request and unexpected entries start
 * with next/prev). */
void wmpi_list_push(wmpi_list *l, void *item);
void wmpi_list_unlink(wmpi_list *l, void *item);

/* ---------------------------------------------------------------- peers */

typedef struct wmpi_peer {
    int lost;         /* the connection broke (err in lost_err) */
    int lost_err;
    int bye;          /* it sent its closing message (MPI_Finalize) */
    wmpi_list rts;    /* our sends waiting for its CTS */
    wmpi_list rndv;   /* our receives waiting for its DATA */
} wmpi_peer;

/* ---------------------------------------------------------------- waiting */

/* What a blocked thread waits for (the `arg` of weft_io_wait). */
enum wmpi_wait_kind { WMPI_WAIT_REQS = 1, WMPI_WAIT_COND = 2 };

typedef struct wmpi_waiter {
    int kind;
    wmpi_request **reqs; /* REQS: the set (NULL entries skipped) */
    int n, need;         /* REQS: ready once `need` are done */
    int (*cond)(void *); /* COND: ready when cond(arg); lock-free */
    void *arg;
} wmpi_waiter;

/* Block the calling thread until `w` is ready: the one place where the
 * engine waits (weft_io_wait on the engine's I/O handle). */
int wmpi_block(wmpi_waiter *w);
/* A COND for probes: true once wmpi_eng.arrivals differs from the
 * uint64_t *seen (read before the last search). Lock-free. */
int wmpi_arrivals_changed(void *seen);
int wmpi_waiter_ready(const wmpi_waiter *w);

/* Read and write what the transport can (about `budget` bytes per peer
 * and direction), deliver, match. */
void wmpi_progress_locked(size_t budget);
#define WMPI_BUDGET_POLL   ((size_t)64 * 1024)   /* at a safe point: short */
#define WMPI_BUDGET_THREAD ((size_t)1024 * 1024) /* on a thread of its own */
/* Progress passes a waiter runs itself before it parks (wmpi_block): a
 * reply on shared memory comes within a few hundred nanoseconds, less
 * than the switches to the idle loop and back. */
#define WMPI_WAIT_SPINS 64

int wmpi_io_start(void);
void wmpi_io_stop(void);

/* MPI_Init, after the boot: learn which ranks share a single CPU
 * (placement.c). Returns 0 or as wmpi_boot_allgather. Blocks: yes. */
int wmpi_placement_init(wmpi_boot *b);
/* The CPU slot of a world rank: equal for ranks bound to the same single
 * CPU of one host, -1 for a rank not bound to a single CPU. Never blocks. */
int wmpi_placement_slot(int world_rank);
/* Forget the table (MPI_Finalize, or a failed init). */
void wmpi_placement_fini(void);

/* Before Weft starts (MPI_Init): bind this process to its local rank's
 * share of the CPUs (bind.c; WEFT_MPI_BIND). Returns 1 if this host's
 * ranks outnumber the CPUs (they then share them), else 0. Never blocks. */
int wmpi_bind_local_rank(void);

/* ---------------------------------------------------------------- engine */

/* The transports and which carries frames to each peer (route.c). */
typedef struct wmpi_route {
    struct {
        const struct wmpi_transport_ops *ops;
        wmpi_transport *tp;
    } tr[2];
    int n;          /* transports in tr[] */
    uint8_t *peer;  /* [size]: index into tr[], 0xff for self */
    int pollfd;     /* what the I/O server watches */
    int own_epfd;   /* the epoll set joining two transports, or -1 */
} wmpi_route;

/* MPI_Init: create the transports (WEFT_MPI_TRANSPORT: auto, shm, tcp)
 * and route every peer to one. Collective. Returns 0 or a negative WEFT_E*
 * code with a message on stderr. Blocks: yes. */
int wmpi_route_create(void);
/* MPI_Finalize (or a failed init): close the transports. */
void wmpi_route_destroy(void);
/* The fd the I/O server watches (-1 before create). Never blocks. */
int wmpi_route_pollfd(void);
/* The transports' sleeping ops (transport.h); 1 if one has work. Called
 * without the engine lock. Never blocks. */
int wmpi_route_sleeping(int asleep);
/* The shared-memory transport, for its collective slots (shm_slots.h);
 * NULL if this rank has none. Never blocks. */
wmpi_transport *wmpi_route_shm(void);
/* "shm", "tcp" or "self": which transport carries frames to world rank
 * `peer` (for error messages). Never blocks. */
const char *wmpi_route_name(int peer);
/* Where the transport reaches `peer` (an address), or NULL. */
const char *wmpi_route_where(int peer);
/* MPI_Finalize has begun (the transports' finishing op). Under the engine
 * lock. Never blocks. */
void wmpi_route_finishing(void);
/* 1 if frames went or go between this rank and world rank `peer` (its
 * transport's linked op): MPI_Finalize trades closing messages with those
 * only. Under the engine lock. Never blocks. */
int wmpi_route_linked(int peer);

typedef struct wmpi_engine {
    wmpi_lock lock;
    wmpi_boot boot;
    int rank, size;              /* in the world */
    size_t eager_limit;
    wmpi_peer *peers;            /* [size] */
    wmpi_route route;
    wmpi_mq **mq;                /* [nmq], by context id */
    uint32_t nmq;
    /* atomic counters read by waiters without the lock */
    uint64_t arrivals;           /* unexpected messages queued (and peers
                                    lost) so far: MPI_Probe waits on it */
    int orphans;                 /* freed or buffered sends in flight */
    int kick_pending;            /* a kick is owed when the lock is released */
    /* waiting */
    weft_io_t io;
    /* buffered sends (bsend.c) */
    void *battach;
    size_t bsize;
    void *bused;                 /* list of blocks in use, by address */
} wmpi_engine;

extern wmpi_engine wmpi_eng;

/* Something a blocked thread may wait for happened outside the
 * transport's fd (weft_io_kick): wake the thread asleep in the I/O
 * server's poll set, if any. Inline, beside the handle it uses. */
static inline void wmpi_kick(void) { weft_io_kick(wmpi_eng.io); }

/* The same, from under the engine lock: one kick when the lock is
 * released serves every completion and arrival of that critical section
 * (a kick is a full fence; a progress pass may complete dozens). */
static inline void wmpi_kick_locked(void) { wmpi_eng.kick_pending = 1; }

static inline void wmpi_lock_engine(void) { wmpi_lock_take(&wmpi_eng.lock); }

static inline void wmpi_unlock_engine(void)
{
    int kick = wmpi_eng.kick_pending;

    wmpi_eng.kick_pending = 0;
    wmpi_lock_release(&wmpi_eng.lock);
    if (kick)
        wmpi_kick();
}

/* ----------------------------------------------------- requests (request.c) */

/* A zeroed request of `kind`, from the spares when there are; NULL when
 * out of memory. */
wmpi_request *wmpi_request_new(int kind);
/* MPI_Finalize: free the spare requests. */
void wmpi_request_spares_drain(void);
/* Finish `r` with `err` (0 or WEFT_E*): status error, unlink, mark
 * complete (or free it if the user already freed it), wake waiters.
 * The engine must not touch r afterwards. */
void wmpi_request_complete_locked(wmpi_request *r, int err);
/* The request with id `id` in list l (a peer's rts/rndv), unlinked. */
wmpi_request *wmpi_request_take_id(wmpi_list *l, uint64_t id);

static inline uint64_t wmpi_request_id(const wmpi_request *r)
{
    return (uint64_t)(uintptr_t)r;
}

/* ------------------------------------------------ protocol (send.c, recv.c) */

/* Start a send / receive request that is fully described. */
void wmpi_send_start_locked(wmpi_request *r);
void wmpi_recv_start_locked(wmpi_request *r);
/* A receive matched a message: deliver it (copy, or CTS for an RTS). */
void wmpi_recv_matched_locked(wmpi_request *r, wmpi_unexp *u);
/* CTS from `peer` for our request `sreq`: send the data. */
void wmpi_send_cts_locked(int peer, const wmpi_hdr *h);
/* Hand a frame to the transport of world rank `peer`. */
int wmpi_frame_send_locked(int peer, wmpi_frame *f);
/* Loopback: deliver send `s` to a receive posted on this rank. */
void wmpi_self_deliver_locked(wmpi_request *s, wmpi_request *r);
/* Upcalls from the transports (recv.c). */
extern const wmpi_upcalls wmpi_upcalls_engine;
/* A peer broke: fail what it leaves pending (peer.c). */
void wmpi_peer_lost_locked(int peer, int err);
/* The error a receive from `src` (a comm rank or WMPI_ANY_SOURCE) of `c`
 * gets because of a lost peer, or 0. */
int wmpi_peer_err_locked(const wmpi_comm *c, int src);

/* --------------------------------------------------------- bsend.c */

/* Copy a buffered send into the attached buffer and start it as an
 * engine-owned request. Errors: WEFT_ENOMEM (-ENOBUFS: no room). */
int wmpi_bsend_start_locked(wmpi_request *user);
/* Give a block back (the engine-owned send of it completed). */
void wmpi_bsend_release_locked(void *block);

/* ---------------------------------------------------- start.c, comm.c */

/* wmpi_isend / wmpi_irecv on an explicit context id (collectives use the
 * communicator's ctx + 1). */
int wmpi_isend_ctx(const void *buf, int count, wmpi_datatype *dt, int dest,
                   int tag, wmpi_comm *c, uint32_t ctx, int mode,
                   wmpi_request **out);
int wmpi_irecv_ctx(void *buf, int count, wmpi_datatype *dt, int src, int tag,
                   wmpi_comm *c, uint32_t ctx, wmpi_request **out);

void wmpi_comms_init(int rank, int size);
extern wmpi_comm wmpi_comm_final; /* MPI_Finalize's closing handshake */
extern wmpi_datatype wmpi_dt_byte;

/* ---------------------------------------------------- objects/ctx.c */

/* The context id pairs one rank can hand out, and its bitmap's words. The
 * first WMPI_CTX_EAGER_WORDS words are the eager segment (an allocation's
 * first round), the rest the main one (its later rounds). */
#define WMPI_CTX_NPAIRS 2048
#define WMPI_CTX_NWORDS (WMPI_CTX_NPAIRS / 64)
#define WMPI_CTX_EAGER_WORDS 4

/* Bits of a vote's flag word (word WMPI_CTX_NWORDS): the segments the
 * voter offers. ANDed over the members, they say which segments every
 * member offered. */
enum { WMPI_CTX_HOLD_EAGER = 1, WMPI_CTX_HOLD_MAIN = 2 };

/* One allocation on this rank, on its caller's stack. `key` orders the
 * allocations past their first round (lowest may hold the main segment).
 * Private to objects/ctx.c but `key`. */
typedef struct wmpi_ctx_pending {
    struct wmpi_ctx_pending *next;
    uint64_t key;
    int rounds;      /* rounds settled so far */
    unsigned held;   /* WMPI_CTX_HOLD_* this round holds */
    int listed;      /* in the pending list */
} wmpi_ctx_pending;

/* Fill this rank's vote v (WMPI_CTX_NWORDS + 1 words) for me's next
 * round: the free pairs of the segments me may hold now, zeros elsewhere,
 * and the flag word. A first round may hold the eager segment if no other
 * round holds it; a later round the main segment (and the eager one, if
 * free) if no other round holds it and no listed allocation has a lower
 * key. */
void wmpi_ctx_vote(wmpi_ctx_pending *me, uint64_t *v);
/* After a vote with the members' AND in result: take the agreed npairs
 * if the result has them, and give up what me held. Returns the first
 * pair, -1 to vote again (a first round then lists me), or -ENOSPC (every
 * member offered both segments, no run of npairs free on all); but for -1,
 * me leaves the list. */
int wmpi_ctx_settle(wmpi_ctx_pending *me, const uint64_t *result, int npairs);
/* Take me out of the pending list (if it is in). */
void wmpi_ctx_pending_remove(wmpi_ctx_pending *me);

/* ------------------------------------------------------------- fatal.c */

/* Stop the whole job through the launcher with a formatted message: a
 * broken invariant or an impossible allocation. Context: any. */
void wmpi_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* The boot connection abort reports through, or NULL (none yet, or
 * closing). Context: init and finalize. */
void wmpi_abort_set_boot(wmpi_boot *b);

#endif /* WMPI_INTERNAL_H */
