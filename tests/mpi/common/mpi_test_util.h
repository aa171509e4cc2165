/* Helpers for the MPI test programs of every suite under tests/mpi/:
 * plain MPI and C, so the programs also build with another MPI's mpicc
 * (Open MPI's), which is how we check that they test MPI and not Weft's
 * quirks.
 *
 * CHECK(cond, fmt, ...) aborts the job with a message naming the rank and
 * the failed condition; a program that returns from main after
 * MPI_Finalize has passed.
 */
#ifndef MPI_TEST_UTIL_H
#define MPI_TEST_UTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int p2p_rank(void)
{
    int r = -1, up = 0;

    MPI_Initialized(&up);
    if (up)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s: ",          \
                    p2p_rank(), __FILE__, __LINE__, #cond);                \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
            fflush(stderr);                                                \
            MPI_Abort(MPI_COMM_WORLD, 3);                                  \
        }                                                                  \
    } while (0)

/* CHECK that an MPI call returned MPI_SUCCESS. */
#define MPI_OK(call)                                                       \
    do {                                                                   \
        int rc_ = (call);                                                  \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);           \
    } while (0)

/* A deterministic byte pattern that differs per (seed, offset). */
static inline unsigned char p2p_byte(uint64_t seed, size_t i)
{
    uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull + i * 0xbf58476d1ce4e5b9ull;

    x ^= x >> 29;
    return (unsigned char)(x * 0x94d049bb133111ebull >> 56);
}

static inline void p2p_fill(void *buf, size_t n, uint64_t seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        p[i] = p2p_byte(seed, i);
}

/* Index of the first byte that differs from the pattern, or (size_t)-1. */
static inline size_t p2p_verify(const void *buf, size_t n, uint64_t seed)
{
    const unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        if (p[i] != p2p_byte(seed, i))
            return i;
    return (size_t)-1;
}

/* FNV-1a checksum of a buffer. */
static inline uint64_t p2p_checksum(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#endif /* MPI_TEST_UTIL_H */
