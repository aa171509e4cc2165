/* The check every application program uses: CHECK(cond, fmt, ...) prints
 * "<APPS_NAME>: file:line: cond: message" and aborts the whole job with
 * MPI_Abort. Plain MPI and C, so the programs still build with any MPI's
 * mpicc; each program defines APPS_NAME (its short name, a string)
 * before including this header. */
#ifndef APPS_UTIL_H
#define APPS_UTIL_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef APPS_NAME
#error "define APPS_NAME before including apps_util.h"
#endif

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5), noreturn))
#endif
static inline void apps_fail(const char *file, int line, const char *cond,
                             const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: %s:%d: %s: ", APPS_NAME, file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort();
}

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond))                                                      \
            apps_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);        \
    } while (0)

#endif
