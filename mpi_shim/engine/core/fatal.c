/* The engine's way out: MPI_Abort and the fatal errors of broken
 * invariants, both ending the whole job through the launcher.
 *
 * Design: a leaf. Every part of the engine may stop the job, so this file
 * calls nothing of the engine and reads none of its state; it knows only
 * the bootstrap connection, which init hands it once the boot is up
 * (wmpi_abort_set_boot) and takes back before closing it. Before then,
 * or after, wmpi_boot_abort exits the process alone.
 *
 * Rejected: reading wmpi_eng.boot and a "boot is up" flag of init's:
 * every file that may fail would then depend on the engine's life cycle,
 * which itself calls nearly every file.
 * Locking: the pointer is an atomic store, set and cleared by init and
 * finalize (one thread, MPI's rule), read from any thread.
 */
#include <stdarg.h>
#include <stdio.h>

#include "engine/core/internal.h"

static wmpi_boot *abort_boot;

void wmpi_abort_set_boot(wmpi_boot *b)
{
    __atomic_store_n(&abort_boot, b, __ATOMIC_RELEASE);
}

_Noreturn void wmpi_abort(int code, const char *msg)
{
    wmpi_boot_abort(__atomic_load_n(&abort_boot, __ATOMIC_ACQUIRE), code, msg);
}

void wmpi_fatal(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    wmpi_abort(1, msg);
}
