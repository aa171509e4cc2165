/* The pack engine: gather typed elements into their packed form and
 * scatter them back, whole or for a leading part of the bytes.
 *
 * Design: a type's element is a list of strided segments (datatype_impl.h);
 * packing walks it once per element with one memcpy per block, and a
 * buffer that is its own packed form (wmpi_datatype_dense: the elements
 * form one gapless run, wherever it starts) is one memcpy. A partial
 * unpack copies whole elements, then walks the next element's segments
 * until the bytes run out. pack_basic / unpack_basic
 * are for the reduction kernels, which expect the memory layout of their
 * basic type: for every basic type but the pair types with a hole or
 * trailing padding (MPI_SHORT_INT, MPI_DOUBLE_INT) that is the packed form
 * itself; those pairs are spread back to their extent.
 *
 * Trade-off: a memcpy call per block costs a few ns, which dominates for
 * blocks of one double (a vector of stride 2 packed at ~0.45 GB/s on a
 * loaded test machine); strided segments of 1, 2, 4, 8 or 16-byte blocks
 * use fixed-size copies instead (~1.3 GB/s there, 3x).
 * Rejected: byte-by-byte copy loops (slower for everything above 16 B).
 *
 * Invariants: pack and unpack of the same type walk the same segments in
 * the same order, so unpack(pack(x)) == x byte for byte on the type map.
 * Locking: none (types are immutable; buffers belong to the caller).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/objects/datatype_impl.h"

static char *at(char *base, int64_t off)
{
    return wmpi_dt_at(base, off);
}

/* dir 0: base -> stream (pack); 1: stream -> base (unpack). */
static void copy_block(int dir, char *mem, char *stream, int64_t len)
{
    if (dir == 0)
        memcpy(stream, mem, (size_t)len);
    else
        memcpy(mem, stream, (size_t)len);
}

/* A whole strided segment with blocks of a constant small size: the
 * compiler turns each fixed-size memcpy into one load and store. */
#define STRIDED(L)                                                         \
    for (int64_t k = 0; k < s->count; k++, stream += (L)) {                \
        char *mem = at(base, s->disp + k * s->stride);                     \
        if (dir == 0)                                                      \
            memcpy(stream, mem, (L));                                      \
        else                                                               \
            memcpy(mem, stream, (L));                                      \
    }

static void copy_strided(int dir, const wmpi_seg *s, char *base, char *stream)
{
    switch (s->len) {
    case 1:  STRIDED(1); break;
    case 2:  STRIDED(2); break;
    case 4:  STRIDED(4); break;
    case 8:  STRIDED(8); break;
    case 16: STRIDED(16); break;
    default: STRIDED((size_t)s->len); break;
    }
}
#undef STRIDED

/* One element at `base`; at most `limit` stream bytes. Returns bytes. */
static int64_t walk_element(int dir, const wmpi_seg *s, int64_t n, char *base,
                            char *stream, int64_t limit)
{
    int64_t done = 0, len;

    for (int64_t j = 0; j < n; j++) {
        if (s[j].count > 1 && s[j].count * s[j].len <= limit - done) {
            copy_strided(dir, &s[j], base, stream + done);
            done += s[j].count * s[j].len;
            continue;
        }
        for (int64_t k = 0; k < s[j].count; k++) {
            len = s[j].len < limit - done ? s[j].len : limit - done;
            if (len <= 0)
                return done;
            copy_block(dir, at(base, s[j].disp + k * s[j].stride),
                       stream + done, len);
            done += len;
        }
    }
    return done;
}

/* Copy the first `bytes` stream bytes of `count` elements of dt. */
static int64_t walk(int dir, const wmpi_datatype *dt, int64_t count,
                    char *buf, char *stream, int64_t bytes)
{
    wmpi_seg tmp[2];
    int64_t n, size = (int64_t)dt->size, ext = dt->extent;
    const wmpi_seg *s = wmpi_datatype_segs(dt, tmp, &n);
    int64_t whole, done = 0, off;

    if (size == 0 || bytes <= 0)
        return 0;
    if (bytes > count * size)
        bytes = count * size;
    if (wmpi_datatype_dense(dt, count, &off)) {
        copy_block(dir, at(buf, off), stream, bytes);
        return bytes;
    }
    whole = bytes / size;
    for (int64_t i = 0; i < whole; i++)
        done += walk_element(dir, s, n, at(buf, i * ext), stream + done, size);
    if (done < bytes)
        done += walk_element(dir, s, n, at(buf, whole * ext), stream + done,
                             bytes - done);
    return done;
}

/* The packed bytes of `count` elements of dt, or WEFT_EINVAL (also for a
 * count whose last element's offset leaves int64_t). */
static int64_t checked_bytes(const wmpi_datatype *dt, int64_t count)
{
    return wmpi_datatype_fits(dt, count) ? wmpi_datatype_bytes(dt, count)
                                         : WEFT_EINVAL;
}

int64_t wmpi_datatype_pack(const wmpi_datatype *dt, int64_t count,
                           const void *buf, void *out)
{
    int64_t bytes = checked_bytes(dt, count);

    if (bytes < 0)
        return bytes;
    return walk(0, dt, count, (char *)buf, out, bytes);
}

int64_t wmpi_datatype_unpack(const wmpi_datatype *dt, int64_t count,
                             const void *in, void *buf)
{
    int64_t bytes = checked_bytes(dt, count);

    if (bytes < 0)
        return bytes;
    return walk(1, dt, count, buf, (char *)in, bytes);
}

int64_t wmpi_datatype_unpack_part(const wmpi_datatype *dt, int64_t count,
                                  const void *in, int64_t bytes, void *buf)
{
    if (checked_bytes(dt, count) < 0 || bytes < 0)
        return WEFT_EINVAL;
    return walk(1, dt, count, buf, (char *)in, bytes);
}

/* ------------------------------------------------- reduction layout */

/* A pair type whose packed form is not its memory layout (a hole between
 * value and int, or padding after the int). */
static int holey_pair(const wmpi_datatype *b)
{
    return b->tclass == WMPI_TC_PAIR && (int64_t)b->size != b->extent;
}

/* Spread n packed pairs (value, int) at p to their extent, in place, from
 * the last one down (each lands at or after where it was read). */
static void spread_pairs(const wmpi_datatype *b, char *p, int64_t n)
{
    size_t vs = b->pair_value_size, io = b->pair_index_offset;
    size_t size = b->size, ext = b->extent;

    for (int64_t j = n - 1; j >= 0; j--) {
        char *src = p + (size_t)j * size, *dst = p + (size_t)j * ext;

        memmove(dst + io, src + vs, sizeof(int));
        memmove(dst, src, vs);
        memset(dst + vs, 0, io - vs);
        memset(dst + io + sizeof(int), 0, ext - io - sizeof(int));
    }
}

static void squeeze_pairs(const wmpi_datatype *b, const char *in, char *out,
                          int64_t n)
{
    size_t vs = b->pair_value_size, io = b->pair_index_offset;

    for (int64_t j = 0; j < n; j++) {
        memcpy(out + (size_t)j * b->size, in + (size_t)j * b->extent, vs);
        memcpy(out + (size_t)j * b->size + vs,
               in + (size_t)j * b->extent + io, sizeof(int));
    }
}

int64_t wmpi_datatype_pack_basic(const wmpi_datatype *dt, int64_t count,
                                 const void *buf, void *out)
{
    const wmpi_datatype *b = wmpi_datatype_basic(dt);
    int64_t bytes, n;

    if (!b || count < 0)
        return WEFT_EINVAL;
    bytes = wmpi_datatype_pack(dt, count, buf, out);
    if (bytes < 0)
        return bytes;
    n = b->size ? bytes / (int64_t)b->size : 0;
    if (holey_pair(b))
        spread_pairs(b, out, n);
    return n;
}

int64_t wmpi_datatype_unpack_basic(const wmpi_datatype *dt, int64_t count,
                                   const void *in, void *buf)
{
    const wmpi_datatype *b = wmpi_datatype_basic(dt);
    int64_t bytes = wmpi_datatype_bytes(dt, count), n;
    char *tmp;

    if (!b || bytes < 0)
        return WEFT_EINVAL;
    n = b->size ? bytes / (int64_t)b->size : 0;
    if (!holey_pair(b)) {
        wmpi_datatype_unpack(dt, count, in, buf);
        return n;
    }
    tmp = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!tmp)
        return WEFT_ENOMEM;
    squeeze_pairs(b, in, tmp, n);
    wmpi_datatype_unpack(dt, count, tmp, buf);
    free(tmp);
    return n;
}
