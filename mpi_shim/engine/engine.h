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
 * state with one lock (core/lock.h). Blocking functions block only the
 * caller.
 *
 * Layout, one directory per concern:
 *   core/     the engine's life (init.c: MPI_Init, MPI_Finalize) and what
 *             every part shares: the state (state.c, internal.h), the lock,
 *             the fatal-error exit (fatal.c), CPU binding and placement
 *   rma/      one-sided communication: windows, operations, epochs, and
 *             the service thread that applies them at the target (rma.h)
 *   create/   communicators the members agree on: split, create, dup,
 *             intercommunicators, topology constructors, context id votes
 *   coll/     collectives: schedules, blocking and nonblocking runs
 *   p2p/      point-to-point: requests, matching, send/recv protocols,
 *             progress, waiting
 *   objects/  communicators, groups, datatypes, ops, info, attributes,
 *             topologies, context id tables
 * Calls go down this list: init calls into every part, rma into create,
 * coll, p2p and objects, create into coll, p2p and objects, coll into p2p
 * and objects, p2p into objects; the rest of core calls nothing above it.
 * So the files' call graph has no cycle across directories (the largest
 * left, inside p2p/, is request.c, match.c, send.c and bsend.c: completing
 * a request unlinks it from its queue).
 */
#ifndef WMPI_ENGINE_H
#define WMPI_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <weft/errno.h>
#include <weft/thread.h>

#include "engine/core/mark.h"
#include "transport/transport.h"

/* An MPI error code that a user callback returned (generalized
 * requests), carried in the engine's negative-code convention below
 * every -errno and WEFT_ESTATE; the bindings' wbind_error_class() decodes
 * it. MPI_SUCCESS (0) stays 0. */
#define WMPI_EMPI_BASE (-0x100000)
static inline int wmpi_err_from_mpi(int code)
{
    return code > 0 ? WMPI_EMPI_BASE - code : 0;
}
static inline int wmpi_err_is_mpi(int err)
{
    return err <= WMPI_EMPI_BASE;
}

/* Special ranks and tags; the bindings check they equal MPI's. */
#define WMPI_ANY_SOURCE (-1)
#define WMPI_PROC_NULL  (-2)
#define WMPI_ANY_TAG    (-1)
#define WMPI_TAG_UB     0x7fffffff

/* ---------------------------------------------------------------- datatypes */

/* `pack` is unused (always NULL). A message carries its elements packed:
 * count * size bytes, in type-map order, without the gaps the type has in
 * memory (the pair types with a hole, like MPI_DOUBLE_INT, travel without
 * it, as in Open MPI). engine/objects/datatype.h has the layout queries,
 * pack and unpack, and derived types. */
typedef struct wmpi_pack_ops wmpi_pack_ops;
struct wmpi_dtd;

/* What the elements of a predefined type are: the reduction ops choose
 * their kernel by class and size, so every predefined type of a class
 * (C, Fortran or C++ names alike) works with no per-type code. */
enum wmpi_type_class {
    WMPI_TC_NONE = 0, /* no arithmetic: MPI_PACKED, MPI_WCHAR, derived types */
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
    int64_t extent;  /* bytes from one element to the next: ub - lb, which
                      * a resized type may make negative (reversed) */
    int    basic;    /* basic elements per element (2 for pair types) */
    const char *name;
    const wmpi_pack_ops *pack; /* NULL: contiguous */
    uint8_t tclass;  /* enum wmpi_type_class */
    /* WMPI_TC_PAIR: the value's class and size, and the int's offset */
    uint8_t pair_class, pair_value_size, pair_index_offset;
    uint8_t align;   /* alignment of the C type; 0: taken from extent */
    /* NULL for predefined types (so their initialisers leave it out);
     * derived types: their description, private to engine/datatype*.c.
     * For derived types size, extent and name are set by the engine and
     * basic is min(basic elements per element, INT_MAX). */
    struct wmpi_dtd *derived;
    /* private: cached attributes (objects/attr.c), any type; NULL: none */
    struct wmpi_attr *attrs;
} wmpi_datatype;

/* Bytes `count` elements of `dt` occupy on the wire: count * size (the
 * packed size), or WEFT_EINVAL on overflow (negative count, huge count). */
int64_t wmpi_datatype_bytes(const wmpi_datatype *dt, int64_t count);

/* ---------------------------------------------------------------- ops */

/* A user op's function; the same type as MPI_User_function. */
typedef void wmpi_user_fn(void *invec, void *inoutvec, int *len,
                          struct wmpi_datatype **dt);

/* Predefined ops are static objects (id > 0, refs unused); user ops
 * (MPI_Op_create) are malloc'd with id 0. engine/objects/op.h has the
 * interface. */
typedef struct wmpi_op {
    const char *name;
    int id;           /* read-only: enum wmpi_op_id (op.h); 0 = user op */
    int commute;      /* read-only: 1 if commutative */
    uint32_t magic;   /* atomic: WMPI_OP_LIVE while the user's handle is
                         valid (predefined ops: always), WMPI_OP_FREED once
                         MPI_Op_free took it */
    wmpi_user_fn *fn; /* read-only: user ops */
    int refs;         /* private, atomic: user ops: handle + operations */
} wmpi_op;

#define WMPI_OP_LIVE 0x4e45504fu  /* "OPEN" */
#define WMPI_OP_FREED 0x44504f46u /* "FOPD" */

/* 1 if op looks like an op handle the user may use: not NULL, not a small
 * integer or misaligned pointer, not freed (as wmpi_comm_is_live; a freed
 * user op's memory stays ours in the quarantine for a while). */
static inline int wmpi_op_is_live(const wmpi_op *op)
{
    return WMPI_MARKED_LIVE(op, wmpi_op, WMPI_OP_LIVE);
}

/* ----------------------------------------------------------- communicators */

/* A communicator owns two context ids: `ctx` for point-to-point traffic
 * and ctx + 1 for collectives, so the two never match each other. World
 * is 0/1, self 2/3; the others get pairs agreed by their members
 * (engine/create/comm_ctx.c). engine/objects/comm.h has groups, creation,
 * attributes, topologies and intercommunicators. */
typedef struct wmpi_comm {
    uint32_t ctx;      /* read-only */
    int rank;          /* read-only: the caller's rank */
    int size;          /* read-only */
    const int *world;  /* read-only: comm rank -> world rank; NULL = same */
    void *errh;        /* the binding's error handler */
    char name[64];
    uint32_t magic;    /* atomic: WMPI_COMM_LIVE while the user's handle is
                          valid, WMPI_COMM_FREED once MPI_Comm_free took it
                          (past the words malloc reuses when it frees) */
    uint32_t coll_seq; /* atomic: collectives started so far (coll.h) */
    struct wmpi_info *info; /* hints of MPI_Comm_set_info (a copy, owned:
                               wmpi_info_release it on free), or NULL */
    /* creation, groups, attributes, topology: engine/objects/comm.h */
    int refs;              /* private, atomic: the handle + each request */
    int predefined;        /* read-only: world, self: never destroyed */
    int remote_size;       /* read-only: intercomm: remote group's size;
                              0 = intracomm. `world` then maps remote ranks */
    int npairs;            /* private: context id pairs owned from ctx */
    struct wmpi_group *group;  /* read-only: the (local) group */
    struct wmpi_group *remote; /* read-only: intercomm: the remote group */
    struct wmpi_comm *local;   /* private: intercomm: intracomm of the
                                  local group (ctx + 2) */
    struct wmpi_attr *attrs;   /* private: cached attributes (attr.c) */
    struct wmpi_topo *topo;    /* read-only: Cartesian, graph or dist-graph topology, or NULL */
} wmpi_comm;

#define WMPI_COMM_LIVE 0x4d4d4f43u  /* "COMM" */
#define WMPI_COMM_FREED 0x45455246u /* "FREE" */

/* 1 if c is a handle the user may still use: not NULL, not a small
 * integer or misaligned pointer (as (MPI_Comm)1), and not freed. Cheap
 * enough for every call. A destroyed communicator's memory stays ours in
 * the quarantine (engine/objects/quarantine.h) for a while, so a handle
 * used soon after its free reads owned memory; one used much later, or a
 * wild pointer into mapped memory, can still pass or fault: only the
 * common mistakes are caught. */
static inline int wmpi_comm_is_live(const wmpi_comm *c)
{
    return WMPI_MARKED_LIVE(c, wmpi_comm, WMPI_COMM_LIVE);
}

/* How many ranks point-to-point calls on c may name: its size, or for an
 * intercommunicator the remote group's size. */
static inline int wmpi_comm_peers(const wmpi_comm *c)
{
    return c->remote_size ? c->remote_size : c->size;
}

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

/* WMPI_REQ_COLL: a nonblocking collective (engine/coll/coll_run.c). */
/* WMPI_REQ_GREQ: a generalized request (engine/p2p/grequest.h). */
enum wmpi_req_kind { WMPI_REQ_SEND = 1, WMPI_REQ_RECV = 2, WMPI_REQ_COLL = 3,
                     WMPI_REQ_GREQ = 4 };
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
    uint8_t starting;          /* private: inside the call that starts it,
                                  where nobody else can wait for it yet */
    uint8_t state;             /* private: protocol state */
    uint8_t queue;             /* private: which list holds it */
    uint8_t comm_held;         /* private: holds a reference on comm
                                  (start.c), dropped when freed */
    uint32_t magic;            /* atomic: WMPI_REQ_LIVE from creation until
                                  the engine frees it, then WMPI_REQ_FREED */
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
    /* private: the packed form of a non-contiguous datatype's buffer:
     * sends pack into it at start, receives stage the payload in it and
     * unpack; freed at completion (datatype.h). NULL: buf as it is. */
    void *packed;
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
 * request). Lock-free; inline, as every test and every check of a
 * waiter's readiness asks it. */
static inline int wmpi_request_done(wmpi_request *r)
{
    if (r->persistent && !r->active)
        return 1;
    return __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
}

/* 1 if `r` is a real pending-or-complete operation: not NULL and not an
 * inactive persistent request (those count as null in Waitany & co). */
static inline int wmpi_request_live(const wmpi_request *r)
{
    return r && !(r->persistent && !r->active);
}

#define WMPI_REQ_LIVE 0x51455251u  /* "QREQ" */
#define WMPI_REQ_FREED 0x44514552u /* "REQD" */

/* 1 if r (not NULL) looks like a request the engine made and has not
 * freed: not a small integer or misaligned pointer, magic intact. Catches
 * a handle to zeroed or freed memory before a wait on it blocks forever;
 * like wmpi_comm_is_live, it cannot vouch for a wild pointer. */
static inline int wmpi_request_is_valid(const wmpi_request *r)
{
    return WMPI_MARKED_LIVE(r, wmpi_request, WMPI_REQ_LIVE);
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
/* A Test/Iprobe call found nothing: let other threads run (the ones that
 * complete non-blocking collectives), so a polling loop makes progress
 * even without preemption. Blocks: no (yields the CPU once). */
void wmpi_progress_yield(void);

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
