/* Bootstrap, the interface of boot.h: which launcher started this process,
 * and the calls handed to the implementation that talks to it (contract
 * in boot_impl.h): Weft's own mpirun (boot_weft.c) or a PMIx launcher
 * (boot_pmix.c) such as Open MPI's mpirun or Slurm's srun --mpi=pmix.
 *
 * Design. The choice is made once, in wmpi_boot_init, from the
 * environment, in this order: WEFT_MPI_RANK means Weft's mpirun;
 * PMIX_RANK with PMIX_NAMESPACE means a PMIx server is there to talk to;
 * otherwise, if another launcher's variables say this process is one rank
 * of several (PMI-1/PMI-2, Slurm without PMIx, a PMIx rank without its
 * server), init fails with one line naming the launcher and what to use;
 * else the process runs alone, a singleton. The same binary so runs under
 * every launcher it can talk to, without rebuilding, and never as N
 * silent one-rank jobs under one it cannot.
 *
 * Rejected: choosing at build time (one binary per launcher; clusters mix
 * them); probing PMIx before Weft's variables (Weft's mpirun may itself run
 * under a PMIx launcher, inside an allocation, and its ranks inherit the
 * variables: WEFT_MPI_RANK is the more specific sign).
 *
 * Invariants: ops != NULL exactly for a launched rank after a successful
 * init (it stays set after finalize, so that a late abort still reaches
 * the launcher where it can); singleton != 0 exactly for a process
 * without a launcher. Each implementation's finalize may be called twice.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <weft/errno.h>

#include "boot.h"
#include "boot_impl.h"
#include "boot_proto.h"

#define PMIX_LAUNCHERS "a PMIx launcher (srun --mpi=pmix, Open MPI's mpirun)"

void wmpi_boot_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("weft mpi: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The launcher whose environment says this process is one rank of
 * several, or NULL. A variable counts when it says more than one rank, or
 * a rank other than 0. */
static const char *foreign_launcher(void)
{
    static const struct {
        const char *var, *launcher;
        int min; /* the smallest value that means "one of several" */
    } signs[] = {
        { "OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun", 2 },
        { "PMIX_RANK", PMIX_LAUNCHERS, 1 },
        { "SLURM_STEP_NUM_TASKS", "Slurm's srun", 2 },
        { "PMI_SIZE", "a PMI launcher (srun --mpi=pmi2, MPICH's mpiexec)", 2 },
        { "PMI_RANK", "a PMI launcher (srun --mpi=pmi2, MPICH's mpiexec)", 1 },
    };
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; i++) {
        const char *s = getenv(signs[i].var);
        if (s && *s && atol(s) >= signs[i].min)
            return signs[i].launcher;
    }
    return NULL;
}

/* Print the refusal: the launcher, why, and what to use instead. */
static int refuse(const char *launcher, const char *why)
{
#ifdef WMPI_HAVE_PMIX
    const char *pmix = ", Open MPI's mpirun or srun --mpi=pmix";
#else
    const char *pmix = "";
#endif
    wmpi_boot_say("started by %s, which Weft cannot join%s; start the job with Weft's "
                  "mpirun (mpirun -n N %s)%s, or without a launcher to run one process",
                  launcher, why, program_invocation_short_name, pmix);
    return WEFT_ENOSYS;
}

static int init_singleton(wmpi_boot *b)
{
    const char *other = foreign_launcher();
    if (other)
        return refuse(other, " yet");
    b->size = b->local_size = b->singleton = 1;
    snprintf(b->jobid, sizeof b->jobid, "singleton.%d", (int)getpid());
    if (getrandom(b->secret, sizeof b->secret, 0) != (ssize_t)sizeof b->secret) {
        struct timespec ts; /* no peers: the secret only has to differ */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t t = (int64_t)ts.tv_nsec ^ (int64_t)getpid() << 32;
        memcpy(b->secret, &t, sizeof t);
    }
    return 0;
}

/* A PMIx server's variables: join through it, or refuse naming it. */
static int init_pmix(wmpi_boot *b)
{
#ifdef WMPI_HAVE_PMIX
    int err = wmpi_boot_pmix_ops.init(b);
    if (err == 0) {
        b->ops = &wmpi_boot_pmix_ops;
        return 0;
    }
    if (err != WEFT_ENOSYS)
        return err;
    return refuse(PMIX_LAUNCHERS, " (its PMIx server did not answer)");
#else
    (void)b;
    return refuse(PMIX_LAUNCHERS, " (this Weft was built without PMIx, libpmix-dev)");
#endif
}

int wmpi_boot_init(wmpi_boot *b)
{
    memset(b, 0, sizeof *b);
    b->control_fd = -1;
    if (getenv(WMPI_ENV_RANK)) {
        int err = wmpi_boot_weft_ops.init(b);
        if (err)
            return err;
        b->ops = &wmpi_boot_weft_ops;
        return 0;
    }
    if (getenv("PMIX_RANK") && getenv("PMIX_NAMESPACE"))
        return init_pmix(b);
    return init_singleton(b);
}

int wmpi_boot_allgather(wmpi_boot *b, const void *mine, size_t len, void *all)
{
    if (len > WMPI_GATHER_MAX)
        return WEFT_EINVAL;
    if (b->singleton) {
        if (len)
            memmove(all, mine, len);
        return 0;
    }
    if (!b->ops)
        return WEFT_ESTATE;
    return b->ops->allgather(b, mine, len, all);
}

int wmpi_boot_barrier(wmpi_boot *b)
{
    if (b->singleton)
        return 0;
    return b->ops ? b->ops->barrier(b) : WEFT_ESTATE;
}

int wmpi_boot_finalize(wmpi_boot *b)
{
    if (b->singleton || !b->ops)
        return 0;
    return b->ops->finalize(b);
}

_Noreturn void wmpi_boot_abort(wmpi_boot *b, int code, const char *msg)
{
    const struct wmpi_boot_ops *ops = b ? __atomic_load_n(&b->ops, __ATOMIC_ACQUIRE) : NULL;
    if (!ops || ops->abort(b, code, msg) != 0)
        wmpi_boot_say("rank %d aborted the job with error code %d%s%s", b ? b->rank : 0, code,
                      msg && *msg ? ": " : "", msg ? msg : "");
    fflush(stdout);
    fflush(stderr);
    _exit(wmpi_abort_status(code));
}

int wmpi_boot_secret_ok(const wmpi_boot *b, const uint8_t *secret)
{
    volatile uint8_t diff = 0;
    for (size_t i = 0; i < WMPI_SECRET_LEN; i++)
        diff |= b->secret[i] ^ secret[i];
    return diff == 0;
}
