/* Info objects (MPI_Info): ordered (key, value) string pairs, for the
 * bindings (binding/info.c) and for the objects that keep hints
 * (communicators: MPI_Comm_set_info / MPI_Comm_get_info).
 *
 * Keys and values are copied; keys keep the order in which they were
 * first set (MPI_Info_get_nthkey follows it; setting a key again replaces
 * its value in place). Lengths are the bindings' business (MPI_MAX_INFO_KEY
 * and MPI_MAX_INFO_VAL): the engine stores what it is given.
 *
 * Threads: every function may be called from any thread; each object has
 * its own lock, taken for the duration of one call (never the engine lock,
 * and nothing here blocks).
 */
#ifndef WMPI_INFO_H
#define WMPI_INFO_H

#include <stdint.h>

#include "engine/core/lock.h"
#include "engine/core/mark.h"

typedef struct wmpi_info_entry {
    char *key;
    char *val;
} wmpi_info_entry;

typedef struct wmpi_info {
    wmpi_lock lock;
    int predefined;      /* read-only: MPI_INFO_ENV, never freed */
    int filled;          /* atomic: MPI_INFO_ENV's keys were set */
    int n, cap;          /* under lock */
    uint32_t magic;      /* atomic: WMPI_INFO_LIVE until released, then
                            WMPI_INFO_FREED (past the words free() reuses) */
    wmpi_info_entry *ent; /* [n], in order of first setting */
} wmpi_info;

#define WMPI_INFO_LIVE 0x4f464e49u  /* "INFO" */
#define WMPI_INFO_FREED 0x44464e49u /* "INFD" */

/* 1 if info looks like an info object the user may use: not
 * MPI_INFO_NULL, not a small integer or misaligned pointer, not freed or
 * zeroed memory. One load and compare; a released object's memory stays
 * ours in the quarantine for a while (engine/objects/quarantine.h), so a
 * handle used soon after MPI_Info_free reads owned memory. */
static inline int wmpi_info_is_live(const wmpi_info *info)
{
    return WMPI_MARKED_LIVE(info, wmpi_info, WMPI_INFO_LIVE);
}

/* MPI_INFO_ENV (definition in info.c). */
extern wmpi_info wmpi_pub_info_env;

/* A new empty object in *out. Errors: WEFT_ENOMEM (*out NULL). */
int wmpi_info_create(wmpi_info **out);

/* A new object with the same pairs as `src` in *out (src NULL: *out NULL,
 * returns 0). Later changes to either leave the other alone.
 * Errors: WEFT_ENOMEM (*out NULL). */
int wmpi_info_dup(wmpi_info *src, wmpi_info **out);

/* Drop an object made by create or dup. NULL and MPI_INFO_ENV are left
 * alone, so holders may call it on whatever they keep. */
void wmpi_info_release(wmpi_info *info);

/* Set key to val (replacing an earlier value). Errors: WEFT_ENOMEM (the
 * object is unchanged). */
int wmpi_info_set(wmpi_info *info, const char *key, const char *val);

/* Remove key. Errors: -ENOENT (no such key). */
int wmpi_info_delete(wmpi_info *info, const char *key);

/* Look key up: *flag 1 and the value copied to value (at most `valuelen`
 * characters, then a NUL: value needs valuelen + 1 bytes), or *flag 0. */
void wmpi_info_get(wmpi_info *info, const char *key, int valuelen, char *value,
                   int *flag);

/* *flag 1 and *len = strlen of key's value, or *flag 0. */
void wmpi_info_get_valuelen(wmpi_info *info, const char *key, int *len, int *flag);

/* Number of keys. */
int wmpi_info_nkeys(wmpi_info *info);

/* Copy the n-th key (0-based, in order of first setting) to key (room for
 * `keylen` bytes with the NUL). Errors: WEFT_EINVAL (n out of range). */
int wmpi_info_nthkey(wmpi_info *info, int n, char *key, int keylen);

/* Fill MPI_INFO_ENV once (later calls do nothing): the command, its
 * arguments, the number of processes, host, architecture, working
 * directory and thread level of this process (MPI-3.1 section 8.6). Call
 * after MPI_Init. Errors: none (a key that cannot be found is left out). */
void wmpi_info_env_fill(int world_size, int thread_level);

#endif /* WMPI_INFO_H */
