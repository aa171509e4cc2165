/* Predefined datatypes, and the queries every datatype answers: layout,
 * bounds, basic type, and the counts a status reports.
 *
 * Design: one static object per predefined type, whose address is the
 * MPI_Datatype handle (mpi.h). Each knows its size (data bytes), its extent
 * (memory span), its alignment and how many basic elements it holds; all
 * have lb 0. A message carries its elements packed (count * size bytes):
 * every predefined type but the pair types with a hole or padding
 * (MPI_DOUBLE_INT, MPI_SHORT_INT...) is its own packed form, so its buffer
 * is sent as it is; those pairs travel as value + int, 12 bytes for
 * MPI_DOUBLE_INT, as in Open MPI. Derived types (datatype_create.c) answer the same
 * queries from their description (datatype_impl.h).
 *
 * Rejected: an enum of type codes with a size table (the handle would have
 * to be an integer; see mpi.h for why handles are pointers); sending pair
 * types with their padding (then a vector of them could not be packed to
 * MPI_Type_size bytes, and MPI_Get_count would need the extent).
 *
 * Invariants: predefined types have size <= extent and basic >= 1 (a
 * derived type's extent may be anything, negative included).
 * Locking: none (predefined objects are read-only, derived ones immutable
 * but for their name and committed flag).
 */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "engine/objects/datatype_impl.h"

#define TYPE WMPI_TYPE
#define PAIR_TYPE WMPI_PAIR_TYPE

/* MPI_CHAR reduces as the integer C makes of char (op_kernels.c). */
#define WMPI_TC_CHAR_INT (CHAR_MIN < 0 ? WMPI_TC_INT : WMPI_TC_UINT)
TYPE(wmpi_dt_char, char, CHAR_INT, "MPI_CHAR");
TYPE(wmpi_dt_signed_char, signed char, INT, "MPI_SIGNED_CHAR");
TYPE(wmpi_dt_unsigned_char, unsigned char, UINT, "MPI_UNSIGNED_CHAR");
TYPE(wmpi_dt_byte, unsigned char, BYTE, "MPI_BYTE");
TYPE(wmpi_dt_packed, unsigned char, NONE, "MPI_PACKED");
TYPE(wmpi_dt_short, short, INT, "MPI_SHORT");
TYPE(wmpi_dt_unsigned_short, unsigned short, UINT, "MPI_UNSIGNED_SHORT");
TYPE(wmpi_dt_int, int, INT, "MPI_INT");
TYPE(wmpi_dt_unsigned, unsigned, UINT, "MPI_UNSIGNED");
TYPE(wmpi_dt_long, long, INT, "MPI_LONG");
TYPE(wmpi_dt_unsigned_long, unsigned long, UINT, "MPI_UNSIGNED_LONG");
TYPE(wmpi_dt_long_long, long long, INT, "MPI_LONG_LONG_INT");
TYPE(wmpi_dt_unsigned_long_long, unsigned long long, UINT, "MPI_UNSIGNED_LONG_LONG");
TYPE(wmpi_dt_float, float, FLOAT, "MPI_FLOAT");
TYPE(wmpi_dt_double, double, FLOAT, "MPI_DOUBLE");
TYPE(wmpi_dt_long_double, long double, FLOAT, "MPI_LONG_DOUBLE");
TYPE(wmpi_dt_wchar, wchar_t, NONE, "MPI_WCHAR");
TYPE(wmpi_dt_c_bool, bool, BOOL, "MPI_C_BOOL");
TYPE(wmpi_dt_int8, int8_t, INT, "MPI_INT8_T");
TYPE(wmpi_dt_int16, int16_t, INT, "MPI_INT16_T");
TYPE(wmpi_dt_int32, int32_t, INT, "MPI_INT32_T");
TYPE(wmpi_dt_int64, int64_t, INT, "MPI_INT64_T");
TYPE(wmpi_dt_uint8, uint8_t, UINT, "MPI_UINT8_T");
TYPE(wmpi_dt_uint16, uint16_t, UINT, "MPI_UINT16_T");
TYPE(wmpi_dt_uint32, uint32_t, UINT, "MPI_UINT32_T");
TYPE(wmpi_dt_uint64, uint64_t, UINT, "MPI_UINT64_T");
TYPE(wmpi_dt_aint, intptr_t, INT, "MPI_AINT");
TYPE(wmpi_dt_offset, long long, INT, "MPI_OFFSET");
TYPE(wmpi_dt_count, long long, INT, "MPI_COUNT");
TYPE(wmpi_dt_c_float_complex, float _Complex, COMPLEX, "MPI_C_FLOAT_COMPLEX");
TYPE(wmpi_dt_c_double_complex, double _Complex, COMPLEX, "MPI_C_DOUBLE_COMPLEX");
TYPE(wmpi_dt_c_long_double_complex, long double _Complex, COMPLEX,
     "MPI_C_LONG_DOUBLE_COMPLEX");

PAIR_TYPE(wmpi_dt_float_int, float, FLOAT, "MPI_FLOAT_INT");
PAIR_TYPE(wmpi_dt_double_int, double, FLOAT, "MPI_DOUBLE_INT");
PAIR_TYPE(wmpi_dt_long_int, long, INT, "MPI_LONG_INT");
PAIR_TYPE(wmpi_dt_2int, int, INT, "MPI_2INT");
PAIR_TYPE(wmpi_dt_short_int, short, INT, "MPI_SHORT_INT");
PAIR_TYPE(wmpi_dt_long_double_int, long double, FLOAT, "MPI_LONG_DOUBLE_INT");

/* ------------------------------------------------------------- layout */

int wmpi_datatype_is_predefined(const wmpi_datatype *dt)
{
    return dt->derived == NULL;
}

static int pair_has_hole(const wmpi_datatype *dt)
{
    return dt->tclass == WMPI_TC_PAIR &&
           dt->pair_index_offset != dt->pair_value_size;
}

const wmpi_seg *wmpi_datatype_segs(const wmpi_datatype *dt, wmpi_seg tmp[2],
                             int64_t *n)
{
    if (dt->derived) {
        *n = dt->derived->nsegs;
        return dt->derived->segs;
    }
    if (pair_has_hole(dt)) {
        tmp[0] = (wmpi_seg){ 0, dt->pair_value_size, 1, 0 };
        tmp[1] = (wmpi_seg){ dt->pair_index_offset, sizeof(int), 1, 0 };
        *n = 2;
        return tmp;
    }
    tmp[0] = (wmpi_seg){ 0, (int64_t)dt->size, 1, 0 };
    *n = dt->size ? 1 : 0;
    return tmp;
}

int wmpi_datatype_is_contig(const wmpi_datatype *dt)
{
    const struct wmpi_dtd *d = dt->derived;

    if (!d)
        return (int64_t)dt->size == dt->extent;
    if (d->size == 0)
        return dt->extent == 0 && d->lb == 0;
    return d->nsegs == 1 && d->segs[0].count == 1 && d->segs[0].disp == 0 &&
           d->lb == 0 && d->segs[0].len == d->size &&
           (int64_t)dt->extent == d->size;
}

int wmpi_datatype_dense(const wmpi_datatype *dt, int64_t count,
                        int64_t *offset)
{
    wmpi_seg tmp[2];
    int64_t n;
    const wmpi_seg *s = wmpi_datatype_segs(dt, tmp, &n);

    *offset = 0;
    if (dt->size == 0 || count == 0)
        return 1;
    if (n != 1 || s[0].count != 1 || s[0].len != (int64_t)dt->size)
        return 0;
    if (count > 1 && dt->extent != (int64_t)dt->size)
        return 0;
    *offset = s[0].disp;
    return 1;
}

const void *wmpi_send_data(const wmpi_request *r)
{
    int64_t off;

    if (r->packed)
        return r->packed;
    wmpi_datatype_dense(r->dt, r->count, &off);
    return wmpi_dt_at(r->buf, off);
}

wmpi_datatype *wmpi_datatype_basic(const wmpi_datatype *dt)
{
    return dt->derived ? dt->derived->basic : (wmpi_datatype *)dt;
}

int64_t wmpi_datatype_nbasic(const wmpi_datatype *dt)
{
    return dt->derived ? dt->derived->nbasic : dt->basic;
}

int wmpi_datatype_is_basic_array(const wmpi_datatype *dt, int64_t count,
                                 int64_t *offset)
{
    const struct wmpi_dtd *d = dt->derived;
    const wmpi_datatype *b = wmpi_datatype_basic(dt);

    *offset = 0;
    if (!d)
        return 1;
    if (!b || d->size == 0 || (int64_t)b->size != b->extent)
        return 0;
    if (d->nsegs != 1 || d->segs[0].count != 1 || d->segs[0].len != d->size)
        return 0;
    if (count > 1 && (int64_t)dt->extent != d->size)
        return 0;
    *offset = d->segs[0].disp;
    return 1;
}

void wmpi_datatype_bounds(const wmpi_datatype *dt, wmpi_bounds *b)
{
    const struct wmpi_dtd *d = dt->derived;

    if (d) {
        *b = (wmpi_bounds){ d->lb, d->ub - d->lb, d->true_lb,
                            d->true_ub - d->true_lb };
        return;
    }
    b->lb = 0;
    b->extent = (int64_t)dt->extent;
    b->true_lb = 0;
    b->true_extent = dt->tclass == WMPI_TC_PAIR
                         ? dt->pair_index_offset + (int64_t)sizeof(int)
                         : (int64_t)dt->extent;
}

int wmpi_datatype_is_valid(const wmpi_datatype *dt)
{
    uintptr_t p = (uintptr_t)dt;

    if (p < 4096 || p % _Alignof(wmpi_datatype))
        return 0;
    if (!dt->derived) /* predefined: a static object, always named */
        return dt->name != NULL;
    return __atomic_load_n(&dt->derived->magic, __ATOMIC_ACQUIRE) == WMPI_DTD_LIVE;
}

int wmpi_datatype_committed(const wmpi_datatype *dt)
{
    return wmpi_datatype_is_valid(dt) &&
           (!dt->derived || __atomic_load_n(&dt->derived->committed, __ATOMIC_ACQUIRE));
}

int64_t wmpi_datatype_bytes(const wmpi_datatype *dt, int64_t count)
{
    if (count < 0 || !dt)
        return WEFT_EINVAL;
    if (dt->size && count > INT64_MAX / (int64_t)dt->size)
        return WEFT_EINVAL;
    return count * (int64_t)dt->size;
}

int wmpi_datatype_fits(const wmpi_datatype *dt, int64_t count)
{
    int64_t off;

    if (wmpi_datatype_bytes(dt, count) < 0)
        return 0;
    return count == 0 || !__builtin_mul_overflow(count - 1, dt->extent, &off);
}

int wmpi_datatype_span(const wmpi_datatype *dt, int64_t count, int64_t *lo,
                       int64_t *hi)
{
    wmpi_bounds b;
    int64_t last;

    *lo = *hi = 0;
    if (!wmpi_datatype_fits(dt, count))
        return WEFT_EINVAL;
    if (count == 0 || dt->size == 0)
        return 0;
    wmpi_datatype_bounds(dt, &b);
    last = (count - 1) * b.extent; /* fits: checked above */
    if (__builtin_add_overflow(last < 0 ? last : 0, b.true_lb, lo) ||
        __builtin_add_overflow(last > 0 ? last : 0, b.true_lb + b.true_extent,
                               hi)) {
        *lo = *hi = 0;
        return WEFT_EINVAL;
    }
    return 0;
}

/* ------------------------------------------------------------ statuses */

int64_t wmpi_datatype_count(const wmpi_datatype *dt, int64_t bytes)
{
    if (dt->size == 0)
        return 0;
    if (bytes % (int64_t)dt->size)
        return -1;
    return bytes / (int64_t)dt->size;
}

/* Basic elements in the first `rem` bytes of one element (rem < size). */
static int64_t elements_part(const wmpi_datatype *dt, int64_t rem)
{
    const wmpi_type_args *a;
    int64_t n = 0, blk, part;

    if (!dt->derived) {
        if (dt->tclass == WMPI_TC_PAIR)
            return rem == dt->pair_value_size ? 1 : -1;
        return -1; /* inside one basic element */
    }
    a = &dt->derived->args;
    if (a->combiner != WMPI_COMBINER_STRUCT)
        return wmpi_datatype_elements(a->types[0], rem);
    for (int i = 0; i < a->nt && rem > 0; i++) {
        blk = (int64_t)a->ints[1 + i] * (int64_t)a->types[i]->size;
        if (rem < blk) {
            part = wmpi_datatype_elements(a->types[i], rem);
            return part < 0 ? -1 : n + part;
        }
        n += (int64_t)a->ints[1 + i] * wmpi_datatype_nbasic(a->types[i]);
        rem -= blk;
    }
    return n;
}

int64_t wmpi_datatype_elements(const wmpi_datatype *dt, int64_t bytes)
{
    int64_t size = (int64_t)dt->size, part;

    if (size == 0)
        return 0;
    if (bytes % size == 0)
        return bytes / size * wmpi_datatype_nbasic(dt);
    part = elements_part(dt, bytes % size);
    return part < 0 ? -1 : bytes / size * wmpi_datatype_nbasic(dt) + part;
}

/* Bytes of the first `n` basic elements of one element (n < nbasic). */
static int64_t elements_bytes_part(const wmpi_datatype *dt, int64_t n)
{
    const wmpi_type_args *a;
    int64_t bytes = 0, cnt, part;

    if (!dt->derived) /* a pair's value (a single basic element has n 0) */
        return dt->tclass == WMPI_TC_PAIR ? dt->pair_value_size : 0;
    a = &dt->derived->args;
    if (a->combiner != WMPI_COMBINER_STRUCT)
        return wmpi_datatype_elements_bytes(a->types[0], n);
    for (int i = 0; i < a->nt && n > 0; i++) {
        cnt = (int64_t)a->ints[1 + i] * wmpi_datatype_nbasic(a->types[i]);
        if (n < cnt) {
            part = wmpi_datatype_elements_bytes(a->types[i], n);
            return part < 0 ? -1 : bytes + part;
        }
        bytes += (int64_t)a->ints[1 + i] * (int64_t)a->types[i]->size;
        n -= cnt;
    }
    return bytes;
}

int64_t wmpi_datatype_elements_bytes(const wmpi_datatype *dt, int64_t n)
{
    int64_t per = wmpi_datatype_nbasic(dt), part;

    if (per == 0)
        return n == 0 ? 0 : -1;
    part = elements_bytes_part(dt, n % per);
    return part < 0 ? -1 : n / per * (int64_t)dt->size + part;
}
