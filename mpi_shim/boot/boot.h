/* Bootstrap: how a rank learns who it is and reaches the others.
 *
 * Under Weft's own mpirun the launcher passes, in the environment:
 *   WEFT_MPI_RANK, WEFT_MPI_SIZE      this rank and the job size
 *   WEFT_MPI_JOBID                    a job identifier (for messages)
 *   WEFT_MPI_SECRET                   the per-job random secret (hex); every
 *                                     connection (to the launcher and to
 *                                     other ranks) must present it
 *   WEFT_MPI_CONTROL                  host:port of the launcher's control
 *                                     server, or a comma-separated list of
 *                                     them tried in order (remote hosts get
 *                                     every address of the launcher's host;
 *                                     its own ranks get unix:@name first, an
 *                                     abstract Unix socket, accepted only
 *                                     if held by a process of their user)
 *   WEFT_MPI_LOCAL_RANK, _LOCAL_SIZE  rank among, and number of, the ranks
 *                                     on this host (optional; default: rank
 *                                     and size)
 *   WEFT_MPI_HOST                     the host name mpirun placed this rank
 *                                     on (for messages; not parsed here)
 *   WEFT_MPI_APPNUM                   which program of an MPMD command line
 *                                     (`a : b`) this rank runs, from 0
 *                                     (optional; default 0)
 * and the rank keeps one control connection to the launcher for the
 * exchanges below, for abort, and to say it finalized cleanly.
 *
 * Under a PMIx launcher (Open MPI's mpirun, Slurm's srun --mpi=pmix:
 * PMIX_RANK and PMIX_NAMESPACE in the environment) the same calls go
 * through the PMIx server instead (boot_pmix.c, when Weft was built with
 * PMIx): rank, size, local rank and size, appnum and the job id come from
 * it, rank 0's secret is handed to the others through it, and all-gathers,
 * barriers and aborts are PMIx fences and PMIx_Abort.
 *
 * A program started by neither (no launcher) runs as a singleton: rank 0
 * of 1, with a random secret of its own, unless the environment shows
 * another launcher that started it as one rank of several (a PMI-1/PMI-2
 * launcher, Slurm's srun without PMIx, a PMIx rank whose server does not
 * answer, or Weft built without PMIx): Weft cannot talk to those, and N
 * separate one-rank jobs would run silently, so init fails with one line
 * naming the launcher and what to use instead. The choice is made once, in
 * wmpi_boot_init (boot.c). The wire protocol of Weft's mpirun is in
 * boot_proto.h.
 *
 * Threads: wmpi_boot_init, _allgather, _barrier and _finalize are called by
 * one thread at a time (MPI_Init and MPI_Finalize); they block the calling
 * kernel thread in plain socket calls (or PMIx calls). wmpi_boot_abort may
 * run on any thread at any time, concurrently with them: it uses its own
 * connection (PMIx_Abort is safe beside other PMIx calls).
 */
#ifndef WMPI_BOOT_H
#define WMPI_BOOT_H

#include <stddef.h>
#include <stdint.h>

#define WMPI_SECRET_LEN 16 /* bytes (32 hex characters in the environment) */

typedef struct wmpi_boot {
    int rank;                          /* read-only */
    int size;                          /* read-only */
    int singleton;                     /* read-only: no launcher */
    char jobid[64];                    /* read-only */
    uint8_t secret[WMPI_SECRET_LEN];   /* read-only */
    int local_rank;                    /* read-only: rank among this host's */
    int local_size;                    /* read-only: ranks on this host */
    int appnum;                        /* read-only: MPI_APPNUM, the index of
                                          this rank's program in an MPMD
                                          launch; 0 otherwise */
    const struct wmpi_boot_ops *ops;   /* private: the launcher's; NULL for
                                          a singleton or before init */
    int control_fd;                    /* private: -1 when not connected */
    unsigned ctl_addrlen;              /* private: 0 when no launcher */
    unsigned char ctl_addr[128];       /* private: the control server's
                                          sockaddr, for abort's connection */
} wmpi_boot;

/* Read the environment, pick the launcher's bootstrap and join the job:
 * connect to Weft's mpirun (presenting the secret), or initialise PMIx and
 * read the job from its server (the secret too). Returns 0, or a negative
 * WEFT_E* code with a message on stderr naming what is wrong: WEFT_EINVAL
 * (malformed variable), -ECONNREFUSED / -ETIMEDOUT / -EHOSTUNREACH...
 * (launcher unreachable), WEFT_EPERM (the launcher refused this rank: wrong
 * secret, or the rank already joined), -EPROTO (the PMIx server failed a
 * request or gave an impossible answer), WEFT_ENOSYS if a launcher Weft
 * cannot talk to started this process as one of several.
 * On failure b is left as after wmpi_boot_finalize (control_fd -1).
 * Blocks: yes (the calling thread; use before the runtime's I/O is up). */
int wmpi_boot_init(wmpi_boot *b);

/* All-gather `len` bytes from every rank through the launcher (or the PMIx
 * server): on return
 * `all` holds size * len bytes, rank r's at offset r * len. Used to trade
 * the ranks' listening addresses ("business cards"). Collective over the
 * job; every rank must pass the same len (at most WMPI_GATHER_MAX, 1 MiB),
 * else the launcher aborts the job. Returns 0, WEFT_EINVAL (len too big),
 * WEFT_ESTATE (not initialised), or a negative code if the launcher
 * connection broke (-ECONNRESET; the job is then being torn down) or the
 * PMIx server failed the fence (-EPROTO). Blocks: yes, until every rank
 * arrives. */
int wmpi_boot_allgather(wmpi_boot *b, const void *mine, size_t len, void *all);

/* A barrier over the job through the launcher (an all-gather of 0 bytes;
 * under PMIx a fence without data). Returns 0 at once for a singleton, or
 * as wmpi_boot_allgather. Blocks: yes, until every rank arrives. */
int wmpi_boot_barrier(wmpi_boot *b);

/* Ask the launcher to stop the whole job with exit status `code` and
 * print `msg` (may be NULL) naming this rank (under PMIx the rank prints
 * it, then calls PMIx_Abort); then flush stdout and stderr
 * and _exit() (no atexit handlers: other threads may be running) with
 * status wmpi_abort_status(code): code's low byte, or 1 if that is 0. The
 * launcher's exit status is the same. Without a launcher (singleton, before
 * init, or launcher unreachable) it prints the message itself. b may be
 * NULL. Never returns. Context: any thread, any time (not a signal handler:
 * it flushes stdio). Blocks: up to a few seconds for the launcher's reply. */
_Noreturn void wmpi_boot_abort(wmpi_boot *b, int code, const char *msg);

/* Tell the launcher this rank called MPI_Finalize (so that a later exit is
 * clean) and close the control connection (under PMIx: PMIx_Finalize). Not collective: call
 * wmpi_boot_barrier first if the ranks must wait for each other. Returns 0
 * or a negative code if the launcher connection broke (the connection is
 * closed either way). Blocks: yes, one round trip. */
int wmpi_boot_finalize(wmpi_boot *b);

/* 1 if `secret` (WMPI_SECRET_LEN bytes) matches this job's secret, else
 * 0; the time taken does not depend on where they differ. Context: any. */
int wmpi_boot_secret_ok(const wmpi_boot *b, const uint8_t *secret);

#endif /* WMPI_BOOT_H */
