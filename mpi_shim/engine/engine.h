/* The MPI engine's interface to the bindings (mpi_shim/binding/).
 *
 * The engine implements MPI's semantics with its own names (wmpi_) and
 * Weft's error convention: functions return 0 or a negative WEFT_E* code
 * (-errno where one exists; e.g. -EMSGSIZE for a truncated receive,
 * -ECONNRESET for a lost peer). Bindings check MPI parameters, call these,
 * and map codes to MPI error classes.
 *
 * Objects: communicators, datatypes, ops and requests are the structs that
 * mpi.h's handles point to. Predefined ones are static objects in the
 * engine; the others are malloc'd.
 *
 * Threads: every function may be called from any user-level thread or
 * plain pthread at once (MPI_THREAD_MULTIPLE); the engine serialises its
 * state with one lock (lock.h). Blocking functions block only the caller.
 */
#ifndef WMPI_ENGINE_H
#define WMPI_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <weft/errno.h>
#include <weft/thread.h>

#include "transport/transport.h"

/* Special ranks and tags; the bindings check they equal MPI's. */
#define WMPI_ANY_SOURCE (-1)
#define WMPI_PROC_NULL  (-2)
#define WMPI_ANY_TAG    (-1)
#define WMPI_TAG_UB     0x7fffffff

/* ---------------------------------------------------------------- datatypes */

/* Derived datatypes (next issue) fill `pack`; NULL means the data is
 * count * extent contiguous bytes, which is how every predefined type
 * travels (the pair types with their padding: homogeneous ranks). */
typedef struct wmpi_pack_ops wmpi_pack_ops;

/* What the elements of a predefined type are: the reduction ops choose
 * their kernel by class and size, so every predefined type of a class
 * (C, Fortran or C++ names alike) works with no per-type code. */
enum wmpi_type_class {
    WMPI_TC_NONE = 0, /* no arithmetic: MPI_CHAR, MPI_PACKED, derived types */
    WMPI_TC_INT,      /* signed integer */
    WMPI_TC_UINT,     /* unsigned integer */
    WMPI_TC_FLOAT,    /* real floating point */
    WMPI_TC_COMPLEX,  /* complex floating point (size = both parts) */
    WMPI_TC_BOOL,     /* logical: C _Bool (size 1) or Fortran LOGICAL */
    WMPI_TC_BYTE,     /* MPI_BYTE: bitwise ops only */
    WMPI_TC_PAIR,     /* value-index pair of MINLOC/MAXLOC */
};

typedef struct wmpi_datatype {
    size_t size;     /* bytes of data per element (MPI_Type_size) */
    size_t extent;   /* bytes one element spans in memory */
    int    basic;    /* basic elements per element (2 for pair types) */
    const char *name;
    const wmpi_pack_ops *pack; /* NULL: contiguous */
    uint8_t tclass;  /* enum wmpi_type_class */
    /* WMPI_TC_PAIR: the value's class and size, and the int's offset */
    uint8_t pair_class, pair_value_size, pair_index_offset;
} wmpi_datatype;

/* Bytes `count` elements of `dt` occupy on the wire, or WEFT_EINVAL on
 * overflow (negative count, huge count). */
int64_t wmpi_datatype_bytes(const wmpi_datatype *dt, int64_t count);

/* ---------------------------------------------------------------- ops */

typedef struct wmpi_op {
    const char *name;
    int id;
} wmpi_op;

/* ----------------------------------------------------------- communicators */

/* A communicator owns two context ids: `ctx` for point-to-point traffic
 * and ctx + 1 for collectives, so the two never match each other. World
 * is 0/1, self 2/3; communicator creation (next issue) allocates more in
 * pairs. */
typedef struct wmpi_comm {
    uint32_t ctx;      /* read-only */
    int rank;          /* read-only: the caller's rank */
    int size;          /* read-only */
    const int *world;  /* read-only: comm rank -> world rank; NULL = same */
    void *errh;        /* the binding's error handler */
    char name[64];
} wmpi_comm;

static inline int wmpi_comm_world_rank(const wmpi_comm *c, int r)
{
    return c->world ? c->world[r] : r;
}

/* ---------------------------------------------------------------- requests */

typedef struct wmpi_status {
    int source;     /* rank in the communicator */
    int tag;
    int error;      /* 0 or WEFT_E* */
    int cancelled;
    int64_t bytes;  /* bytes received (sent, for sends) */
} wmpi_status;

enum wmpi_req_kind { WMPI_REQ_SEND = 1, WMPI_REQ_RECV = 2 };
enum wmpi_send_mode {
    WMPI_MODE_STANDARD = 0,
    WMPI_MODE_SYNC = 1,     /* completes after the receive matched */
    WMPI_MODE_READY = 2,    /* as standard */
    WMPI_MODE_BUFFERED = 3, /* copied into the attached buffer */
};

typedef struct wmpi_request wmpi_request;
struct wmpi_request {
    wmpi_request *next, *prev; /* private: one queue at a time */
    int complete;              /* atomic: 1 when the engine is done */
    uint8_t kind, mode;        /* read-only */
    uint8_t persistent;        /* read-only */
    uint8_t active;            /* persistent: started, not yet finished */
    uint8_t freed;             /* private: user freed it while active */
    uint8_t state;             /* private: protocol state */
    uint8_t queue;             /* private: which list holds it */
    /* the operation */
    void *buf;
    int count;
    wmpi_datatype *dt;
    wmpi_comm *comm;
    uint32_t ctx;
    int peer;                  /* comm rank, WMPI_ANY_SOURCE or PROC_NULL */
    int tag;
    int64_t bytes;             /* message size (send) or capacity (recv) */
    /* the result */
    wmpi_status st;
    /* protocol */
    int wpeer;                 /* world rank of the partner once known */
    int64_t msgsize;           /* receive: size of the matched message */
    wmpi_frame frame;          /* EAGER / RTS / DATA (send), CTS (recv) */
    void *bsend;               /* block in the attached buffer */
};

/* Start a send or receive; *out is the new request (already complete for
 * PROC_NULL). Buffered sends copy now and return a complete request.
 * Errors: WEFT_EINVAL (count * extent overflows), WEFT_ENOMEM; failures of
 * the operation itself (lost peer, truncation) complete the request with
 * the error in its status instead. Blocks: no. */
int wmpi_isend(const void *buf, int count, wmpi_datatype *dt, int dest,
               int tag, wmpi_comm *c, int mode, wmpi_request **out);
int wmpi_irecv(void *buf, int count, wmpi_datatype *dt, int src, int tag,
               wmpi_comm *c, wmpi_request **out);

/* Persistent requests: created inactive, started by wmpi_start (errors:
 * WEFT_EBUSY if r is not an inactive persistent request). */
int wmpi_send_init(const void *buf, int count, wmpi_datatype *dt, int dest,
                   int tag, wmpi_comm *c, int mode, wmpi_request **out);
int wmpi_recv_init(void *buf, int count, wmpi_datatype *dt, int src,
                   int tag, wmpi_comm *c, wmpi_request **out);
int wmpi_start(wmpi_request *r);

/* 1 if `r` needs no more waiting (complete, or an inactive persistent
 * request). Lock-free. */
int wmpi_request_done(wmpi_request *r);

/* 1 if `r` is a real pending-or-complete operation: not NULL and not an
 * inactive persistent request (those count as null in Waitany & co). */
static inline int wmpi_request_live(const wmpi_request *r)
{
    return r && !(r->persistent && !r->active);
}

/* For a done request: copy its status to *st (may be NULL) and release it
 * (a persistent one becomes inactive instead). Returns 1 if it was freed. */
int wmpi_request_finish(wmpi_request *r, wmpi_status *st);

/* Status of a done request without releasing it. */
void wmpi_request_peek(wmpi_request *r, wmpi_status *st);

/* MPI_Request_free: release now, or when the engine completes it. */
void wmpi_request_free(wmpi_request *r);

/* MPI_Cancel: a receive still waiting for a match completes as cancelled;
 * anything else is left alone (a cancel may fail, says MPI). */
void wmpi_cancel(wmpi_request *r);

/* Block the caller until at least `need` of the n requests are done
 * (entries that are not live are skipped; need is capped at the live
 * count). */
int wmpi_wait_requests(wmpi_request **reqs, int n, int need);

/* Run the progress engine once (for the Test functions). */
void wmpi_progress_poke(void);

/* ------------------------------------------------------------------ probe */

/* Look for a matching message that arrived; *flag 1 and *st filled if so.
 * wmpi_probe blocks until one arrives. Errors: -ECONNRESET (the source, or
 * with WMPI_ANY_SOURCE a member of c, was lost), WEFT_ENOMEM. */
int wmpi_iprobe(int src, int tag, wmpi_comm *c, int *flag, wmpi_status *st);
int wmpi_probe(int src, int tag, wmpi_comm *c, wmpi_status *st);

/* ------------------------------------------------------- buffered sends */

/* Attach the buffer MPI_Bsend copies into. Errors: WEFT_EBUSY (a buffer
 * is attached already). */
int wmpi_buffer_attach(void *buf, size_t size);
/* Block until every buffered message has been written, then detach and
 * return the buffer (NULL and 0 if none was attached). Errors: those of
 * wmpi_block. */
int wmpi_buffer_detach(void **buf, size_t *size);

/* ------------------------------------------------------------ collectives */

/* Block until every member of c entered the barrier. Errors: those of
 * the messages (a lost peer). */
int wmpi_barrier(wmpi_comm *c);

/* -------------------------------------------------------- process life */

typedef struct wmpi_env {
    int initialized;   /* MPI_Init done */
    int finalized;     /* MPI_Finalize done */
    int thread_level;  /* provided */
    weft_thread_t main_thread; /* the ULT that called MPI_Init */
} wmpi_env;

extern wmpi_env wmpi_state;

/* Start the runtime (weft_init if needed), bootstrap, connect, create
 * world and self, register with the I/O server. Errors: those of
 * weft_init, wmpi_boot_init and the transport (a peer that never
 * connected: WEFT_ETIMEDOUT). Blocks: the calling kernel thread, once. */
int wmpi_init(int required, int *provided);
/* Drain engine-owned sends, trade closing messages with every peer, close
 * everything; stops Weft if wmpi_init started it. Blocks: the caller. */
int wmpi_finalize(void);
/* Stop the whole job through the launcher, printing msg. Context: any. */
_Noreturn void wmpi_abort(int code, const char *msg);
int wmpi_world_rank(void);

/* Predefined objects (definitions in the engine). */
extern wmpi_comm wmpi_comm_world, wmpi_comm_self;

#endif /* WMPI_ENGINE_H */
