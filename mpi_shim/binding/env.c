/* Environment queries: versions, processor name, clock, memory,
 * MPI_Pcontrol.
 *
 * Design: MPI_Wtime is CLOCK_MONOTONIC in seconds (never jumps with the
 * wall clock; the same clock on every rank of a host, not synchronised
 * across hosts: MPI_WTIME_IS_GLOBAL is false); MPI_Wtick is that clock's
 * resolution. MPI_Alloc_mem is malloc: no transport here registers
 * memory. These calls work before MPI_Init too where MPI allows it
 * (versions, Wtime, Wtick).
 *
 * Rejected: gettimeofday for MPI_Wtime (it jumps with NTP and settimeofday).
 * Invariants: MPI_Wtime never decreases within a process.
 * Locking: none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/binding.h"

#ifndef WEFT_VERSION_STRING
#define WEFT_VERSION_STRING "unknown"
#endif

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Get_version");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    int n;

    if (!version || !resultlen)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Get_library_version");
    n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                 "Weft MPI %s (MPI %d.%d over Weft user-level threads; TCP)",
                 WEFT_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n
                                                    : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    WMPI_NEED_INIT("MPI_Get_processor_name");
    if (!name || !resultlen)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Get_processor_name");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) < 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Get_processor_name)

double PMPI_Wtime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
WMPI_ALIAS(Wtime)

double PMPI_Wtick(void)
{
    struct timespec ts;

    if (clock_getres(CLOCK_MONOTONIC, &ts) < 0)
        return 1e-9;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
WMPI_ALIAS(Wtick)

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    void *p;

    WMPI_NEED_INIT("MPI_Alloc_mem");
    if (size < 0 || !baseptr)
        return wbind_fail(NULL, MPI_ERR_ARG, "MPI_Alloc_mem");
    if (wbind_check_info(info)) /* no hint is used */
        return wbind_fail(NULL, MPI_ERR_INFO, "MPI_Alloc_mem");
    p = malloc(size ? (size_t)size : 1);
    if (!p)
        return wbind_fail(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem");
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    WMPI_NEED_INIT("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Free_mem)

int PMPI_Pcontrol(const int level, ...)
{
    (void)level; /* no profiling levels of our own */
    return MPI_SUCCESS;
}
WMPI_ALIAS(Pcontrol)
