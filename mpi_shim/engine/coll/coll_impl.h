/* What the collective algorithms (coll_*.c, barrier.c) share: one
 * collective's identity on the wire, point-to-point helpers on the
 * collective context, scratch buffers, local copies and reductions.
 *
 * Tags: a collective's messages carry the tag
 *   (sequence number mod 2^21) << 10 | (step mod 2^10)
 * where the sequence number is taken from the communicator, in call
 * order, when the collective starts, and the step is a round of its
 * schedule. Two collectives outstanding on one communicator thus never
 * match each other's messages (until 2^21 of them are outstanding at
 * once); within one, rounds are apart too, although non-overtaking would
 * already keep them in order. Tags stay in [0, 2^31): never
 * WMPI_ANY_TAG.
 *
 * Not for the bindings: they use coll.h.
 */
#ifndef WMPI_COLL_IMPL_H
#define WMPI_COLL_IMPL_H

#include "engine/coll/coll.h"
#include "engine/core/internal.h"

/* One running collective: its communicator and sequence number. */
typedef struct wmpi_coll_call {
    wmpi_comm *c;
    uint32_t ctx;  /* c->ctx + 1 */
    uint32_t seq;
    int rank, size;
    int step_base; /* added to every step: phases of composite schedules */
    uint32_t lseq; /* intercomm: the sequence number taken on c->local */
} wmpi_coll_call;

/* Take c's next collective sequence number into *k (of an intercomm,
 * its local intracommunicator's too, so that a schedule running later
 * still meets its peers' calls in call order). Lock-free. */
void wmpi_coll_begin(wmpi_coll_call *k, wmpi_comm *c);

/* The identity the call k on an intercommunicator took on its local
 * intracommunicator (coll_inter.c, intercomm.c). */
static inline wmpi_coll_call wmpi_coll_local(const wmpi_coll_call *k)
{
    wmpi_comm *l = k->c->local;

    return (wmpi_coll_call){ .c = l, .ctx = l->ctx + 1, .seq = k->lseq,
                             .rank = l->rank, .size = l->size };
}

static inline int wmpi_coll_tag(const wmpi_coll_call *k, int step)
{
    unsigned st = (unsigned)(k->step_base + step) & 0x3ffu;

    return (int)(((k->seq & 0x1fffffu) << 10) | st);
}

/* The schedules, one per kind (coll_*.c): run this rank's part of the
 * collective; same errors as coll.h. Blocks: the caller. */
typedef int (*wmpi_coll_fn)(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_barrier_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_bcast_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_reduce_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_allreduce_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
/* The blocking barrier, bcast, reduce, allreduce, allgather and alltoall
 * through shared memory where c's ranks all share this host (coll_shm.c):
 * the call's result, or WMPI_COLL_SHM_DECLINED if it must run its message
 * schedule (every member declines alike). Blocks: the caller. */
#define WMPI_COLL_SHM_DECLINED 1
int wmpi_coll_shm_run(int kind, const wmpi_coll_call *k, const wmpi_coll_args *a);
/* MPI_Finalize, before the segments go: forget every slot's users. */
void wmpi_coll_shm_fini(void);

/* A communicator's ranks grouped by shared CPU (coll_cpus.c): group h is
 * ranks [first[h], first[h + 1]), led by first[h]; mine is the caller's. */
#define WMPI_COLL_MAX_GROUPS 64
typedef struct wmpi_coll_groups {
    int n, mine;
    int first[WMPI_COLL_MAX_GROUPS + 1];
} wmpi_coll_groups;
/* Fill g; 0 if the grouping serves (every rank bound to a single CPU,
 * each CPU's ranks consecutive, two groups or more, one of them with two
 * ranks or more), else -1. Every rank of the communicator gets the same
 * answer. Never blocks. */
int wmpi_coll_cpu_groups(const wmpi_coll_call *k, wmpi_coll_groups *g);

/* All of k's ranks as one group led by rank 0 (coll_cpus.c). */
void wmpi_coll_one_group(const wmpi_coll_call *k, wmpi_coll_groups *g);

/* Allreduce of short vectors on small communicators in groups
 * (coll_allreduce_groups.c): by shared CPU where ranks share CPUs, else
 * through rank 0 (wmpi_coll_allreduce_run decides the sizes). */
int wmpi_coll_allreduce_grouped(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_gather_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_gatherv_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_scatter_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_scatterv_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_allgather_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_allgatherv_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_alltoall_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_alltoallv_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_alltoallw_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_reduce_scatter_block_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_reduce_scatter_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_scan_run(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_exscan_run(const wmpi_coll_call *k, const wmpi_coll_args *a);

/* The intercommunicator schedules, by kind (coll_inter.c); NULL where
 * MPI defines no intercommunicator form (scan, exscan). */
extern const wmpi_coll_fn wmpi_coll_inter_schedules[WMPI_COLL_NKINDS];
/* Those that trade with each remote rank directly (coll_inter_direct.c),
 * each serving the plain and the v (and w) forms. */
int wmpi_coll_inter_gather(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_inter_scatter(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_inter_allgather(const wmpi_coll_call *k, const wmpi_coll_args *a);
int wmpi_coll_inter_alltoall(const wmpi_coll_call *k, const wmpi_coll_args *a);

/* ----------------------------------- Rabenseifner's phases (coll_blocks.c) */

/* The p = 2^floor(log2 n) survivors of a pairing step: ranks renumbered
 * from `root` (v = rank - root mod n); pairs (2i, 2i+1), i < rem = n - p,
 * fold into their odd member (keep_odd) or their even one; v >= 2 rem
 * survive as i = v - rem. */
typedef struct wmpi_coll_pairs {
    int n, p, rem, root, keep_odd;
} wmpi_coll_pairs;

void wmpi_coll_pairs_init(wmpi_coll_pairs *s, int n, int root, int keep_odd);
/* The rank of survivor i. */
int wmpi_coll_pairs_rank(const wmpi_coll_pairs *s, int i);
/* The survivor index of `rank`, or -1 if it folds into its partner. */
int wmpi_coll_pairs_index(const wmpi_coll_pairs *s, int rank);
/* The other member of `rank`'s pair, or WMPI_PROC_NULL if unpaired. */
int wmpi_coll_pairs_partner(const wmpi_coll_pairs *s, int rank);

/* Reduce-scatter by recursive halving among the survivors (commutative
 * ops): `acc` holds this survivor's full vector (writable), `in` is a
 * scratch buffer of the same size; afterwards block `me` of acc is the
 * reduction of every survivor's block `me`. Blocks: the caller. */
int wmpi_coll_halving(const wmpi_coll_call *k, const wmpi_coll_args *a, char *acc,
                      char *in, int me, const wmpi_coll_pairs *s);
/* Then collect the blocks into acc: on every survivor (all), or on
 * survivor 0 only. Blocks: the caller. */
int wmpi_coll_block_gather(const wmpi_coll_call *k, const wmpi_coll_args *a, char *acc,
                           int me, const wmpi_coll_pairs *s, int all);

/* ------------------------------------------------ messages (coll_util.c) */

/* A set of requests started together and waited for together. */
typedef struct wmpi_coll_reqs {
    wmpi_request **r;
    int n, cap;
    int err;       /* first error starting one (the rest are skipped) */
    wmpi_request *small[4]; /* storage for cap <= 4 */
} wmpi_coll_reqs;

/* Room for `cap` requests. Errors: WEFT_ENOMEM. */
int wmpi_coll_reqs_init(wmpi_coll_reqs *q, int cap);
/* Start a send / receive of step `step` on the collective context; a
 * peer of WMPI_PROC_NULL or a failed earlier start makes it a no-op.
 * Errors are kept in q->err. Blocks: no. */
void wmpi_coll_isend(wmpi_coll_reqs *q, const wmpi_coll_call *k, int step,
                     const void *buf, int64_t count, wmpi_datatype *dt, int dst);
void wmpi_coll_irecv(wmpi_coll_reqs *q, const wmpi_coll_call *k, int step,
                     void *buf, int64_t count, wmpi_datatype *dt, int src);
/* Wait for every request of q, release them and q's storage. Returns
 * q->err or the first operation's error. Blocks: the caller. */
int wmpi_coll_reqs_wait(wmpi_coll_reqs *q);

/* Send to dst and receive from src at once (either may be
 * WMPI_PROC_NULL), then wait for both. Blocks: the caller. */
int wmpi_coll_sendrecv(const wmpi_coll_call *k, int step,
                       const void *sbuf, int64_t scount, wmpi_datatype *sdt, int dst,
                       void *rbuf, int64_t rcount, wmpi_datatype *rdt, int src);
int wmpi_coll_send(const wmpi_coll_call *k, int step, const void *buf,
                   int64_t count, wmpi_datatype *dt, int dst);
int wmpi_coll_recv(const wmpi_coll_call *k, int step, void *buf, int64_t count,
                   wmpi_datatype *dt, int src);

/* ---------------------------------------------- buffers (coll_util.c) */

/* Address of element `i` of a buffer of dt (i * extent bytes on). */
static inline char *wmpi_coll_at(const void *buf, int64_t i, const wmpi_datatype *dt)
{
    return (char *)buf + i * (int64_t)dt->extent;
}

/* A scratch buffer for `count` elements of dt laid out as in a user
 * buffer; `p` is where element 0 goes. */
typedef struct wmpi_coll_tmp {
    void *base;
    char *p;
    size_t cap; /* bytes at base (coll_scratch.c) */
} wmpi_coll_tmp;

/* Errors: WEFT_ENOMEM, WEFT_EINVAL (size overflows). */
int wmpi_coll_tmp_alloc(wmpi_coll_tmp *t, int64_t count, const wmpi_datatype *dt);
void wmpi_coll_tmp_free(wmpi_coll_tmp *t);

/* coll_scratch.c: a block of at least `bytes` (its real size in *cap), from
 * the cache of large blocks or malloc; NULL when out of memory. */
void *wmpi_scratch_get(size_t bytes, size_t *cap);
/* Give back a block from wmpi_scratch_get (NULL ignored): cached or freed. */
void wmpi_scratch_put(void *p, size_t cap);
/* Free every cached block (MPI_Finalize). */
void wmpi_scratch_drain(void);

/* Copy scount elements of sdt at s into rcount elements of rdt at r
 * (type signatures must agree, as MPI requires). Errors: -EMSGSIZE (the
 * data does not fit), WEFT_ENOMEM. */
int wmpi_coll_copy(const void *s, int64_t scount, wmpi_datatype *sdt,
                   void *r, int64_t rcount, wmpi_datatype *rdt);

/* inout = in op inout, element by element (in is the lower ranks' part).
 * Errors: WEFT_EINVAL (op undefined on dt). */
int wmpi_coll_reduce_local(const wmpi_op *op, const void *in, void *inout,
                           int64_t count, wmpi_datatype *dt);
/* 1 if op may be applied in any order. */
int wmpi_coll_op_commutes(const wmpi_op *op);

/* The byte size from which a collective switches to its long-message
 * algorithm: `dflt`, or WEFT_COLL_LONG (bytes, read once) for every
 * switch at once, so tests can run the long algorithms on short buffers.
 * Every rank must see the same value (mpirun forwards the environment).
 * Lock-free. */
int64_t wmpi_coll_limit(int64_t dflt);

/* Largest power of two <= n (n >= 1). */
static inline int wmpi_coll_pof2(int n)
{
    int p = 1;

    while (p * 2 <= n)
        p *= 2;
    return p;
}

#endif /* WMPI_COLL_IMPL_H */
