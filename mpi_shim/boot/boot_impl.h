/* The contract between the bootstrap's interface (boot.c) and its
 * implementations, one per kind of launcher: Weft's own mpirun
 * (boot_weft.c) and any PMIx launcher (boot_pmix.c, built when PMIx is
 * found at configure time: WMPI_HAVE_PMIX). Private to mpi_shim/boot.
 *
 * boot.c picks the implementation in wmpi_boot_init from the environment
 * and handles what is common: the singleton, the refusal of launchers
 * Weft cannot talk to, argument checks, and the end of an abort (message,
 * flush, _exit). An implementation's functions are called only on a
 * launched rank (not a singleton), with the threading rules of boot.h:
 * init, allgather, barrier and finalize by one thread at a time; abort by
 * any thread, concurrently with them.
 */
#ifndef WMPI_BOOT_IMPL_H
#define WMPI_BOOT_IMPL_H

#include <stddef.h>

#include "boot.h"

struct wmpi_boot_ops {
    const char *name; /* the launcher, for messages: "mpirun", "PMIx" */
    /* Fill in rank, size, local_rank, local_size, appnum, jobid and
     * secret; 0, or a negative code after printing why (the PMIx one
     * returns WEFT_ENOSYS, silently, when no server answers: boot.c then
     * names the launcher). Blocks: yes. */
    int (*init)(wmpi_boot *b);
    /* As wmpi_boot_allgather, len already checked. Blocks: yes. */
    int (*allgather)(wmpi_boot *b, const void *mine, size_t len, void *all);
    /* As wmpi_boot_barrier. Blocks: yes. */
    int (*barrier)(wmpi_boot *b);
    /* Ask the launcher to stop the job; 0 once the abort's message is out
     * (the launcher took the request, or the implementation printed it:
     * the caller then only exits), else a negative code (the caller
     * prints the message itself). Context: any thread. Blocks: a bounded
     * time. */
    int (*abort)(wmpi_boot *b, int code, const char *msg);
    /* As wmpi_boot_finalize; a second call returns 0 and does nothing.
     * Blocks: yes, one round trip. */
    int (*finalize)(wmpi_boot *b);
};

extern const struct wmpi_boot_ops wmpi_boot_weft_ops;
#ifdef WMPI_HAVE_PMIX
extern const struct wmpi_boot_ops wmpi_boot_pmix_ops;
#endif

/* Print "weft mpi: <message>" and a newline on stderr. Context: any
 * thread (not a signal handler: stdio). Blocks: no. */
void wmpi_boot_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* WMPI_BOOT_IMPL_H */
