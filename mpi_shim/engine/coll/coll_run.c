/* Running collectives: the blocking entry point, and nonblocking
 * collectives as user-level threads.
 *
 * Design: every collective is one schedule (coll_*.c) written as blocking
 * code. A blocking call takes the communicator's next sequence number and
 * runs the schedule in the calling thread (or, for the kinds and sizes
 * coll_shm.c takes, its shared-memory form). A nonblocking call takes the
 * sequence number at once (so the order of calls, not of execution,
 * decides which messages belong to which collective), copies its
 * arguments, and runs the same schedule in a detached user-level thread
 * of its own; when the schedule ends the thread completes the request
 * (WMPI_REQ_COLL) with its error, waking whoever waits on it through the
 * usual path. The collective thus progresses while the caller computes:
 * the thread sleeps in the I/O server between rounds and is woken when a
 * round's messages arrive, like any blocked thread. Creating a ULT takes
 * a pooled stack and a run-queue push (microseconds at most), well below
 * the cost of a collective's own messages.
 *
 * A plain pthread caller gets a kernel thread instead (tens of
 * microseconds to create): the program's own threads may keep every
 * worker blocked in the kernel (main waiting in pthread_join while its
 * threads wait in MPI_Wait, with one worker per rank), and a ULT would
 * then never run. A ULT caller that blocks its worker in the kernel while
 * its collective is pending can still starve it on a one-worker runtime
 * (as it starves every other ULT).
 *
 * Rejected: schedules as state machines advanced by the progress engine
 * (libNBC's way): a second, harder form of every algorithm, for a saving
 * of one thread creation per call. A progress thread per process: see
 * progress.c.
 *
 * Intercommunicators run the schedules of coll_inter.c instead (kinds
 * MPI leaves undefined there have none), and so does the engine's own
 * nonblocking work (wmpi_coll_task: MPI_Comm_idup) run as a job alike.
 *
 * Invariants: a nonblocking collective's datatypes and op are retained
 * until its thread ends, its communicator until its request is released
 * (MPI_Comm_free may come first); the request is completed exactly once,
 * last.
 * Locking: the engine lock only to complete the request.
 */
#include <pthread.h>
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

static const wmpi_coll_fn schedules[WMPI_COLL_NKINDS] = {
    [WMPI_COLL_BARRIER] = wmpi_coll_barrier_run,
    [WMPI_COLL_BCAST] = wmpi_coll_bcast_run,
    [WMPI_COLL_REDUCE] = wmpi_coll_reduce_run,
    [WMPI_COLL_ALLREDUCE] = wmpi_coll_allreduce_run,
    [WMPI_COLL_GATHER] = wmpi_coll_gather_run,
    [WMPI_COLL_GATHERV] = wmpi_coll_gatherv_run,
    [WMPI_COLL_SCATTER] = wmpi_coll_scatter_run,
    [WMPI_COLL_SCATTERV] = wmpi_coll_scatterv_run,
    [WMPI_COLL_ALLGATHER] = wmpi_coll_allgather_run,
    [WMPI_COLL_ALLGATHERV] = wmpi_coll_allgatherv_run,
    [WMPI_COLL_ALLTOALL] = wmpi_coll_alltoall_run,
    [WMPI_COLL_ALLTOALLV] = wmpi_coll_alltoallv_run,
    [WMPI_COLL_ALLTOALLW] = wmpi_coll_alltoallw_run,
    [WMPI_COLL_REDUCE_SCATTER_BLOCK] = wmpi_coll_reduce_scatter_block_run,
    [WMPI_COLL_REDUCE_SCATTER] = wmpi_coll_reduce_scatter_run,
    [WMPI_COLL_SCAN] = wmpi_coll_scan_run,
    [WMPI_COLL_EXSCAN] = wmpi_coll_exscan_run,
};

int wmpi_coll(int kind, const wmpi_coll_args *a, wmpi_comm *c)
{
    wmpi_coll_call k;

    if (kind < 0 || kind >= WMPI_COLL_NKINDS)
        return WEFT_EINVAL;
    if (c->remote && !wmpi_coll_inter_schedules[kind])
        return WEFT_EINVAL;
    wmpi_coll_begin(&k, c);
    if (c->remote)
        return wmpi_coll_inter_schedules[kind](&k, a);
    int err = wmpi_coll_shm_run(kind, &k, a);
    return err != WMPI_COLL_SHM_DECLINED ? err : schedules[kind](&k, a);
}

/* ------------------------------------------------------------ nonblocking */

/* A schedule with its arguments, or (task set) any function of the
 * engine's that must progress on its own (wmpi_coll_task). */
typedef struct coll_job {
    wmpi_coll_call k;
    wmpi_coll_args a;
    wmpi_coll_fn fn;
    int (*task)(void *arg);
    void *arg;
    wmpi_request *req;
} coll_job;

/* Hold (hold = 1) or drop the objects the job uses after the call. The
 * w-form's per-rank type arrays are the caller's to keep valid. */
static void hold_objects(const wmpi_coll_args *a, int hold)
{
    wmpi_datatype *dts[3] = { a->sdt, a->rdt, a->dt };

    for (int i = 0; i < 3; i++)
        if (dts[i] && hold)
            wmpi_datatype_retain(dts[i]);
        else if (dts[i])
            wmpi_datatype_release(dts[i]);
    if (a->op && hold)
        wmpi_op_retain((wmpi_op *)a->op);
    else if (a->op)
        wmpi_op_release((wmpi_op *)a->op);
}

static void *job_main(void *arg)
{
    coll_job *j = arg;
    int err = j->task ? j->task(j->arg) : j->fn(&j->k, &j->a);

    hold_objects(&j->a, 0);
    wmpi_lock_engine();
    wmpi_request_complete_locked(j->req, err);
    wmpi_unlock_engine();
    free(j);
    return NULL;
}

static wmpi_request *coll_request(wmpi_comm *c)
{
    wmpi_request *r = wmpi_request_new(WMPI_REQ_COLL);

    if (!r)
        return NULL;
    r->comm = c;
    wmpi_comm_retain(c); /* a freed comm lives while r does (request.c) */
    r->comm_held = 1;
    r->ctx = c->ctx + 1;
    r->peer = WMPI_PROC_NULL;
    r->st.source = WMPI_ANY_SOURCE;
    r->st.tag = WMPI_ANY_TAG;
    return r;
}

/* A ULT when the caller is one: cheap, and scheduled with the caller's
 * other threads. */
static int start_ult(coll_job *j)
{
    weft_thread_attr attr;

    weft_thread_attr_init(&attr);
    attr.detached = 1;
    attr.name = "mpi-coll"; /* default stack (WEFT_STACK_SIZE): user ops
                               run on it */
    return weft_thread_create(NULL, &attr, job_main, j);
}

/* A kernel thread when the caller is a plain pthread: such a program may
 * keep every Weft worker blocked in the kernel (main in pthread_join, with
 * one worker per rank), and a ULT would then never run. */
static int start_kernel_thread(coll_job *j)
{
    pthread_attr_t attr;
    pthread_t t;
    int err;

    if (pthread_attr_init(&attr) != 0)
        return WEFT_ENOMEM;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    err = pthread_create(&t, &attr, job_main, j);
    pthread_attr_destroy(&attr);
    return err ? -err : 0;
}

/* Start j's thread; on failure undo the request and the job. */
static int start_job(coll_job *j, wmpi_request **out)
{
    int err;

    *out = j->req;
    if (weft_thread_self() != WEFT_THREAD_NULL)
        err = start_ult(j);
    else
        err = start_kernel_thread(j);
    if (err) {
        hold_objects(&j->a, 0);
        wmpi_request_finish(j->req, NULL); /* never ran: releases its comm */
        free(j);
        *out = NULL;
    }
    return err;
}

static coll_job *job_new(wmpi_comm *c)
{
    coll_job *j = calloc(1, sizeof *j);

    if (j && !(j->req = coll_request(c))) {
        free(j);
        j = NULL;
    }
    return j;
}

int wmpi_icoll(int kind, const wmpi_coll_args *a, wmpi_comm *c,
               wmpi_request **out)
{
    coll_job *j;

    *out = NULL;
    if (kind < 0 || kind >= WMPI_COLL_NKINDS)
        return WEFT_EINVAL;
    if (!(j = job_new(c)))
        return WEFT_ENOMEM;
    j->a = *a;
    j->fn = c->remote ? wmpi_coll_inter_schedules[kind] : schedules[kind];
    if (!j->fn) {
        wmpi_request_finish(j->req, NULL);
        free(j);
        return WEFT_EINVAL;
    }
    hold_objects(a, 1);
    wmpi_coll_begin(&j->k, c);
    /* on failure the sequence number is spent: this communicator's
     * collectives are out of step from now on, as after any failed one */
    return start_job(j, out);
}

int wmpi_coll_task(wmpi_comm *c, int (*task)(void *arg), void *arg,
                   wmpi_request **out)
{
    coll_job *j;

    *out = NULL;
    if (!(j = job_new(c)))
        return WEFT_ENOMEM;
    j->task = task;
    j->arg = arg;
    return start_job(j, out);
}

/* ------------------------------------------------------------ shortcuts */

int wmpi_barrier(wmpi_comm *c)
{
    wmpi_coll_args a = { 0 };

    return wmpi_coll(WMPI_COLL_BARRIER, &a, c);
}

int wmpi_bcast(void *buf, int count, wmpi_datatype *dt, int root, wmpi_comm *c)
{
    wmpi_coll_args a = { .rbuf = buf, .rcount = count, .rdt = dt, .root = root };

    return wmpi_coll(WMPI_COLL_BCAST, &a, c);
}

int wmpi_allreduce(const void *sbuf, void *rbuf, int count, wmpi_datatype *dt,
                   const wmpi_op *op, wmpi_comm *c)
{
    wmpi_coll_args a = { .sbuf = sbuf, .rbuf = rbuf, .count = count, .dt = dt,
                         .op = op };

    return wmpi_coll(WMPI_COLL_ALLREDUCE, &a, c);
}

int wmpi_allgather(const void *sbuf, int scount, wmpi_datatype *sdt,
                   void *rbuf, int rcount, wmpi_datatype *rdt, wmpi_comm *c)
{
    wmpi_coll_args a = { .sbuf = sbuf, .scount = scount, .sdt = sdt,
                         .rbuf = rbuf, .rcount = rcount, .rdt = rdt };

    return wmpi_coll(WMPI_COLL_ALLGATHER, &a, c);
}
