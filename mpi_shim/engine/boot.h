/* Bootstrap: how a rank learns who it is and reaches the others.
 *
 * Under Weft's own mpirun the launcher passes, in the environment:
 *   WEFT_MPI_RANK, WEFT_MPI_SIZE      this rank and the job size
 *   WEFT_MPI_JOBID                    a job identifier (for messages)
 *   WEFT_MPI_SECRET                   the per-job random secret (hex); every
 *                                     connection (to the launcher and to
 *                                     other ranks) must present it
 *   WEFT_MPI_CONTROL                  host:port of the launcher's control
 *                                     server
 * and the rank keeps one control connection to the launcher for the
 * exchanges below, for abort, and to say it finalized cleanly. A program
 * started without these variables (no launcher) runs as a singleton: rank 0
 * of 1. Another launcher (Open MPI's mpirun, Slurm) is reached through PMIx
 * in a later issue.
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
    int control_fd;                    /* private */
} wmpi_boot;

/* Read the environment and connect to the launcher (presenting the
 * secret). Returns 0, or a negative WEFT_E* code with a message on stderr
 * naming what is wrong (malformed variable, launcher unreachable).
 * Blocks: yes (the calling thread; use before the runtime's I/O is up). */
int wmpi_boot_init(wmpi_boot *b);

/* All-gather `len` bytes from every rank through the launcher: on return
 * `all` holds size * len bytes, rank r's at offset r * len. Used to trade
 * the ranks' listening addresses ("business cards"). Collective over the
 * job. Returns 0 or a negative WEFT_E* code. Blocks: yes. */
int wmpi_boot_allgather(wmpi_boot *b, const void *mine, size_t len, void *all);

/* Ask the launcher to stop the whole job with exit status `code` and
 * print `msg` (may be NULL) naming this rank; then exit(code). Never
 * returns. Context: any thread. */
_Noreturn void wmpi_boot_abort(wmpi_boot *b, int code, const char *msg);

/* Tell the launcher this rank called MPI_Finalize (so that a later exit is
 * clean) and close the control connection. Returns 0 or WEFT_E*. */
int wmpi_boot_finalize(wmpi_boot *b);

/* 1 if `secret` matches this job's secret (constant-time compare). */
int wmpi_boot_secret_ok(const wmpi_boot *b, const uint8_t *secret);

#endif /* WMPI_BOOT_H */
