/* The predefined reduction ops on every predefined C type they are defined
 * on: each result is checked element by element against the same
 * operation written out in C. The counts are odd and larger than a vector
 * register, so the vectorised loops and their remainders both run; the
 * integer sums and products wrap like two's complement, the MINLOC and
 * MAXLOC ties keep the lower index. */
#include <complex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <mpi.h>

#include "engine/objects/op.h"

#define N 37 /* odd, > 2 * the widest vector of bytes */
#define IS_UNSIGNED(T) ((T)-1 > 0)

static void apply_ok(MPI_Op op, const void *in, void *io, int64_t n,
                     MPI_Datatype dt)
{
    assert_int_equal(wmpi_op_apply(op, in, io, n, dt), 0);
}

/* For each op of an integer type T: fill, apply, compare with `expr` in
 * terms of x = in[i] and y = the old inout[i] (values small enough that
 * the C expression itself cannot overflow). */
#define CHECK_OP(T, dt, op, expr)                                          \
    do {                                                                   \
        T in[N], io[N], old[N];                                            \
        for (int i = 0; i < N; i++) {                                      \
            in[i] = (T)(IS_UNSIGNED(T) ? i % 7 : i % 7 - 3);               \
            io[i] = old[i] = (T)(IS_UNSIGNED(T) ? i % 5 : i % 5 - 1);      \
        }                                                                  \
        apply_ok(op, in, io, N, dt);                                       \
        for (int i = 0; i < N; i++) {                                      \
            T x = in[i], y = old[i];                                       \
            assert_true(io[i] == (T)(expr));                               \
        }                                                                  \
    } while (0)

#define CHECK_INTEGER_TYPE(T, dt)                                          \
    do {                                                                   \
        assert_int_equal(sizeof(T), (dt)->size);                           \
        CHECK_OP(T, dt, MPI_SUM, x + y);                                   \
        CHECK_OP(T, dt, MPI_PROD, x * y);                                  \
        CHECK_OP(T, dt, MPI_MAX, x > y ? x : y);                           \
        CHECK_OP(T, dt, MPI_MIN, x < y ? x : y);                           \
        CHECK_OP(T, dt, MPI_LAND, x && y);                                 \
        CHECK_OP(T, dt, MPI_LOR, x || y);                                  \
        CHECK_OP(T, dt, MPI_LXOR, !x != !y);                               \
        CHECK_OP(T, dt, MPI_BAND, x & y);                                  \
        CHECK_OP(T, dt, MPI_BOR, x | y);                                   \
        CHECK_OP(T, dt, MPI_BXOR, x ^ y);                                  \
        CHECK_OP(T, dt, MPI_REPLACE, x + 0 * y);                           \
        CHECK_OP(T, dt, MPI_NO_OP, y + 0 * x);                             \
    } while (0)

static void signed_integers(void **state)
{
    (void)state;
    CHECK_INTEGER_TYPE(signed char, MPI_SIGNED_CHAR);
    CHECK_INTEGER_TYPE(short, MPI_SHORT);
    CHECK_INTEGER_TYPE(int, MPI_INT);
    CHECK_INTEGER_TYPE(long, MPI_LONG);
    CHECK_INTEGER_TYPE(long long, MPI_LONG_LONG_INT);
    CHECK_INTEGER_TYPE(int8_t, MPI_INT8_T);
    CHECK_INTEGER_TYPE(int16_t, MPI_INT16_T);
    CHECK_INTEGER_TYPE(int32_t, MPI_INT32_T);
    CHECK_INTEGER_TYPE(int64_t, MPI_INT64_T);
    CHECK_INTEGER_TYPE(MPI_Aint, MPI_AINT);
    CHECK_INTEGER_TYPE(MPI_Offset, MPI_OFFSET);
    CHECK_INTEGER_TYPE(MPI_Count, MPI_COUNT);
}

static void unsigned_integers(void **state)
{
    (void)state;
    CHECK_INTEGER_TYPE(unsigned char, MPI_UNSIGNED_CHAR);
    CHECK_INTEGER_TYPE(unsigned short, MPI_UNSIGNED_SHORT);
    CHECK_INTEGER_TYPE(unsigned, MPI_UNSIGNED);
    CHECK_INTEGER_TYPE(unsigned long, MPI_UNSIGNED_LONG);
    CHECK_INTEGER_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    CHECK_INTEGER_TYPE(uint8_t, MPI_UINT8_T);
    CHECK_INTEGER_TYPE(uint16_t, MPI_UINT16_T);
    CHECK_INTEGER_TYPE(uint32_t, MPI_UINT32_T);
    CHECK_INTEGER_TYPE(uint64_t, MPI_UINT64_T);
}

/* Sums and products wrap modulo 2^bits, signed ones included (no UB: the
 * ASan+UBSan build would say so). */
static void integer_arithmetic_wraps(void **state)
{
    int8_t a8[N], b8[N];
    uint16_t au[N], bu[N];
    int32_t a32[N], b32[N];
    int64_t a64[N], b64[N];

    (void)state;
    for (int i = 0; i < N; i++) {
        a8[i] = 127, b8[i] = 1;
        au[i] = 65535, bu[i] = 65535;
        a32[i] = INT32_MAX, b32[i] = INT32_MAX;
        a64[i] = INT64_MIN, b64[i] = -1;
    }
    apply_ok(MPI_SUM, a8, b8, N, MPI_INT8_T);
    apply_ok(MPI_PROD, au, bu, N, MPI_UINT16_T);
    apply_ok(MPI_PROD, a32, b32, N, MPI_INT32_T);
    apply_ok(MPI_SUM, a64, b64, N, MPI_INT64_T);
    for (int i = 0; i < N; i++) {
        assert_int_equal(b8[i], INT8_MIN);
        assert_int_equal(bu[i], 1); /* 65535^2 = 1 mod 2^16 */
        assert_int_equal(b32[i], 1); /* (2^31 - 1)^2 = 1 mod 2^32 */
        assert_true(b64[i] == INT64_MAX);
    }
}

#define CHECK_FLOAT_OP(T, dt, op, expr)                                    \
    do {                                                                   \
        T in[N], io[N], old[N];                                            \
        for (int i = 0; i < N; i++) {                                      \
            in[i] = (T)(i % 7) * (T)0.5 - 1;                               \
            io[i] = old[i] = (T)(i % 5) * (T)0.25 - (T)0.5;                \
        }                                                                  \
        apply_ok(op, in, io, N, dt);                                       \
        for (int i = 0; i < N; i++) {                                      \
            T x = in[i], y = old[i];                                       \
            assert_true(io[i] == (T)(expr));                               \
        }                                                                  \
    } while (0)

#define CHECK_FLOAT_TYPE(T, dt)                                            \
    do {                                                                   \
        assert_int_equal(sizeof(T), (dt)->size);                           \
        CHECK_FLOAT_OP(T, dt, MPI_SUM, x + y);                             \
        CHECK_FLOAT_OP(T, dt, MPI_PROD, x * y);                            \
        CHECK_FLOAT_OP(T, dt, MPI_MAX, x > y ? x : y);                     \
        CHECK_FLOAT_OP(T, dt, MPI_MIN, x < y ? x : y);                     \
        CHECK_FLOAT_OP(T, dt, MPI_REPLACE, x + 0 * y);                             \
    } while (0)

static void floating_point(void **state)
{
    (void)state;
    CHECK_FLOAT_TYPE(float, MPI_FLOAT);
    CHECK_FLOAT_TYPE(double, MPI_DOUBLE);
    CHECK_FLOAT_TYPE(long double, MPI_LONG_DOUBLE);
}

/* Small integer parts: products are exact, so == is the right test. */
#define CHECK_COMPLEX_TYPE(T, dt)                                          \
    do {                                                                   \
        T in[N], io[N], old[N];                                            \
        assert_int_equal(sizeof(T), (dt)->size);                           \
        for (int i = 0; i < N; i++) {                                      \
            in[i] = (i % 7 - 3) + (i % 3 - 1) * I;                         \
            io[i] = old[i] = (i % 5 - 2) + (i % 4 - 2) * I;                \
        }                                                                  \
        apply_ok(MPI_SUM, in, io, N, dt);                                  \
        for (int i = 0; i < N; i++)                                        \
            assert_true(io[i] == in[i] + old[i]);                          \
        memcpy(io, old, sizeof io);                                        \
        apply_ok(MPI_PROD, in, io, N, dt);                                 \
        for (int i = 0; i < N; i++)                                        \
            assert_true(io[i] == in[i] * old[i]);                          \
    } while (0)

static void complex_numbers(void **state)
{
    (void)state;
    CHECK_COMPLEX_TYPE(float _Complex, MPI_C_FLOAT_COMPLEX);
    CHECK_COMPLEX_TYPE(double _Complex, MPI_C_DOUBLE_COMPLEX);
    CHECK_COMPLEX_TYPE(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
}

/* C _Bool, and any nonzero byte counts as true for the logical ops. */
static void logicals_and_bytes(void **state)
{
    bool bin[N], bio[N], bold[N];
    unsigned char cin[N], cio[N], cold[N];
    MPI_Op lops[3] = { MPI_LAND, MPI_LOR, MPI_LXOR };
    MPI_Op bops[3] = { MPI_BAND, MPI_BOR, MPI_BXOR };

    (void)state;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++) {
            bin[i] = i & 1;
            bio[i] = bold[i] = (i >> 1) & 1;
        }
        apply_ok(lops[k], bin, bio, N, MPI_C_BOOL);
        for (int i = 0; i < N; i++) {
            bool x = bin[i], y = bold[i];
            assert_int_equal(bio[i], k == 0 ? x && y : k == 1 ? x || y : x != y);
        }
    }
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < N; i++) {
            cin[i] = (unsigned char)(i * 37);
            cio[i] = cold[i] = (unsigned char)(i * 11 + 5);
        }
        apply_ok(bops[k], cin, cio, N, MPI_BYTE);
        for (int i = 0; i < N; i++) {
            unsigned x = cin[i], y = cold[i];
            assert_int_equal(cio[i], k == 0 ? (x & y) : k == 1 ? (x | y) : (x ^ y));
        }
    }
}

/* MAXLOC / MINLOC on a pair type: the value wins, or on a tie the lower
 * index (MPI-3.1 5.9.4), whichever side it comes from. */
#define CHECK_PAIR_TYPE(V, dt)                                             \
    do {                                                                   \
        struct { V v; int i; } in[N], io[N], old[N];                       \
        assert_int_equal(sizeof in[0], (dt)->extent);                      \
        for (int k = 0; k < 2; k++) {                                      \
            MPI_Op op = k ? MPI_MINLOC : MPI_MAXLOC;                       \
            memset(in, 0, sizeof in), memset(io, 0, sizeof io);            \
            for (int i = 0; i < N; i++) {                                  \
                in[i].v = (V)(i % 3), in[i].i = i % 4;                     \
                io[i].v = (V)(i % 5 % 3), io[i].i = i % 6;                 \
            }                                                              \
            memcpy(old, io, sizeof io);                                    \
            apply_ok(op, in, io, N, dt);                                   \
            for (int i = 0; i < N; i++) {                                  \
                V x = in[i].v, y = old[i].v;                               \
                int wins = k ? x < y : x > y;                              \
                int idx = wins ? in[i].i : x == y                          \
                    ? (in[i].i < old[i].i ? in[i].i : old[i].i) : old[i].i; \
                assert_true(io[i].v == (wins ? x : y));                    \
                assert_int_equal(io[i].i, idx);                            \
            }                                                              \
        }                                                                  \
    } while (0)

static void value_index_pairs(void **state)
{
    (void)state;
    CHECK_PAIR_TYPE(float, MPI_FLOAT_INT);
    CHECK_PAIR_TYPE(double, MPI_DOUBLE_INT);
    CHECK_PAIR_TYPE(long, MPI_LONG_INT);
    CHECK_PAIR_TYPE(int, MPI_2INT);
    CHECK_PAIR_TYPE(short, MPI_SHORT_INT);
    CHECK_PAIR_TYPE(long double, MPI_LONG_DOUBLE_INT);
}

/* Ties in both directions: the lower index wins from either operand. */
static void pair_ties_take_the_lower_index(void **state)
{
    struct { double v; int i; } a[2] = { { 5, 3 }, { 5, 9 } },
                                b[2] = { { 5, 7 }, { 5, 2 } };

    (void)state;
    apply_ok(MPI_MAXLOC, a, b, 2, MPI_DOUBLE_INT);
    assert_int_equal(b[0].i, 3);
    assert_int_equal(b[1].i, 2);
    apply_ok(MPI_MINLOC, a, b, 2, MPI_DOUBLE_INT);
    assert_int_equal(b[0].i, 3);
    assert_int_equal(b[1].i, 2);
    assert_true(b[0].v == 5 && b[1].v == 5);
}

/* Fortran and C++ names reach the kernels of their class and size:
 * LOGICAL is an int-wide logical (any nonzero is true, results are 0/1),
 * INTEGER8 a 64-bit integer, COMPLEX16 a double complex, 2INTEGER an
 * (int, int) pair. */
static void other_language_types(void **state)
{
    int la[4] = { 0, 0, -1, 7 }, lb[4] = { 0, 5, 0, -3 };
    int64_t ia[2] = { INT64_C(1) << 40, -5 }, ib[2] = { 3, 5 };
    double _Complex ca[1] = { 1 + 2 * I }, cb[1] = { 3 - I };
    struct { int v, i; } pa[1] = { { 4, 8 } }, pb[1] = { { 4, 2 } };

    (void)state;
    apply_ok(MPI_LOR, la, lb, 4, MPI_LOGICAL);
    assert_true(lb[0] == 0 && lb[1] == 1 && lb[2] == 1 && lb[3] == 1);
    apply_ok(MPI_SUM, ia, ib, 2, MPI_INTEGER8);
    assert_true(ib[0] == (INT64_C(1) << 40) + 3 && ib[1] == 0);
    apply_ok(MPI_PROD, ca, cb, 1, MPI_COMPLEX16);
    assert_true(cb[0] == (1 + 2 * I) * (3 - I));
    apply_ok(MPI_MINLOC, pa, pb, 1, MPI_2INTEGER);
    assert_true(pb[0].v == 4 && pb[0].i == 2);
}

/* Pairs whose index has the value's 8-byte type (the layout of Fortran's
 * MPI_2DOUBLE_PRECISION, and of 2INTEGER with 8-byte integers), described
 * by class and layout alone. */
static void same_type_index_pairs(void **state)
{
    wmpi_datatype dd = { .size = 16, .extent = 16, .basic = 2, .name = "2dp",
                         .tclass = WMPI_TC_PAIR, .pair_class = WMPI_TC_FLOAT,
                         .pair_value_size = 8, .pair_index_offset = 8 };
    wmpi_datatype ll = dd;
    double a[2][2] = { { 3, 7 }, { 1, 4 } }, b[2][2] = { { 3, 5 }, { 2, 9 } };
    int64_t c[1][2] = { { -4, 1 } }, d[1][2] = { { -3, 0 } };

    (void)state;
    ll.pair_class = WMPI_TC_INT;
    apply_ok(MPI_MAXLOC, a, b, 2, &dd);
    assert_true(b[0][0] == 3 && b[0][1] == 5);  /* tie: lower index */
    assert_true(b[1][0] == 2 && b[1][1] == 9);  /* larger value kept */
    apply_ok(MPI_MINLOC, c, d, 1, &ll);
    assert_true(d[0][0] == -4 && d[0][1] == 1);
}

/* Count 0 touches nothing (NULL buffers allowed). */
static void zero_count_is_a_no_op(void **state)
{
    (void)state;
    apply_ok(MPI_SUM, NULL, NULL, 0, MPI_DOUBLE);
    apply_ok(MPI_MAXLOC, NULL, NULL, 0, MPI_2INT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(signed_integers),
        cmocka_unit_test(unsigned_integers),
        cmocka_unit_test(integer_arithmetic_wraps),
        cmocka_unit_test(floating_point),
        cmocka_unit_test(complex_numbers),
        cmocka_unit_test(logicals_and_bytes),
        cmocka_unit_test(value_index_pairs),
        cmocka_unit_test(pair_ties_take_the_lower_index),
        cmocka_unit_test(other_language_types),
        cmocka_unit_test(same_type_index_pairs),
        cmocka_unit_test(zero_count_is_a_no_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
