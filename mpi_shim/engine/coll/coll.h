/* The MPI engine's collectives: the interface the bindings (and other
 * engine modules, e.g. communicator creation) call.
 *
 * Every collective exists in two forms:
 *   - blocking: wmpi_coll(kind, args, comm) or the named shortcuts below
 *     (wmpi_bcast, wmpi_allreduce...): runs the collective's schedule in
 *     the calling thread, which alone blocks (ULT or plain pthread);
 *   - nonblocking: wmpi_icoll(kind, args, comm, &req): runs the same
 *     schedule in a user-level thread of its own and completes `req` when
 *     it ends, so the collective progresses while the caller computes.
 * All members of a communicator must start its collectives in the same
 * order (MPI's rule); each call takes the communicator's next collective
 * sequence number, which keeps concurrent collectives on one communicator
 * (several nonblocking ones outstanding) apart on the wire. Collective
 * traffic uses the communicator's context ctx + 1, never point-to-point's.
 *
 * Buffers: sbuf may be WMPI_IN_PLACE where MPI allows MPI_IN_PLACE (the
 * bindings check where). Reductions apply op in rank order, so
 * non-commutative ops give the rank-order result.
 *
 * Errors (all functions): WEFT_EINVAL (a count or displacement overflows,
 * an op undefined on the datatype), WEFT_ENOMEM, and the errors of the
 * messages (-EMSGSIZE: a receive buffer too small for what a peer sent;
 * -ECONNRESET: a lost peer). Blocks: the blocking forms block the caller;
 * wmpi_icoll does not.
 */
#ifndef WMPI_COLL_H
#define WMPI_COLL_H

#include "engine/engine.h"

/* The engine's MPI_IN_PLACE; the bindings check it equals mpi.h's. */
#define WMPI_IN_PLACE ((void *)1)
/* The engine's MPI_ROOT: the root of an intercommunicator collective. */
#define WMPI_ROOT (-4)

enum wmpi_coll_kind {
    WMPI_COLL_BARRIER = 0,
    WMPI_COLL_BCAST,          /* rbuf, rcount, rdt, root */
    WMPI_COLL_REDUCE,         /* sbuf, rbuf, count, dt, op, root */
    WMPI_COLL_ALLREDUCE,      /* sbuf, rbuf, count, dt, op */
    WMPI_COLL_GATHER,         /* sbuf, scount, sdt, rbuf, rcount, rdt, root */
    WMPI_COLL_GATHERV,        /* ... rcounts, rdispls (root) */
    WMPI_COLL_SCATTER,        /* sbuf, scount, sdt, rbuf, rcount, rdt, root */
    WMPI_COLL_SCATTERV,       /* scounts, sdispls (root), ... */
    WMPI_COLL_ALLGATHER,      /* sbuf, scount, sdt, rbuf, rcount, rdt */
    WMPI_COLL_ALLGATHERV,     /* ... rcounts, rdispls */
    WMPI_COLL_ALLTOALL,       /* sbuf, scount, sdt, rbuf, rcount, rdt */
    WMPI_COLL_ALLTOALLV,      /* scounts, sdispls, sdt, rcounts, rdispls, rdt */
    WMPI_COLL_ALLTOALLW,      /* scounts, sdispls (bytes), sdts, r... alike */
    WMPI_COLL_REDUCE_SCATTER_BLOCK, /* sbuf, rbuf, count (per rank), dt, op */
    WMPI_COLL_REDUCE_SCATTER, /* sbuf, rbuf, rcounts, dt, op */
    WMPI_COLL_SCAN,           /* sbuf, rbuf, count, dt, op */
    WMPI_COLL_EXSCAN,         /* sbuf, rbuf, count, dt, op */
    WMPI_COLL_NKINDS
};

/* The arguments of any collective; each kind reads the fields its comment
 * above names. Reductions use `count` and `dt`. Counts and displacements
 * are in elements of the datatype, except alltoallw's (bytes). The arrays
 * and buffers must stay valid until the collective completes. */
typedef struct wmpi_coll_args {
    const void *sbuf;            /* WMPI_IN_PLACE where allowed */
    void *rbuf;
    int scount, rcount;
    wmpi_datatype *sdt, *rdt;
    int count;                   /* reductions */
    wmpi_datatype *dt;           /* reductions */
    const wmpi_op *op;
    int root;
    const int *scounts, *sdispls;
    const int *rcounts, *rdispls;
    wmpi_datatype *const *sdts, *const *rdts; /* alltoallw */
} wmpi_coll_args;

/* Run collective `kind` on c and return when this rank's part is done.
 * Blocks: the calling thread. */
int wmpi_coll(int kind, const wmpi_coll_args *a, wmpi_comm *c);

/* Start collective `kind` on c; *out is a request that completes (with
 * the collective's error in its status) when this rank's part is done.
 * The datatypes and the op are retained until then, c until the request
 * is released. Errors: WEFT_ENOMEM (no request or thread; *out is NULL).
 * Blocks: no. */
int wmpi_icoll(int kind, const wmpi_coll_args *a, wmpi_comm *c,
               wmpi_request **out);

/* Run task(arg) in a thread of its own, as wmpi_icoll runs a schedule:
 * *out completes with its result. For the engine's nonblocking work that
 * is not a schedule (MPI_Comm_idup); the task takes what identities it
 * needs on c (coll_impl.h's wmpi_coll_begin) before this call, and owns
 * arg. Errors: WEFT_ENOMEM, a thread's creation (task never runs; *out
 * NULL). Blocks: no. */
int wmpi_coll_task(wmpi_comm *c, int (*task)(void *arg), void *arg,
                   wmpi_request **out);

/* c is being destroyed: its shared-memory collective slot may pass to
 * the next communicator that takes its context id (coll_shm.c). Never
 * blocks. */
void wmpi_coll_shm_forget(const wmpi_comm *c);

/* Shortcuts for the engine's own users (communicator creation, windows),
 * and the predefined objects they reduce with. */
extern wmpi_datatype wmpi_dt_uint64;
extern wmpi_op wmpi_op_band;
int wmpi_bcast(void *buf, int count, wmpi_datatype *dt, int root, wmpi_comm *c);
/* sbuf == WMPI_IN_PLACE: rbuf holds this rank's contribution. */
int wmpi_allreduce(const void *sbuf, void *rbuf, int count, wmpi_datatype *dt,
                   const wmpi_op *op, wmpi_comm *c);
/* sbuf == WMPI_IN_PLACE: this rank's block is already in place in rbuf. */
int wmpi_allgather(const void *sbuf, int scount, wmpi_datatype *sdt,
                   void *rbuf, int rcount, wmpi_datatype *rdt, wmpi_comm *c);

#endif /* WMPI_COLL_H */
