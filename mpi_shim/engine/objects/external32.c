/* The "external32" data representation (MPI-3.1 13.5.2) behind
 * MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size.
 *
 * Design: external32 is the packed form of datatype.h (the type map's
 * data in type-map order, without gaps) with every basic value rewritten
 * big-endian at the fixed size of MPI-3.1 Table 13.2. So packing is the
 * native pack (datatype_pack.c's traversal) followed by a conversion of
 * the packed stream value by value, and unpacking is the reverse. The
 * conversion needs the sequence of basic types of the type map, which
 * follows from the constructor arguments and sizes alone: a type of a
 * single basic type is a run of it; a struct is its blocks in order; any
 * other derived type, built from one old type, is size / oldsize copies
 * of the old type's map (vector, subarray, darray... alike).
 *
 * Sizes (Table 13.2): MPI_LONG and MPI_UNSIGNED_LONG 4 bytes, MPI_WCHAR
 * 2, long double (and its complex) 16 per part as an IEEE binary128, and
 * every other type its native size. An integer narrower outside is cut to
 * its low bytes (values out of range are lost, as the standard allows),
 * a wider one is sign- or zero-extended back. Open MPI 4.1 packs the same
 * 4 bytes for MPI_LONG but reports an 8-byte upper bound for it in
 * MPI_Pack_external_size; we report the exact size (also an upper
 * bound). long double converts between the C compiler's format (x87
 * 80-bit extended or IEEE binary128) and binary128, truncating the
 * extra mantissa bits on the way in.
 *
 * Rejected: a second walk of the memory layout by type map (the pack
 * engine already has the fast one; the conversion pass works on a dense
 * stream); sizes by type name (users may rename predefined types).
 * Invariants: external32 size of count elements = count * ext_size(dt).
 * Locking: none (datatypes are immutable once built).
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "engine/objects/datatype_impl.h"

extern wmpi_datatype wmpi_dt_long, wmpi_dt_unsigned_long, wmpi_dt_wchar,
    wmpi_dt_long_int;

/* How one basic value converts. */
enum conv { CV_SIGNED, CV_UNSIGNED, CV_LDOUBLE };

typedef struct leaf {
    uint8_t conv; /* enum conv */
    uint8_t n;    /* native bytes */
    uint8_t e;    /* external32 bytes */
} leaf;

/* ------------------------------------------------------ basic values */

/* A long double value (told apart from double by its size; formats
 * other than x87 extended and binary128, e.g. double-double, are moved as
 * plain bytes: not supported). */
static int is_long_double(int cls, size_t n)
{
#if LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113
    return cls == WMPI_TC_FLOAT && n == sizeof(long double);
#else
    (void)cls, (void)n;
    return 0;
#endif
}

/* The value leaf of a class and native size (floats of 4 and 8 bytes
 * convert as same-size integers: a byte swap). */
static leaf value_leaf(int cls, size_t n, size_t ext)
{
    if (is_long_double(cls, n))
        return (leaf){ CV_LDOUBLE, (uint8_t)n, 16 };
    return (leaf){ cls == WMPI_TC_INT ? CV_SIGNED : CV_UNSIGNED, (uint8_t)n,
                   (uint8_t)ext };
}

/* The leaves of one element of predefined type dt (1 or 2). */
static int leaves_of(const wmpi_datatype *dt, leaf out[2])
{
    size_t ext = dt->size;

    if (dt == &wmpi_dt_long || dt == &wmpi_dt_unsigned_long)
        ext = 4;
    else if (dt == &wmpi_dt_wchar)
        ext = 2;
    switch (dt->tclass) {
    case WMPI_TC_PAIR: /* value, then index (int, or the value's type) */
        out[0] = value_leaf(dt->pair_class, dt->pair_value_size,
                            dt == &wmpi_dt_long_int ? 4 : dt->pair_value_size);
        out[1] = value_leaf(WMPI_TC_INT, dt->size - dt->pair_value_size,
                            dt->size - dt->pair_value_size);
        return 2;
    case WMPI_TC_COMPLEX: /* real part, imaginary part */
        out[0] = value_leaf(WMPI_TC_FLOAT, dt->size / 2, dt->size / 2);
        out[1] = out[0];
        return 2;
    default:
        out[0] = value_leaf(dt->tclass, dt->size, ext);
        return 1;
    }
}

static int64_t predefined_ext_size(const wmpi_datatype *dt)
{
    leaf l[2];
    int n = leaves_of(dt, l);

    return l[0].e + (n > 1 ? l[1].e : 0);
}

/* An integer of n native bytes as 64 bits (sign-extended if asked). */
static uint64_t load_native(const unsigned char *p, int n, int sign)
{
    switch (n) {
    case 1: { uint8_t v; memcpy(&v, p, 1);
              return sign ? (uint64_t)(int64_t)(int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2);
              return sign ? (uint64_t)(int64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4);
              return sign ? (uint64_t)(int64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_native(unsigned char *p, int n, uint64_t v)
{
    switch (n) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static void store_be(unsigned char *p, int e, uint64_t v)
{
    for (int i = e - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

static uint64_t load_be(const unsigned char *p, int e, int sign)
{
    uint64_t v = 0;

    for (int i = 0; i < e; i++)
        v = v << 8 | p[i];
    if (sign && e < 8 && (p[0] & 0x80))
        v |= ~(uint64_t)0 << (8 * e);
    return v;
}

/* An integer (or 4/8-byte float) of more than 8 bytes: a plain byte
 * reversal between the native little-endian order and big-endian. */
static void reverse_copy(unsigned char *dst, const unsigned char *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* long double <-> IEEE binary128 (big-endian, 16 bytes) from x87
 * extended (64-bit mantissa with an explicit integer bit, then sign and
 * the 15-bit exponent, which has binary128's bias) or binary128 itself
 * (little-endian hosts, as everywhere else in the engine). */
static void ld_to_quad(const unsigned char *in, unsigned char out[16])
{
#if LDBL_MANT_DIG == 64
    uint64_t mant;
    uint16_t se, hi16;
    uint64_t frac_hi, frac_lo; /* the 112-bit fraction: 48 + 64 bits */

    memcpy(&mant, in, 8);
    memcpy(&se, in + 8, 2);
    mant &= ~((uint64_t)1 << 63); /* the explicit integer bit */
    frac_hi = mant >> 15;         /* the fraction's top 48 bits */
    frac_lo = mant << 49;
    hi16 = se;                    /* sign and exponent: same bias */
    store_be(out, 2, hi16);
    store_be(out + 2, 6, frac_hi);
    store_be(out + 8, 8, frac_lo);
#elif LDBL_MANT_DIG == 113
    reverse_copy(out, in, 16);
#else
    (void)in, (void)out; /* unreachable: see is_long_double */
#endif
}

static void quad_to_ld(const unsigned char in[16], unsigned char *out)
{
#if LDBL_MANT_DIG == 64
    uint16_t se = (uint16_t)load_be(in, 2, 0);
    uint64_t frac_hi = load_be(in + 2, 6, 0), frac_lo = load_be(in + 8, 8, 0);
    uint64_t mant = frac_hi << 15 | frac_lo >> 49;

    if ((se & 0x7fff) != 0) /* normal, infinity, NaN: integer bit set */
        mant |= (uint64_t)1 << 63;
    memset(out, 0, sizeof(long double));
    memcpy(out, &mant, 8);
    memcpy(out + 8, &se, 2);
#elif LDBL_MANT_DIG == 113
    reverse_copy(out, in, 16);
#else
    (void)in, (void)out; /* unreachable: see is_long_double */
#endif
}

/* Convert one value: native -> external (to_ext) or back. */
static void convert(const leaf *l, int to_ext, const unsigned char *in,
                    unsigned char *out)
{
    if (l->conv == CV_LDOUBLE) {
        if (to_ext)
            ld_to_quad(in, out);
        else
            quad_to_ld(in, out);
    } else if (l->n > 8) { /* same size (e.g. a 16-byte integer) */
        reverse_copy(out, in, l->n);
    } else if (to_ext) {
        store_be(out, l->e, load_native(in, l->n, l->conv == CV_SIGNED));
    } else {
        store_native(out, l->n, load_be(in, l->e, l->conv == CV_SIGNED));
    }
}

/* ---------------------------------------------------- the type map */

/* Where a conversion pass is: the native packed stream and the external
 * stream, both moving forward. */
typedef struct pass {
    int to_ext;
    const unsigned char *in;
    unsigned char *out;
} pass;

static void run_leaves(pass *p, const wmpi_datatype *b, int64_t reps)
{
    leaf l[2];
    int n = leaves_of(b, l);

    for (int64_t r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            convert(&l[i], p->to_ext, p->in, p->out);
            p->in += p->to_ext ? l[i].n : l[i].e;
            p->out += p->to_ext ? l[i].e : l[i].n;
        }
    }
}

/* dt's constructor arguments in *a, and how many copies of its single
 * old type its type map is (-1: a struct, whose blocks say). */
static int64_t old_copies(const wmpi_datatype *dt, wmpi_type_args *a)
{
    wmpi_datatype_args(dt, a);
    if (a->combiner == WMPI_COMBINER_STRUCT)
        return -1;
    return a->types[0]->size ? (int64_t)(dt->size / a->types[0]->size) : 0;
}

/* Convert `reps` elements of dt. */
static void run_type(pass *p, const wmpi_datatype *dt, int64_t reps)
{
    const wmpi_datatype *b = wmpi_datatype_basic(dt);
    wmpi_type_args a;
    int64_t k;

    if (dt->size == 0 || reps == 0)
        return;
    if (b) { /* a run of one basic type */
        run_leaves(p, b, reps * (int64_t)(dt->size / b->size));
        return;
    }
    k = old_copies(dt, &a);
    for (int64_t r = 0; r < reps; r++) {
        if (k >= 0) {
            run_type(p, a.types[0], k);
            continue;
        }
        for (int i = 0; i < a.ints[0]; i++)
            run_type(p, a.types[i], a.ints[1 + i]);
    }
}

/* external32 bytes of one element of dt, or -1 on overflow. */
static int64_t ext_size(const wmpi_datatype *dt)
{
    const wmpi_datatype *b = wmpi_datatype_basic(dt);
    wmpi_type_args a;
    int64_t k, sum = 0;

    if (dt->size == 0)
        return 0;
    if (b) /* at most 2x the native size: no overflow */
        return (int64_t)(dt->size / b->size) * predefined_ext_size(b);
    k = old_copies(dt, &a);
    if (k >= 0) {
        int64_t one = ext_size(a.types[0]);

        return one < 0 || (one && k > INT64_MAX / one) ? -1 : k * one;
    }
    for (int i = 0; i < a.ints[0]; i++) {
        int64_t one = ext_size(a.types[i]), bl = a.ints[1 + i];

        if (one < 0 || (one && bl > (INT64_MAX - sum) / one))
            return -1;
        sum += bl * one;
    }
    return sum;
}

/* ------------------------------------------------------------ API */

int64_t wmpi_external32_size(const wmpi_datatype *dt, int64_t count)
{
    int64_t one = ext_size(dt);

    if (count < 0 || one < 0 || (one && count > INT64_MAX / one))
        return WEFT_EINVAL;
    return count * one;
}

/* Converts `count` elements of dt between the native buffer and external32
 * bytes (to_ext: in is native, out external32; else the reverse) through
 * a packed native copy; the external32 size or a negative WEFT_E*. */
static int64_t convert_all(const wmpi_datatype *dt, int64_t count, int to_ext,
                           const void *in, void *out)
{
    int64_t bytes = wmpi_datatype_bytes(dt, count),
            size = wmpi_external32_size(dt, count);
    unsigned char *native;
    pass p;

    if (bytes < 0 || size < 0)
        return WEFT_EINVAL;
    native = malloc(bytes ? (size_t)bytes : 1);
    if (!native)
        return WEFT_ENOMEM;
    if (to_ext) {
        wmpi_datatype_pack(dt, count, in, native);
        p = (pass){ 1, native, out };
    } else {
        p = (pass){ 0, in, native };
    }
    run_type(&p, dt, count);
    if (!to_ext)
        wmpi_datatype_unpack(dt, count, native, out);
    free(native);
    return size;
}

int64_t wmpi_external32_pack(const wmpi_datatype *dt, int64_t count,
                             const void *buf, void *out)
{
    return convert_all(dt, count, 1, buf, out);
}

int64_t wmpi_external32_unpack(const wmpi_datatype *dt, int64_t count,
                               const void *in, void *buf)
{
    return convert_all(dt, count, 0, in, buf);
}
