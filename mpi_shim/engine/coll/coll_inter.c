/* Intercommunicator collectives: the schedules wmpi_coll and wmpi_icoll
 * run when the communicator is an intercommunicator (MPI-3.1 5.2.2); the
 * ones that trade directly with every remote rank: coll_inter_direct.c.
 *
 * Design (MPICH's): an intercommunicator collective is collectives of
 * each group on its local intracommunicator (c->local) joined by messages
 * across, on the intercommunicator's collective context. The call takes
 * one sequence number on each (wmpi_coll_begin), so a nonblocking one
 * running later still meets its peers' calls in call order; the local
 * phases run the intracommunicator schedules directly under the local
 * identity (wmpi_coll_local), phases apart by their step base. Point-to-
 * point ranks of an intercommunicator name the remote group, so a
 * message "to r" here goes to remote rank r.
 *   rooted (bcast, reduce, gather(v), scatter(v)): the root passes
 *     WMPI_ROOT, the rest of its group WMPI_PROC_NULL (they do nothing),
 *     the other group the root's rank. Bcast and reduce go through the
 *     other group's leader and a local bcast or reduce; the v-forms and
 *     gather/scatter go straight between the root and each remote rank
 *     (the root's layout is per remote rank anyway).
 *   barrier, allreduce, reduce_scatter(_block): each group combines at
 *     its leader (local rank 0), the leaders swap, each leader spreads
 *     the other group's result in its own group.
 *   allgather(v), alltoall(v,w): every rank trades with every remote
 *     rank directly, as their buffers are laid out per remote rank.
 * Scan and exscan have no intercommunicator form (NULL).
 *
 * Rejected: leader-based gather and allgather (one less message per rank
 * for a copy of the whole group's data at each leader; the direct forms
 * are simpler and our groups are small).
 * Invariants: every rank of both groups runs the same phases in the same
 * order for one call. Locking: none (messages lock).
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

#define PHASE2 512 /* step base of a schedule's second local phase */

static wmpi_coll_call local_phase(const wmpi_coll_call *k, int base)
{
    wmpi_coll_call kl = wmpi_coll_local(k);

    kl.step_base = base;
    return kl;
}

/* ---------------------------------------------------------------- barrier */

static int barrier(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    wmpi_coll_call k1 = local_phase(k, 0), k2 = local_phase(k, PHASE2);
    char none = 0;
    int err = wmpi_coll_barrier_run(&k1, a);

    /* the leaders meet once their groups are in; the second local
     * barrier holds everyone until their leader is back */
    if (!err && k->rank == 0)
        err = wmpi_coll_sendrecv(k, 0, &none, 0, &wmpi_dt_byte, 0, &none, 0,
                                 &wmpi_dt_byte, 0);
    return err ? err : wmpi_coll_barrier_run(&k2, a);
}

/* ----------------------------------------------------------- bcast, reduce */

static int bcast(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    wmpi_coll_call kl = local_phase(k, 0);
    wmpi_coll_args la = *a;
    int err = 0;

    if (a->root == WMPI_ROOT)
        return wmpi_coll_send(k, 0, a->rbuf, a->rcount, a->rdt, 0);
    if (a->root == WMPI_PROC_NULL)
        return 0;
    if (k->rank == 0)
        err = wmpi_coll_recv(k, 0, a->rbuf, a->rcount, a->rdt, a->root);
    la.root = 0;
    return err ? err : wmpi_coll_bcast_run(&kl, &la);
}

/* This group's reduction of a's send buffers (count elements) into t at
 * the leader. */
static int reduce_to_leader(const wmpi_coll_call *k, const wmpi_coll_args *a,
                            int64_t count, wmpi_coll_tmp *t)
{
    wmpi_coll_call kl = local_phase(k, 0);
    wmpi_coll_args la = { .sbuf = a->sbuf, .count = (int)count, .dt = a->dt,
                          .op = a->op, .root = 0 };
    int err;

    t->base = NULL;
    if (k->rank == 0 && (err = wmpi_coll_tmp_alloc(t, count, a->dt)))
        return err;
    la.rbuf = k->rank == 0 ? t->p : NULL;
    err = wmpi_coll_reduce_run(&kl, &la);
    if (err && k->rank == 0)
        wmpi_coll_tmp_free(t);
    return err;
}

static int reduce(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    wmpi_coll_tmp t;
    int err;

    if (a->root == WMPI_ROOT)
        return wmpi_coll_recv(k, 0, a->rbuf, a->count, a->dt, 0);
    if (a->root == WMPI_PROC_NULL)
        return 0;
    err = reduce_to_leader(k, a, a->count, &t);
    if (err || k->rank != 0)
        return err;
    err = wmpi_coll_send(k, 0, t.p, a->count, a->dt, a->root);
    wmpi_coll_tmp_free(&t);
    return err;
}

/* ------------------------------------------- allreduce, reduce_scatter */

/* Reduce `count` elements of a's send buffers in each group, swap the
 * results between the leaders; the leader's *out is the other group's
 * (to free with wmpi_coll_tmp_free). */
static int reduce_and_swap(const wmpi_coll_call *k, const wmpi_coll_args *a,
                           int64_t count, wmpi_coll_tmp *out)
{
    wmpi_coll_tmp mine;
    int err = reduce_to_leader(k, a, count, &mine);

    out->base = NULL;
    if (err || k->rank != 0)
        return err;
    err = wmpi_coll_tmp_alloc(out, count, a->dt);
    if (!err)
        err = wmpi_coll_sendrecv(k, 0, mine.p, count, a->dt, 0, out->p, count,
                                 a->dt, 0);
    wmpi_coll_tmp_free(&mine);
    if (err)
        wmpi_coll_tmp_free(out);
    return err;
}

static int allreduce(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    wmpi_coll_call kl = local_phase(k, PHASE2);
    wmpi_coll_args la = { .rbuf = a->rbuf, .rcount = a->count, .rdt = a->dt };
    wmpi_coll_tmp theirs;
    int err = reduce_and_swap(k, a, a->count, &theirs);

    if (!err && k->rank == 0) {
        err = wmpi_coll_copy(theirs.p, a->count, a->dt, a->rbuf, a->count, a->dt);
        wmpi_coll_tmp_free(&theirs);
    }
    return err ? err : wmpi_coll_bcast_run(&kl, &la);
}

/* The other group's reduction, scattered over this group by counts. */
static int reduce_scatter_by(const wmpi_coll_call *k, const wmpi_coll_args *a,
                             const int *counts, const int *displs, int64_t total)
{
    wmpi_coll_call kl = local_phase(k, PHASE2);
    wmpi_coll_tmp theirs;
    int err = reduce_and_swap(k, a, total, &theirs);
    wmpi_coll_args la = { .sbuf = k->rank == 0 ? theirs.p : NULL,
                          .scounts = counts, .sdispls = displs, .sdt = a->dt,
                          .rbuf = a->rbuf, .rcount = counts[k->rank],
                          .rdt = a->dt, .root = 0 };

    if (!err)
        err = wmpi_coll_scatterv_run(&kl, &la);
    if (k->rank == 0)
        wmpi_coll_tmp_free(&theirs);
    return err;
}

static int reduce_scatter_counts(const wmpi_coll_call *k, const wmpi_coll_args *a,
                                 const int *counts)
{
    int *displs = malloc((size_t)k->size * sizeof *displs);
    int64_t total = 0;
    int err;

    if (!displs)
        return WEFT_ENOMEM;
    for (int i = 0; i < k->size; i++) {
        displs[i] = (int)total;
        total += counts[i];
    }
    err = total > INT32_MAX ? WEFT_EINVAL
                            : reduce_scatter_by(k, a, counts, displs, total);
    free(displs);
    return err;
}

static int reduce_scatter(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return reduce_scatter_counts(k, a, a->rcounts);
}

static int reduce_scatter_block(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    int *counts = malloc((size_t)k->size * sizeof *counts);
    int err;

    if (!counts)
        return WEFT_ENOMEM;
    for (int i = 0; i < k->size; i++)
        counts[i] = a->count;
    err = reduce_scatter_counts(k, a, counts);
    free(counts);
    return err;
}

const wmpi_coll_fn wmpi_coll_inter_schedules[WMPI_COLL_NKINDS] = {
    [WMPI_COLL_BARRIER] = barrier,
    [WMPI_COLL_BCAST] = bcast,
    [WMPI_COLL_REDUCE] = reduce,
    [WMPI_COLL_ALLREDUCE] = allreduce,
    [WMPI_COLL_GATHER] = wmpi_coll_inter_gather,
    [WMPI_COLL_GATHERV] = wmpi_coll_inter_gather,
    [WMPI_COLL_SCATTER] = wmpi_coll_inter_scatter,
    [WMPI_COLL_SCATTERV] = wmpi_coll_inter_scatter,
    [WMPI_COLL_ALLGATHER] = wmpi_coll_inter_allgather,
    [WMPI_COLL_ALLGATHERV] = wmpi_coll_inter_allgather,
    [WMPI_COLL_ALLTOALL] = wmpi_coll_inter_alltoall,
    [WMPI_COLL_ALLTOALLV] = wmpi_coll_inter_alltoall,
    [WMPI_COLL_ALLTOALLW] = wmpi_coll_inter_alltoall,
    [WMPI_COLL_REDUCE_SCATTER_BLOCK] = reduce_scatter_block,
    [WMPI_COLL_REDUCE_SCATTER] = reduce_scatter,
};
