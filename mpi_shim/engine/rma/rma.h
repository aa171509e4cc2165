/* One-sided communication (MPI windows): the engine's interface to the
 * window bindings (binding/win*.c).
 *
 * Design: active messages over the engine's own point-to-point path. A
 * window duplicates its communicator (a private context id, so its
 * traffic never matches the user's messages) and starts one service
 * thread per rank, which waits for requests on that context like any
 * receive: the I/O server detects an incoming request whether or not the
 * target's own threads are inside MPI, wakes the service thread at high
 * priority (preempting a compute thread when every worker computes), and
 * the service thread applies the put, get or accumulate to the window's
 * memory and answers. That is the point: a target that computes still
 * serves gets and puts at once, where an MPI that progresses only inside
 * MPI calls serves them at the target's next call.
 *
 * Every request gets an answer (the data of a get, or an empty
 * acknowledgement) on a tag of its own that the origin posts a receive for
 * before it sends the request; so the origin's epoch ends (fence, unlock,
 * flush) by waiting for its answers, and data fetched lands straight in
 * the origin's buffer, unpacked by the engine for any datatype.
 *
 * One service thread per window applies requests one at a time, in
 * arrival order: accumulates to the same target are atomic per element
 * with respect to each other (and to fetch-and-op, compare-and-swap),
 * and the lock queue needs no lock of its own.
 *
 * Memory model: MPI_WIN_UNIFIED. The service thread writes the window's
 * memory in the target's own address space, so the public and private
 * copies are the same bytes; MPI_Win_sync is a memory fence.
 *
 * Threads: the origin side of a window may be used by several threads at
 * once; its pending list and epoch state sit under the window's lock.
 * Flushes of one window run one at a time, so a flush returns only after
 * every operation started before it completed, whichever thread's flush
 * waited for it.
 */
#ifndef WMPI_RMA_H
#define WMPI_RMA_H

#include <stdint.h>
#include <weft/sync.h>
#include <weft/thread.h>

#include "engine/core/lock.h"
#include "engine/engine.h"

/* MPI's values (the bindings check they agree): the attributes hand out
 * these fields as they are. */
enum wmpi_win_flavor { WMPI_WIN_CREATE = 801, WMPI_WIN_ALLOCATE = 802,
                       WMPI_WIN_DYNAMIC = 803, WMPI_WIN_SHARED = 804 };
#define WMPI_WIN_UNIFIED 902
enum wmpi_win_lock { WMPI_LOCK_SHARED = 1, WMPI_LOCK_EXCLUSIVE = 2 };

/* The origin's record of one operation until its epoch ends (ops.c). */
typedef struct wmpi_rma_op wmpi_rma_op;

/* Memory attached to a dynamic window (MPI_Win_attach). */
typedef struct wmpi_rma_region {
    uintptr_t base;
    int64_t size;
} wmpi_rma_region;

/* A target's lock state and queue (serve.c), touched by its service
 * thread alone. */
typedef struct wmpi_rma_lockq {
    int shared;          /* holders of a shared lock */
    int exclusive;       /* 1 while one origin holds it exclusively */
    struct wmpi_rma_waiting *head, *tail; /* requests not granted yet */
} wmpi_rma_lockq;

typedef struct wmpi_win {
    uint32_t magic;         /* atomic: WMPI_WIN_LIVE until freed */
    wmpi_comm *comm;        /* read-only: the private duplicate */
    void *base;             /* read-only */
    int64_t size;           /* read-only: bytes (MPI_Aint for the attribute) */
    int disp_unit;          /* read-only */
    int flavor;             /* read-only: enum wmpi_win_flavor */
    int model;              /* read-only: WMPI_WIN_UNIFIED */
    int64_t *sizes;         /* read-only: [size] every rank's window bytes */
    int *units;             /* read-only: [size] every rank's disp unit */
    char *shared_map;       /* read-only: SHARED: the segment every rank
                               maps (shared.c); else NULL */
    struct wmpi_rma_cma *cma; /* CREATE: [size] where each rank of this
                               host keeps its window, for single copies
                               (direct.c); else NULL */
    size_t shared_len;      /* read-only: its length */
    int64_t *shared_off;    /* read-only: [size] where each rank's part
                               starts in shared_map */
    void *errh;             /* the binding's error handler (NULL: fatal) */
    int syncs;              /* atomic: fences under ThreadSanitizer (below) */
    char name[64];
    struct wmpi_attr *attrs; /* cached attributes (objects/attr.c) */
    /* origin side, under `lock` */
    wmpi_lock lock;
    wmpi_rma_op *pending;   /* operations whose answer is not awaited yet */
    weft_mutex_t flushing;  /* held while completing operations: a flush
                               that finds the list empty may still have to
                               wait for its own operations, taken off the
                               list by another thread's flush */
    uint32_t next_tag;      /* answer tags handed out so far */
    int inflight;           /* atomic: operations sent, not yet finished */
    int fence;              /* 1 inside a fence epoch */
    int lock_all;           /* 1 between lock_all and unlock_all */
    uint8_t *locked;        /* [size] 0, or WMPI_LOCK_* held on that rank
                               (| 0x80 when taken with MPI_MODE_NOCHECK) */
    int nlocked;            /* ranks in locked[] with a lock */
    uint8_t *started;       /* [size] 1: in the group of MPI_Win_start */
    int *access;            /* the ranks of that group, `naccess` of them */
    int naccess;            /* 0: no access epoch of MPI_Win_start */
    /* exposure epoch of MPI_Win_post (the owner's calls only) */
    wmpi_request **exposed; /* receives of each origin's completion */
    int nexposed;           /* 0: no exposure epoch */
    /* target side */
    wmpi_rma_region *regions; /* dynamic: attached memory, under `lock` */
    int nregions, cap_regions;
    wmpi_rma_lockq lq;      /* service thread only */
    weft_thread_t ult;      /* the service thread, if a ULT */
    void *kthread;          /* else its pthread (malloc'd pthread_t) */
} wmpi_win;

#define WMPI_WIN_LIVE 0x4e49574du  /* "MWIN" */
#define WMPI_WIN_FREED 0x44455246u /* "FRED" */

/* 1 if w looks like a live window handle (as wmpi_comm_is_live). */
static inline int wmpi_win_is_live(const wmpi_win *w)
{
    return WMPI_MARKED_LIVE(w, wmpi_win, WMPI_WIN_LIVE);
}

/* A full memory fence for w's memory (MPI_Win_sync, and the end of an
 * epoch after the origin's own copies, direct.c). ThreadSanitizer does
 * not model fences (GCC refuses them there): a sequentially consistent
 * read-modify-write stands in for it. Never blocks. */
static inline void wmpi_win_memory_fence(wmpi_win *w)
{
#if defined(__SANITIZE_THREAD__)
    __atomic_fetch_add(&w->syncs, 1, __ATOMIC_SEQ_CST);
#else
    (void)w;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/* ------------------------------------------------------------ windows */

/* MPI_Win_create (flavor CREATE: base given), MPI_Win_allocate
 * (ALLOCATE: the engine allocates `size` bytes and returns them in
 * w->base), MPI_Win_allocate_shared (SHARED: the same, in memory every
 * rank maps; -EXDEV if they cannot) and MPI_Win_create_dynamic (DYNAMIC: base NULL, size 0, disp
 * unit 1; memory comes with wmpi_win_attach and displacements are
 * addresses). Collective over c: duplicates it, trades every rank's size
 * and disp unit, starts the service thread.
 * Errors: WEFT_ENOMEM, those of the duplication and the messages.
 * Blocks: the caller. */
int wmpi_win_create(void *base, int64_t size, int disp_unit, int flavor,
                    wmpi_comm *c, wmpi_win **out);

/* MPI_Win_allocate_shared's memory (shared.c), for a window whose shapes
 * were traded: maps one segment holding every rank's part, contiguous in
 * rank order, on every rank, and points w->base at this rank's part.
 * Collective over the window's communicator; a rank with want 0 takes
 * part and makes it fail. Errors: -EXDEV (some rank cannot map it:
 * another host, another user, or want 0; MPI_ERR_RMA_SHARED), WEFT_ENOMEM,
 * those of the messages, the same on every rank. Blocks: the caller. */
int wmpi_win_share(wmpi_win *w, int want);
/* Unmap what wmpi_win_share mapped (nothing: no-op). Never blocks. */
void wmpi_win_unshare(wmpi_win *w);
/* WEFT_MPI_RMA_SHM: 0 makes every put and get a message to the target's
 * service thread (MPI_Win_allocate's memory stays each rank's own, and
 * MPI_Win_create's single copies are off), for comparisons; else 1. */
int wmpi_rma_copies_wanted(void);

/* MPI_Win_create: learn where the ranks of this host keep their windows
 * (pid and base), so puts and gets to them are single copies
 * (process_vm_writev / readv, direct.c). Collective over the window's
 * communicator. Errors: WEFT_ENOMEM, those of the messages.
 * Blocks: the caller. */
int wmpi_rma_cma_setup(wmpi_win *w);

/* Where rank's part of a shared window starts in this process. */
void *wmpi_win_shared_base(const wmpi_win *w, int rank);


/* MPI_Win_attach / detach on a dynamic window: origins may access
 * [base, base + size) from now on / no longer. Errors: WEFT_ENOMEM;
 * detach: -ENOENT (no region starts at base). Blocks: no. */
int wmpi_win_attach(wmpi_win *w, void *base, int64_t size);
int wmpi_win_detach(wmpi_win *w, const void *base);
/* 1 if the bytes [addr, addr + len) lie in one attached region. */
int wmpi_win_attached(wmpi_win *w, uintptr_t addr, int64_t len);

/* MPI_Win_free: completes what this rank started, waits for every rank
 * (so no request is still on its way here), stops the service thread and
 * frees the window (and its memory if allocated). Errors: -EBUSY (a
 * passive-target epoch is still open: MPI_ERR_RMA_SYNC), those of the
 * messages. Blocks: the caller. */
int wmpi_win_free(wmpi_win *w);

/* --------------------------------------------------------- operations */

/* What an operation does at the target (wire values). */
enum wmpi_rma_kind {
    WMPI_RMA_PUT = 1, WMPI_RMA_GET, WMPI_RMA_ACC, WMPI_RMA_GACC,
    WMPI_RMA_CAS, WMPI_RMA_LOCK, WMPI_RMA_UNLOCK, WMPI_RMA_QUIT
};

/* One operation's arguments. Origin data (PUT, ACC, GACC, CAS: the new
 * value) is `obuf`/`ocount`/`odt`; data fetched (GET, GACC, CAS: the old
 * value) goes to `rbuf`/`rcount`/`rdt`; CAS compares with `cbuf` (one
 * element of odt). The target's elements are `tcount` of `tdt` at
 * displacement `tdisp` (in units of the target's disp unit). */
typedef struct wmpi_rma_args {
    int kind;
    const void *obuf; int ocount; wmpi_datatype *odt;
    void *rbuf; int rcount; wmpi_datatype *rdt;
    const void *cbuf;
    int target; int64_t tdisp; int tcount; wmpi_datatype *tdt;
    const wmpi_op *op; /* ACC, GACC: a predefined op or MPI_REPLACE/NO_OP */
    /* request-based operations (MPI_Rput...): *ureq gets the receive of
     * the answer, the user's request; NULL: none */
    wmpi_request **ureq;
} wmpi_rma_args;

/* Start one operation; it completes at the target before the epoch's end
 * (fence, unlock, flush) returns. A request-based one (a->ureq) also
 * completes its request when its answer arrives (the data of a fetch in
 * the result buffer; an acknowledgement of a put or accumulate): the
 * target then answers twice, the user's request first and the window's
 * own receive (which the epoch's end waits for) second, on one ordered
 * channel, so the window's answer implies the user's; it needs a
 * passive-target epoch on the target (-EPROTO otherwise). Checks first: -ERANGE (the target
 * elements leave the target's window: MPI_ERR_RMA_RANGE), -EDOM (a
 * negative displacement: MPI_ERR_DISP), -EPROTO (no epoch gives access
 * to the target: MPI_ERR_RMA_SYNC), -EBADMSG (origin, result and target
 * sizes differ, or an accumulate mixes basic types: MPI_ERR_TYPE),
 * -ENOTSUP (an accumulate on a derived type of pairs at the target),
 * WEFT_ENOMEM.
 * Blocks: no (the request is queued on the transport). */
int wmpi_rma_start(wmpi_win *w, const wmpi_rma_args *a);

/* A put or get on a window every rank maps, done as the origin's own
 * copy (direct.c) once the operation passed its checks: 1 if done, 0 if
 * it must go as a message (other kinds, request-based forms, a window
 * not shared), WEFT_ENOMEM. Blocks: no. */
int wmpi_rma_direct(wmpi_win *w, const wmpi_rma_args *a, const int64_t *run, int64_t nruns,
                    int64_t tbytes);

/* ------------------------------------------------------ synchronisation */

/* MPI_Win_fence: complete this rank's operations, then wait for every
 * rank (a barrier on the window's communicator). Opens an access epoch
 * unless `nosucceed`. Blocks: the caller. */
int wmpi_win_fence(wmpi_win *w, int nosucceed);

/* 1 if a passive-target epoch (lock or lock_all) is open on w. */
int wmpi_win_passive(wmpi_win *w);

/* MPI_Win_lock / unlock on one target (`nocheck`: MPI_MODE_NOCHECK, no
 * lock message). lock waits until the target granted the lock; unlock
 * completes the operations on the target, then releases it. Errors:
 * -EPROTO (already locked / not locked, or inside lock_all).
 * Blocks: the caller. */
int wmpi_win_lock(wmpi_win *w, int type, int rank, int nocheck);
int wmpi_win_unlock(wmpi_win *w, int rank);
/* MPI_Win_lock_all / unlock_all: a shared lock on every rank. */
int wmpi_win_lock_all(wmpi_win *w, int nocheck);
int wmpi_win_unlock_all(wmpi_win *w);

/* MPI_Win_flush (rank >= 0) / flush_all (rank < 0): complete the
 * operations on that target (all targets) at the target. Errors: -EPROTO
 * (no passive-target epoch on it). Blocks: the caller. */
int wmpi_win_flush(wmpi_win *w, int rank);

/* Complete the operations of `w` to `rank` (all if < 0) and report the
 * first error an operation met. Blocks: the caller. */
int wmpi_rma_complete(wmpi_win *w, int rank);

/* Generalized active target (pscw.c). `ranks` are n ranks of the
 * window's group (the binding translated the MPI group).
 * post: expose this rank's window to them; returns at once. start: wait
 * until each of them posted, then open an access epoch to them. complete:
 * complete the epoch's operations at their targets and tell each target.
 * wait: block until every origin of the exposure epoch completed; test:
 * the same without blocking (*flag). Errors: -EPROTO (an epoch of that
 * kind is already open / none is), WEFT_ENOMEM. Blocks: start, complete,
 * wait. */
int wmpi_win_post(wmpi_win *w, const int *ranks, int n);
int wmpi_win_start(wmpi_win *w, const int *ranks, int n);
int wmpi_win_complete(wmpi_win *w);
int wmpi_win_wait(wmpi_win *w);
int wmpi_win_test(wmpi_win *w, int *flag);
/* 1 if an epoch of post or start is open on w. */
int wmpi_win_pscw_open(wmpi_win *w);

/* A fresh answer tag (wrapping past WMPI_TAG_UB; unique among the
 * answers outstanding). Takes the window's lock. */
int wmpi_rma_next_tag(wmpi_win *w);

/* 1 if an epoch gives this rank access to `rank` now; _passive: a lock
 * or lock_all. */
int wmpi_win_has_access(wmpi_win *w, int rank);
int wmpi_win_has_passive(wmpi_win *w, int rank);

/* -------------------------------------------------- target side (serve.c) */

/* Start / stop the service thread of w (stop: after every origin is done;
 * it sends the thread a QUIT request and joins it). */
int wmpi_rma_serve_start(wmpi_win *w);
int wmpi_rma_serve_stop(wmpi_win *w);

/* Tags on the window's communicator: requests to the service thread on
 * WMPI_RMA_TAG_REQ; a target's MPI_Win_post to each origin on
 * WMPI_RMA_TAG_POST, an origin's MPI_Win_complete to each target on
 * WMPI_RMA_TAG_DONE (empty messages, pscw.c); answers on tags from
 * WMPI_RMA_TAG_FIRST. */
#define WMPI_RMA_TAG_REQ 0
#define WMPI_RMA_TAG_POST 1
#define WMPI_RMA_TAG_DONE 2
#define WMPI_RMA_TAG_FIRST 3

/* The request header on the wire; followed by `nruns` (offset, length)
 * pairs of int64_t (the target bytes, relative to the displacement) and
 * `plen` bytes of packed origin data (CAS: the new value then the compare
 * value). */
typedef struct wmpi_rma_hdr {
    int32_t kind, tag;        /* enum wmpi_rma_kind; answer tag */
    int32_t op;               /* enum wmpi_op_id */
    int32_t lock;             /* LOCK: enum wmpi_win_lock */
    int32_t tag2, pad2;       /* request-based: the second answer's tag */
    int64_t disp;             /* bytes from the window's base */
    int64_t nruns, plen;
    /* the basic type of accumulates, for the op kernels */
    uint32_t bsize;
    uint8_t bclass, balign;
    /* pair types (MINLOC/MAXLOC): 1, and the layout; each run is then one
     * element (offset, bytes it spans) and the data bsize bytes of it */
    uint8_t pair, pclass, pvsize, pioff, pad[2];
    int32_t bextent;
} wmpi_rma_hdr;

#endif /* WMPI_RMA_H */
