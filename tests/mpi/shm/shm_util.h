/* Helpers for the shared-memory suite: a counter-based random generator
 * and a fast byte pattern (eight bytes per step) for messages of several
 * MiB, which p2p_fill's byte-at-a-time pattern would make slow.
 *
 * The pattern's word j is shm_mix(seed ^ j * golden), so a payload that is
 * shifted, cut short, doubled or taken from another message differs from
 * the one expected at its first wrong byte, which shm_verify reports.
 */
#ifndef SHM_UTIL_H
#define SHM_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define SHM_GOLDEN 0x9e3779b97f4a7c15ull

/* splitmix64's finaliser: a bijection that spreads every input bit. */
static inline uint64_t shm_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A value for a tuple of small numbers (rank, thread, index...). */
static inline uint64_t shm_key(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return shm_mix(shm_mix(shm_mix(shm_mix(a + SHM_GOLDEN) ^ b) ^ c) ^ d);
}

/* A random generator's next value (state advanced in place). */
static inline uint64_t shm_next(uint64_t *state)
{
    *state += SHM_GOLDEN;
    return shm_mix(*state);
}

/* A number in [lo, hi]. */
static inline size_t shm_between(uint64_t *state, size_t lo, size_t hi)
{
    return lo + (size_t)(shm_next(state) % (hi - lo + 1));
}

static inline uint64_t shm_word(uint64_t seed, size_t j)
{
    return shm_mix(seed ^ (uint64_t)j * SHM_GOLDEN);
}

static inline void shm_fill(void *buf, size_t n, uint64_t seed)
{
    unsigned char *p = buf;
    size_t j = 0;

    for (; (j + 1) * 8 <= n; j++) {
        uint64_t w = shm_word(seed, j);
        memcpy(p + j * 8, &w, 8);
    }
    if (j * 8 < n) {
        uint64_t w = shm_word(seed, j);
        memcpy(p + j * 8, &w, n - j * 8);
    }
}

/* Index of the first byte that differs from the pattern, or (size_t)-1. */
static inline size_t shm_verify(const void *buf, size_t n, uint64_t seed)
{
    const unsigned char *p = buf;

    for (size_t j = 0; j * 8 < n; j++) {
        uint64_t w = shm_word(seed, j);
        size_t len = n - j * 8 < 8 ? n - j * 8 : 8;
        if (memcmp(p + j * 8, &w, len) == 0)
            continue;
        for (size_t i = 0; i < len; i++)
            if (p[j * 8 + i] != ((const unsigned char *)&w)[i])
                return j * 8 + i;
    }
    return (size_t)-1;
}

/* Index of the first of n bytes that is not `c`, or (size_t)-1. */
static inline size_t shm_untouched(const void *buf, size_t n, unsigned char c)
{
    const unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        if (p[i] != c)
            return i;
    return (size_t)-1;
}

#endif /* SHM_UTIL_H */
