/* Reduction kernels of the predefined ops, and which kernel serves which
 * (op, type class, size).
 *
 * Design: one plain loop per (op, element type), `inout[i] = in[i] op
 * inout[i]`, with no call or switch per element, so the compiler vectorises
 * it. A kernel is chosen once per call from tables indexed by the type's
 * class (enum wmpi_type_class) and size, never by the datatype object: the
 * C, Fortran and C++ names of one class and size share a kernel. Which ops
 * a class admits follows MPI-3.1 5.9.2:
 *   SUM, PROD        integer, floating point, complex
 *   MAX, MIN         integer, floating point
 *   LAND, LOR, LXOR  integer, logical
 *   BAND, BOR, BXOR  integer, byte
 *   MAXLOC, MINLOC   the value-index pair types (ties keep the lower index)
 *   REPLACE, NO_OP   any predefined type (accumulate only, see op.h)
 * MPI_CHAR, which the standard lists under no op, is an integer here (of
 * char's signedness), as in Open MPI and MPICH: programs such as the OSU
 * reduction benchmarks reduce it with MPI_SUM. (Open MPI also takes
 * MPI_BYTE for arithmetic; the standard does not, and neither do we.)
 *
 * Integer arithmetic is done in unsigned types of at least int's width
 * (wrapping, as every MPI does, instead of signed overflow, which is
 * undefined; uint16_t would promote to int and overflow in PROD). Complex
 * numbers are pairs of reals: SUM adds 2n reals, PROD multiplies by the
 * textbook formula (C's `*` on _Complex calls __muldc3 per element for
 * its NaN/infinity rules, which no MPI reduction promises). Logical
 * results are 0 or 1 of the operand's width (C _Bool, Fortran LOGICAL).
 *
 * Pair types (MPI_DOUBLE_INT...) are read through memcpy at the type's
 * value size and index offset, with the extent as stride, whatever the
 * padding. The index is an int, or, when it is 8 bytes, of the value's type
 * (Fortran MPI_2DOUBLE_PRECISION, 2INTEGER with 8-byte integers). Fortran
 * MPI_2REAL's 4-byte REAL index is indistinguishable from MPI_FLOAT_INT's
 * int by layout; it is compared as an int, which orders non-negative
 * REALs correctly (IEEE bit patterns) and copies any REAL exactly.
 *
 * Rejected: a switch on the op inside the loop (no vectorisation); a
 * function pointer per element (a call per element, as a user op).
 * Invariants: a table entry is NULL exactly when MPI does not define the op
 * on that class. Locking: none (no state).
 */
#include <stdint.h>
#include <string.h>

#include "engine/objects/op.h"

/* -O2 in GCC 12 vectorises only loops of known trip count; these are the
 * loops that must be vectorised whatever the build type. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#define KERNEL_HEAD(name)                                                  \
    static void name(const void *in_, void *io_, int64_t n,                \
                     const wmpi_datatype *dt)

/* b[i] = expr, with x = in[i] and y = inout[i] of type T. */
#define ELEMENTWISE(name, T, expr)                                         \
    KERNEL_HEAD(name)                                                      \
    {                                                                      \
        const T *restrict a = in_;                                         \
        T *restrict b = io_;                                               \
        (void)dt;                                                          \
        for (int64_t i = 0; i < n; i++) {                                  \
            T x = a[i], y = b[i];                                          \
            b[i] = (T)(expr);                                              \
        }                                                                  \
    }

/* ------------------------------------------------------------ integers */

/* T: the element type; W: the unsigned type the arithmetic wraps in. */
#define INTEGER_KERNELS(sfx, T, W)                                         \
    ELEMENTWISE(sum_##sfx, T, (W)x + (W)y)                                 \
    ELEMENTWISE(prod_##sfx, T, (W)x * (W)y)                                \
    ELEMENTWISE(max_##sfx, T, x > y ? x : y)                               \
    ELEMENTWISE(min_##sfx, T, x < y ? x : y)                               \
    ELEMENTWISE(land_##sfx, T, (x != 0) & (y != 0))                        \
    ELEMENTWISE(lor_##sfx, T, (x != 0) | (y != 0))                         \
    ELEMENTWISE(lxor_##sfx, T, (x != 0) ^ (y != 0))                        \
    ELEMENTWISE(band_##sfx, T, x & y)                                      \
    ELEMENTWISE(bor_##sfx, T, x | y)                                       \
    ELEMENTWISE(bxor_##sfx, T, x ^ y)

#define INTEGER_ROW(sfx)                                                   \
    {                                                                      \
        [WMPI_OP_SUM] = sum_##sfx, [WMPI_OP_PROD] = prod_##sfx,            \
        [WMPI_OP_MAX] = max_##sfx, [WMPI_OP_MIN] = min_##sfx,              \
        [WMPI_OP_LAND] = land_##sfx, [WMPI_OP_LOR] = lor_##sfx,            \
        [WMPI_OP_LXOR] = lxor_##sfx, [WMPI_OP_BAND] = band_##sfx,          \
        [WMPI_OP_BOR] = bor_##sfx, [WMPI_OP_BXOR] = bxor_##sfx,            \
    }

INTEGER_KERNELS(i8, int8_t, uint32_t)
INTEGER_KERNELS(i16, int16_t, uint32_t)
INTEGER_KERNELS(i32, int32_t, uint32_t)
INTEGER_KERNELS(i64, int64_t, uint64_t)
INTEGER_KERNELS(u8, uint8_t, uint32_t)
INTEGER_KERNELS(u16, uint16_t, uint32_t)
INTEGER_KERNELS(u32, uint32_t, uint32_t)
INTEGER_KERNELS(u64, uint64_t, uint64_t)

/* Rows by log2(size): 1, 2, 4, 8 bytes. */
static wmpi_op_kernel *const signed_rows[4][WMPI_OP_COUNT] = {
    INTEGER_ROW(i8), INTEGER_ROW(i16), INTEGER_ROW(i32), INTEGER_ROW(i64),
};
static wmpi_op_kernel *const unsigned_rows[4][WMPI_OP_COUNT] = {
    INTEGER_ROW(u8), INTEGER_ROW(u16), INTEGER_ROW(u32), INTEGER_ROW(u64),
};

/* -------------------------------------------------- logical and bytes */

#define LOGICAL_KERNELS(sfx, T)                                            \
    ELEMENTWISE(land_l##sfx, T, (x != 0) & (y != 0))                       \
    ELEMENTWISE(lor_l##sfx, T, (x != 0) | (y != 0))                        \
    ELEMENTWISE(lxor_l##sfx, T, (x != 0) ^ (y != 0))

#define LOGICAL_ROW(sfx)                                                   \
    {                                                                      \
        [WMPI_OP_LAND] = land_l##sfx, [WMPI_OP_LOR] = lor_l##sfx,          \
        [WMPI_OP_LXOR] = lxor_l##sfx,                                      \
    }

LOGICAL_KERNELS(8, uint8_t)
LOGICAL_KERNELS(16, uint16_t)
LOGICAL_KERNELS(32, uint32_t)
LOGICAL_KERNELS(64, uint64_t)

static wmpi_op_kernel *const logical_rows[4][WMPI_OP_COUNT] = {
    LOGICAL_ROW(8), LOGICAL_ROW(16), LOGICAL_ROW(32), LOGICAL_ROW(64),
};

static wmpi_op_kernel *const byte_row[WMPI_OP_COUNT] = {
    [WMPI_OP_BAND] = band_u8, [WMPI_OP_BOR] = bor_u8, [WMPI_OP_BXOR] = bxor_u8,
};

/* ---------------------------------------------------- floating point */

#define FLOAT_KERNELS(sfx, T)                                              \
    ELEMENTWISE(sum_##sfx, T, x + y)                                       \
    ELEMENTWISE(prod_##sfx, T, x * y)                                      \
    ELEMENTWISE(max_##sfx, T, x > y ? x : y)                               \
    ELEMENTWISE(min_##sfx, T, x < y ? x : y)                               \
    KERNEL_HEAD(csum_##sfx)                                                \
    {                                                                      \
        sum_##sfx(in_, io_, 2 * n, dt);                                    \
    }                                                                      \
    KERNEL_HEAD(cprod_##sfx)                                               \
    {                                                                      \
        const T *restrict a = in_;                                         \
        T *restrict b = io_;                                               \
        (void)dt;                                                          \
        for (int64_t i = 0; i < 2 * n; i += 2) {                           \
            T ar = a[i], ai = a[i + 1], br = b[i], bi = b[i + 1];          \
            b[i] = ar * br - ai * bi;                                      \
            b[i + 1] = ar * bi + ai * br;                                  \
        }                                                                  \
    }

#define FLOAT_ROW(sfx)                                                     \
    {                                                                      \
        [WMPI_OP_SUM] = sum_##sfx, [WMPI_OP_PROD] = prod_##sfx,            \
        [WMPI_OP_MAX] = max_##sfx, [WMPI_OP_MIN] = min_##sfx,              \
    }
#define COMPLEX_ROW(sfx)                                                   \
    { [WMPI_OP_SUM] = csum_##sfx, [WMPI_OP_PROD] = cprod_##sfx }

FLOAT_KERNELS(f32, float)
FLOAT_KERNELS(f64, double)
FLOAT_KERNELS(fld, long double)

/* float, double, long double (of which only the first size match counts:
 * where long double is double, both rows do the same). */
static const size_t float_sizes[3] = {
    sizeof(float), sizeof(double), sizeof(long double),
};
static wmpi_op_kernel *const float_rows[3][WMPI_OP_COUNT] = {
    FLOAT_ROW(f32), FLOAT_ROW(f64), FLOAT_ROW(fld),
};
static wmpi_op_kernel *const complex_rows[3][WMPI_OP_COUNT] = {
    COMPLEX_ROW(f32), COMPLEX_ROW(f64), COMPLEX_ROW(fld),
};

/* ------------------------------------------------ MAXLOC and MINLOC */

/* V: value type, I: index type; `wins(x, y)` says the incoming value x
 * beats the current y (strictly); equal values keep the lower index. */
#define PAIR_KERNEL(name, V, I, wins)                                      \
    KERNEL_HEAD(name)                                                      \
    {                                                                      \
        const unsigned char *a = in_;                                      \
        unsigned char *b = io_;                                            \
        size_t off = dt->pair_index_offset, step = dt->extent;             \
        for (int64_t i = 0; i < n; i++, a += step, b += step) {            \
            V x, y;                                                        \
            I ix, iy;                                                      \
            memcpy(&x, a, sizeof x);                                       \
            memcpy(&y, b, sizeof y);                                       \
            memcpy(&ix, a + off, sizeof ix);                               \
            memcpy(&iy, b + off, sizeof iy);                               \
            if (wins(x, y)) {                                              \
                memcpy(b, &x, sizeof x);                                   \
                memcpy(b + off, &ix, sizeof ix);                           \
            } else if (x == y && ix < iy) {                                \
                memcpy(b + off, &ix, sizeof ix);                           \
            }                                                              \
        }                                                                  \
    }

#define GREATER(x, y) ((x) > (y))
#define LESS(x, y) ((x) < (y))
#define PAIR_KERNELS(sfx, V, I)                                            \
    PAIR_KERNEL(maxloc_##sfx, V, I, GREATER)                               \
    PAIR_KERNEL(minloc_##sfx, V, I, LESS)
#define PAIR_ROW(sfx)                                                      \
    { [WMPI_OP_MAXLOC] = maxloc_##sfx, [WMPI_OP_MINLOC] = minloc_##sfx }

PAIR_KERNELS(i16, int16_t, int)
PAIR_KERNELS(i32, int32_t, int)
PAIR_KERNELS(i64, int64_t, int)
PAIR_KERNELS(f32, float, int)
PAIR_KERNELS(f64, double, int)
PAIR_KERNELS(fld, long double, int)
PAIR_KERNELS(i64i64, int64_t, int64_t)
PAIR_KERNELS(f64f64, double, double)

/* Integer values by log2(size) (no 1-byte pair type exists), int index. */
static wmpi_op_kernel *const pair_int_rows[4][WMPI_OP_COUNT] = {
    {0}, PAIR_ROW(i16), PAIR_ROW(i32), PAIR_ROW(i64),
};
static wmpi_op_kernel *const pair_float_rows[3][WMPI_OP_COUNT] = {
    PAIR_ROW(f32), PAIR_ROW(f64), PAIR_ROW(fld),
};
static wmpi_op_kernel *const pair_wide_int_row[WMPI_OP_COUNT] = PAIR_ROW(i64i64);
static wmpi_op_kernel *const pair_wide_float_row[WMPI_OP_COUNT] = PAIR_ROW(f64f64);

/* -------------------------------------------------- REPLACE and NO_OP */

KERNEL_HEAD(replace_any)
{
    memmove(io_, in_, (size_t)n * dt->extent);
}

KERNEL_HEAD(no_op_any)
{
    (void)in_, (void)io_, (void)n, (void)dt;
}

/* ------------------------------------------------------------ lookup */

/* 0..3 for sizes 1, 2, 4, 8; -1 otherwise. */
static int log2_size(size_t size)
{
    switch (size) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return -1;
    }
}

/* 0..2 for the sizes of float, double, long double; -1 otherwise. */
static int float_index(size_t size)
{
    for (int i = 0; i < 3; i++)
        if (float_sizes[i] == size)
            return i;
    return -1;
}

static wmpi_op_kernel *const *pair_row(const wmpi_datatype *dt)
{
    size_t vsize = dt->pair_value_size, isize = dt->size - vsize;
    int k;

    if (dt->size < vsize || (int64_t)(dt->pair_index_offset + isize) > dt->extent)
        return NULL;
    if (isize == sizeof(int)) {
        if (dt->pair_class == WMPI_TC_INT && (k = log2_size(vsize)) >= 0)
            return pair_int_rows[k];
        if (dt->pair_class == WMPI_TC_FLOAT && (k = float_index(vsize)) >= 0)
            return pair_float_rows[k];
    } else if (isize == 8 && vsize == 8) {
        if (dt->pair_class == WMPI_TC_INT)
            return pair_wide_int_row;
        if (dt->pair_class == WMPI_TC_FLOAT)
            return pair_wide_float_row;
    }
    return NULL;
}

/* The row of kernels for dt's class and size, or NULL. */
static wmpi_op_kernel *const *class_row(const wmpi_datatype *dt)
{
    int k;

    switch (dt->tclass) {
    case WMPI_TC_INT:
        return (k = log2_size(dt->size)) >= 0 ? signed_rows[k] : NULL;
    case WMPI_TC_UINT:
        return (k = log2_size(dt->size)) >= 0 ? unsigned_rows[k] : NULL;
    case WMPI_TC_BOOL:
        return (k = log2_size(dt->size)) >= 0 ? logical_rows[k] : NULL;
    case WMPI_TC_BYTE:
        return dt->size == 1 ? byte_row : NULL;
    case WMPI_TC_FLOAT:
        return (k = float_index(dt->size)) >= 0 ? float_rows[k] : NULL;
    case WMPI_TC_COMPLEX:
        return dt->size % 2 == 0 && (k = float_index(dt->size / 2)) >= 0
                   ? complex_rows[k] : NULL;
    case WMPI_TC_PAIR:
        return pair_row(dt);
    default:
        return NULL;
    }
}

wmpi_op_kernel *wmpi_op_find_kernel(int id, const wmpi_datatype *dt)
{
    wmpi_op_kernel *const *row;

    if (!dt || id <= WMPI_OP_USER || id >= WMPI_OP_COUNT)
        return NULL;
    if (id == WMPI_OP_REPLACE)
        return replace_any;
    if (id == WMPI_OP_NO_OP)
        return no_op_any;
    row = class_row(dt);
    return row ? row[id] : NULL;
}
