/* Bootstrap through a PMIx server: the launcher is Open MPI's mpirun,
 * Slurm's srun --mpi=pmix, or anything else that starts processes with a
 * PMIx server beside them (PMIX_RANK and PMIX_NAMESPACE in the
 * environment). Contract in boot_impl.h; built only when PMIx was found at
 * configure time (WMPI_HAVE_PMIX).
 *
 * Design. Everything maps onto the PMIx client API:
 *   rank, job size     PMIx_Init's proc rank; PMIX_JOB_SIZE of the job
 *   local rank, size   PMIX_LOCAL_RANK of this proc, PMIX_LOCAL_SIZE of the
 *                      job (default: rank and size, as Weft's mpirun)
 *   appnum             PMIX_APPNUM of this proc (default 0)
 *   all-gather         PMIx_Put of the bytes under a key of its own
 *                      ("weft.ag.<n>", n counting all-gathers), Commit,
 *                      Fence with PMIX_COLLECT_DATA, then PMIx_Get of each
 *                      other rank's key
 *   barrier            PMIx_Fence without data
 *   abort              PMIx_Abort of the whole job (bounded in time)
 *   finalize           PMIx_Finalize
 * The per-job secret, which every TCP connection between ranks presents,
 * is made by rank 0 from getrandom() and published the same way as an
 * all-gather's bytes ("weft.secret", one fence in init); the others Get
 * it. The PMIx server is trusted and reached over a local socket of its
 * own, so the secret never crosses a socket a stranger can read.
 *
 * The calls block the calling kernel thread (PMIx waits on its own
 * progress thread's answer), as Weft's own bootstrap blocks in socket
 * calls. While inside libpmix the calling thread holds PMIx's locks, so it
 * must not be switched out by Weft's preemption: every call runs with
 * SIGURG, Weft's preemption signal, blocked in the calling kernel thread
 * (a tick that comes meanwhile waits for the unblock). The progress thread
 * PMIx_Init creates inherits that mask, so no tick ever lands on it.
 *
 * Rejected: one fence per all-gather through PMIx_Allgather-like
 * collectives of the host (PMIx has none for plain bytes; Put/Fence/Get is
 * what every MPI does); keys removed after use (PMIx has no delete for
 * committed data; an all-gather runs a handful of times per job).
 *
 * Invariants: `up` is 1 exactly between a successful PMIx_Init and
 * PMIx_Finalize. Only init, allgather, barrier and finalize touch
 * `gathers` (one thread at a time, boot.h); abort reads only `up`.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <pmix.h>

#include <weft/errno.h>

#include "boot.h"
#include "boot_impl.h"

#define SECRET_KEY      "weft.secret"
#define ABORT_TIMEOUT_S 5 /* for the server to take an abort */

static pmix_proc_t me; /* namespace and rank, from PMIx_Init */
static int up;         /* between PMIx_Init and PMIx_Finalize */
static unsigned gathers;

/* Block Weft's preemption signal in this kernel thread; *old gets the
 * mask to restore with unshield(). */
static void shield(sigset_t *old)
{
    sigset_t urg;
    sigemptyset(&urg);
    sigaddset(&urg, SIGURG);
    pthread_sigmask(SIG_BLOCK, &urg, old);
}

static void unshield(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int fail(const char *what, pmix_status_t rc)
{
    wmpi_boot_say("rank %d: %s failed: %s", (int)me.rank, what, PMIx_Error_string(rc));
    return -EPROTO;
}

/* An integer attribute `key` of proc (nspace, rank) into *out: 0, or
 * PMIX_ERR_NOT_FOUND if the server has none (or not as an integer). */
static pmix_status_t get_int(pmix_rank_t rank, const char *key, int64_t *out)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return rc;
    rc = PMIX_SUCCESS;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_UINT64: *out = (int64_t)v->data.uint64; break;
    case PMIX_INT: *out = v->data.integer; break;
    case PMIX_INT32: *out = v->data.int32; break;
    case PMIX_UINT: *out = v->data.uint; break;
    case PMIX_PROC_RANK: *out = v->data.rank; break;
    default: rc = PMIX_ERR_NOT_FOUND;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* As get_int, with `dflt` when the server has no such attribute; the
 * value must lie in [min, max]. 0 or a negative code. */
static int get_attr(pmix_rank_t rank, const char *key, int min, int max, int dflt, int *out)
{
    int64_t v = dflt;
    pmix_status_t rc = get_int(rank, key, &v);
    if (rc != PMIX_SUCCESS && (rc != PMIX_ERR_NOT_FOUND || dflt < 0))
        return fail(key, rc);
    if (v < min || v > max) {
        wmpi_boot_say("rank %d: PMIx gave %s = %lld, outside %d..%d", (int)me.rank, key,
                      (long long)v, min, max);
        return -EPROTO;
    }
    *out = (int)v;
    return 0;
}

/* Commit what this rank Put, then wait for every rank, collecting their
 * data if `collect`. */
static pmix_status_t commit_fence(bool collect)
{
    pmix_info_t info;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        return rc;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

static pmix_status_t put_bytes(const char *key, const void *data, size_t len)
{
    pmix_value_t v = { .type = PMIX_BYTE_OBJECT };
    v.data.bo.bytes = (char *)data;
    v.data.bo.size = len;
    return PMIx_Put(PMIX_GLOBAL, key, &v);
}

/* Rank r's `len` bytes under `key` into out. */
static pmix_status_t get_bytes(pmix_rank_t r, const char *key, void *out, size_t len)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&p, me.nspace, r);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (v->type == PMIX_BYTE_OBJECT && v->data.bo.size == len)
        memcpy(out, v->data.bo.bytes, len);
    else
        rc = PMIX_ERR_BAD_PARAM;
    PMIX_VALUE_RELEASE(v);
    return rc;
}

/* Rank 0 makes the job's secret and publishes it; the others fetch it. */
static int share_secret(wmpi_boot *b)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (b->rank == 0) {
        if (getrandom(b->secret, sizeof b->secret, 0) != (ssize_t)sizeof b->secret) {
            int err = errno ? -errno : -EIO;
            wmpi_boot_say("rank 0: getrandom failed: %s", strerror(-err));
            return err;
        }
        rc = put_bytes(SECRET_KEY, b->secret, sizeof b->secret);
    }
    if (rc == PMIX_SUCCESS)
        rc = commit_fence(true);
    if (rc == PMIX_SUCCESS && b->rank != 0)
        rc = get_bytes(0, SECRET_KEY, b->secret, sizeof b->secret);
    return rc == PMIX_SUCCESS ? 0 : fail("the job secret's exchange", rc);
}

static int read_job(wmpi_boot *b)
{
    int err = get_attr(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 1, INT32_MAX, -1, &b->size);
    if (err)
        return err;
    if (me.rank >= (pmix_rank_t)b->size) {
        wmpi_boot_say("PMIx rank %u is outside the job of %d", (unsigned)me.rank, b->size);
        return -EPROTO;
    }
    b->rank = (int)me.rank;
    /* The namespace, cut to fit: the job id only names the job in messages. */
    size_t n = strnlen(me.nspace, sizeof b->jobid - 1);
    memcpy(b->jobid, me.nspace, n);
    b->jobid[n] = '\0';
    if (get_attr(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, 1, b->size, b->size, &b->local_size) ||
        get_attr(me.rank, PMIX_LOCAL_RANK, 0, b->local_size - 1, b->rank % b->local_size,
                 &b->local_rank) ||
        get_attr(me.rank, PMIX_APPNUM, 0, b->size - 1, 0, &b->appnum))
        return -EPROTO;
    return share_secret(b);
}

static int pmix_init(wmpi_boot *b)
{
    sigset_t old;
    shield(&old);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    int err = WEFT_ENOSYS; /* no server to talk to: boot.c names the launcher */
    if (rc == PMIX_SUCCESS) {
        up = 1;
        err = read_job(b);
        if (err) {
            PMIx_Finalize(NULL, 0);
            up = 0;
        }
    }
    unshield(&old);
    return err;
}

static int pmix_barrier(wmpi_boot *b);

static int pmix_allgather(wmpi_boot *b, const void *mine, size_t len, void *all)
{
    char key[32];
    sigset_t old;
    if (len == 0) /* nothing to trade: mine and all may be NULL */
        return pmix_barrier(b);
    snprintf(key, sizeof key, "weft.ag.%u", gathers++);
    shield(&old);
    pmix_status_t rc = put_bytes(key, mine, len);
    if (rc == PMIX_SUCCESS)
        rc = commit_fence(true);
    for (int r = 0; r < b->size && rc == PMIX_SUCCESS; r++) {
        void *slot = (char *)all + (size_t)r * len;
        if (r == b->rank)
            memmove(slot, mine, len);
        else
            rc = get_bytes((pmix_rank_t)r, key, slot, len);
    }
    unshield(&old);
    return rc == PMIX_SUCCESS ? 0 : fail("an all-gather through PMIx", rc);
}

static int pmix_barrier(wmpi_boot *b)
{
    (void)b;
    sigset_t old;
    shield(&old);
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    unshield(&old);
    return rc == PMIX_SUCCESS ? 0 : fail("a barrier through PMIx", rc);
}

struct abort_call {
    int code;
    const char *msg;
    pmix_status_t rc;
};

static void *abort_main(void *arg)
{
    struct abort_call *c = arg;
    c->rc = PMIx_Abort(c->code, c->msg, NULL, 0);
    return NULL;
}

/* The launcher ends the job, but Open MPI's mpirun does not print an
 * abort's message: the rank prints it, then asks. PMIx_Abort waits for the
 * server's answer without a bound (the launcher usually kills the caller
 * first), so it runs on a thread of its own that the caller waits for at
 * most ABORT_TIMEOUT_S: a server that is gone does not hold the abort. */
static int pmix_abort(wmpi_boot *b, int code, const char *msg)
{
    (void)b;
    if (!__atomic_load_n(&up, __ATOMIC_ACQUIRE))
        return WEFT_ESTATE;
    wmpi_boot_say("rank %d aborted the job with error code %d%s%s", (int)me.rank, code,
                  msg && *msg ? ": " : "", msg ? msg : "");
    fflush(stderr);
    struct abort_call c = { code, msg, PMIX_ERROR };
    sigset_t old;
    pthread_t t;
    shield(&old);
    if (pthread_create(&t, NULL, abort_main, &c) != 0) {
        abort_main(&c);
    } else {
        struct timespec deadline;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_sec += ABORT_TIMEOUT_S;
        if (pthread_timedjoin_np(t, NULL, &deadline) != 0)
            c.rc = PMIX_ERR_TIMEOUT; /* the caller exits; the thread goes with it */
    }
    unshield(&old);
    if (c.rc != PMIX_SUCCESS) /* the message is out: the caller only exits */
        wmpi_boot_say("rank %d: PMIx_Abort failed: %s", (int)me.rank, PMIx_Error_string(c.rc));
    return 0;
}

static int pmix_finalize(wmpi_boot *b)
{
    (void)b;
    if (!up)
        return 0;
    sigset_t old;
    shield(&old);
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    unshield(&old);
    __atomic_store_n(&up, 0, __ATOMIC_RELEASE);
    return rc == PMIX_SUCCESS ? 0 : fail("PMIx_Finalize", rc);
}

const struct wmpi_boot_ops wmpi_boot_pmix_ops = {
    .name = "PMIx",
    .init = pmix_init,
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
};
