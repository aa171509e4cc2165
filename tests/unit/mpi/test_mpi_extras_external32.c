/* The external32 conversion (engine/objects/external32.c) byte by byte: every
 * class of basic type at the standard's sizes (MPI_LONG and MPI_WCHAR cut
 * to 4 and 2 bytes and extended back with their sign), pair and complex
 * types, long double as binary128 (normal, negative, infinity,
 * subnormal), a struct inside a vector (the copies-of-the-old-type path),
 * a subarray, sizes and their overflow. */
#include <float.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>
#include <cmocka.h>

#include "engine/objects/datatype.h"

extern wmpi_datatype wmpi_dt_int, wmpi_dt_long, wmpi_dt_unsigned_long,
    wmpi_dt_wchar, wmpi_dt_char, wmpi_dt_double, wmpi_dt_short,
    wmpi_dt_double_int, wmpi_dt_long_int, wmpi_dt_c_float_complex,
    wmpi_dt_long_double, wmpi_dt_uint16, wmpi_dt_c_bool, wmpi_dt_2int;

/* Pack count elements of t at val, compare with want[n], unpack into a
 * zeroed copy and compare with `back` (NULL: val itself), `bytes` long. */
static void layout(wmpi_datatype *t, int64_t count, const void *val,
                   const unsigned char *want, int n, const void *back,
                   size_t bytes)
{
    unsigned char out[256], mem[256];

    assert_int_equal(wmpi_external32_size(t, count), n);
    memset(out, 0xee, sizeof out);
    assert_int_equal(wmpi_external32_pack(t, count, val, out), n);
    assert_memory_equal(out, want, (size_t)n);
    assert_int_equal(out[n], 0xee); /* nothing beyond */
    memset(mem, 0, sizeof mem);
    assert_int_equal(wmpi_external32_unpack(t, count, out, mem), n);
    assert_memory_equal(mem, back ? back : val, bytes);
}

static void integers(void **state)
{
    int i[2] = { 0x01020304, -1 };
    long l[2] = { -3, 0x7fffffffL };
    unsigned long ul = 0xfffffffeUL;
    wchar_t w = L'\u00e9';
    short s = -32768;
    uint16_t u16 = 0xbeef;
    _Bool b = 1;
    static const unsigned char wi[] = { 1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff },
        wl[] = { 0xff, 0xff, 0xff, 0xfd, 0x7f, 0xff, 0xff, 0xff },
        wul[] = { 0xff, 0xff, 0xff, 0xfe }, ww[] = { 0x00, 0xe9 },
        ws[] = { 0x80, 0x00 }, wu16[] = { 0xbe, 0xef }, wb[] = { 1 };

    (void)state;
    layout(&wmpi_dt_int, 2, i, wi, 8, NULL, sizeof i);
    layout(&wmpi_dt_long, 2, l, wl, 8, NULL, sizeof l); /* sign back */
    layout(&wmpi_dt_unsigned_long, 1, &ul, wul, 4, NULL, sizeof ul);
    layout(&wmpi_dt_wchar, 1, &w, ww, 2, NULL, sizeof w);
    layout(&wmpi_dt_short, 1, &s, ws, 2, NULL, sizeof s);
    layout(&wmpi_dt_uint16, 1, &u16, wu16, 2, NULL, sizeof u16);
    layout(&wmpi_dt_c_bool, 1, &b, wb, 1, NULL, sizeof b);
}

static void pairs_and_complex(void **state)
{
    struct { double v; int i; } di = { 2.0, 7 };
    struct { long v; int i; } li = { -2, 9 };
    struct { int v, i; } ii = { 5, 6 };
    float _Complex c = 1.0f - 2.0f * (float _Complex)1.0fi;
    static const unsigned char wdi[] = { 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7 },
        wli[] = { 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 9 },
        wii[] = { 0, 0, 0, 5, 0, 0, 0, 6 },
        wc[] = { 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0 };

    (void)state;
    /* compare only the data bytes back (the pairs' padding is a hole) */
    layout(&wmpi_dt_double_int, 1, &di, wdi, 12, NULL, 12);
    layout(&wmpi_dt_long_int, 1, &li, wli, 8, NULL, sizeof(long) + 4);
    layout(&wmpi_dt_2int, 1, &ii, wii, 8, NULL, sizeof ii);
    layout(&wmpi_dt_c_float_complex, 1, &c, wc, 8, NULL, sizeof c);
}

static void long_double(void **state)
{
#if LDBL_MANT_DIG == 64 || LDBL_MANT_DIG == 113
    long double x[4] = { 1.5L, -2.0L, 1.0L / 0.0L, LDBL_TRUE_MIN };
    static const unsigned char want[64] = {
        0x3f, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0xc0, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0x7f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
#if LDBL_MANT_DIG == 64 /* 2^-16445: fraction bit 112 - 63 = 49 */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0,
#else
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
#endif
    };
    long double back[4];

    (void)state;
    assert_int_equal(wmpi_external32_size(&wmpi_dt_long_double, 4), 64);
    layout(&wmpi_dt_long_double, 3, x, want, 48, NULL, 0);
    layout(&wmpi_dt_long_double, 4, x, want, 64, NULL, 0);
    memset(back, 0, sizeof back);
    {
        unsigned char out[64];

        wmpi_external32_pack(&wmpi_dt_long_double, 4, x, out);
        wmpi_external32_unpack(&wmpi_dt_long_double, 4, out, back);
    }
    for (int k = 0; k < 4; k++)
        assert_true(back[k] == x[k]);
#else
    (void)state;
    skip();
#endif
}

static wmpi_datatype *build(int comb, int ni, const int *ints, int na,
                            const int64_t *aints, int nt,
                            wmpi_datatype *const *types)
{
    wmpi_type_args a = { comb, ni, na, nt, ints, aints, types };
    wmpi_datatype *t = NULL;

    assert_int_equal(wmpi_datatype_create(&a, &t), 0);
    return t;
}

struct rec {
    char c;
    double d;
    int v;
};

static void derived(void **state)
{
    wmpi_datatype *st_types[3] = { &wmpi_dt_char, &wmpi_dt_double, &wmpi_dt_int };
    int st_ints[] = { 3, 1, 1, 1 };
    int64_t st_disp[] = { offsetof(struct rec, c), offsetof(struct rec, d),
                          offsetof(struct rec, v) };
    wmpi_datatype *st = build(WMPI_COMBINER_STRUCT, 4, st_ints, 3, st_disp, 3,
                              st_types);
    int64_t ext[2] = { 0, sizeof(struct rec) };
    wmpi_datatype *rs = build(WMPI_COMBINER_RESIZED, 0, NULL, 2, ext, 1, &st);
    int vec_ints[] = { 2, 1, 2 };
    wmpi_datatype *vec = build(WMPI_COMBINER_VECTOR, 3, vec_ints, 0, NULL, 1, &rs);
    /* 2 x 2 corner of a 3 x 3 int array starting at (1, 1), C order */
    int sub_ints[] = { 2, 3, 3, 2, 2, 1, 1, WMPI_ORDER_C };
    wmpi_datatype *int_t = &wmpi_dt_int;
    wmpi_datatype *sub = build(WMPI_COMBINER_SUBARRAY, 8, sub_ints, 0, NULL, 1,
                               &int_t);
    struct rec r[3] = { { 'a', 1.0, 1 }, { 'b', 2.0, 2 }, { 'c', -1.0, -1 } };
    struct rec rb[3];
    int m[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 }, mb[9] = { 0, 0, 0, 0, 4, 5, 0, 7, 8 };
    static const unsigned char wr[] = {
        'a', 0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        'c', 0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff,
    }, wm[] = { 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0, 8 };

    (void)state;
    memset(rb, 0, sizeof rb);
    rb[0] = r[0];
    rb[2] = r[2];
    /* records 0 and 2 (the vector's stride), padding not compared */
    assert_int_equal(wmpi_external32_size(vec, 1), 26);
    {
        unsigned char out[64];
        struct rec back[3];

        assert_int_equal(wmpi_external32_pack(vec, 1, r, out), 26);
        assert_memory_equal(out, wr, 26);
        memset(back, 0, sizeof back);
        assert_int_equal(wmpi_external32_unpack(vec, 1, out, back), 26);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(back[k].c, rb[k].c);
            assert_true(back[k].d == rb[k].d);
            assert_int_equal(back[k].v, rb[k].v);
        }
    }
    layout(sub, 1, m, wm, 16, mb, sizeof m);
    wmpi_datatype_release(vec);
    wmpi_datatype_release(rs);
    wmpi_datatype_release(st);
    wmpi_datatype_release(sub);
}

static void sizes(void **state)
{
    (void)state;
    assert_int_equal(wmpi_external32_size(&wmpi_dt_long, 0), 0);
    assert_int_equal(wmpi_external32_size(&wmpi_dt_long, -1), WEFT_EINVAL);
    assert_int_equal(wmpi_external32_size(&wmpi_dt_double, INT64_MAX / 4),
                     WEFT_EINVAL);
    assert_int_equal(wmpi_external32_size(&wmpi_dt_double_int, 10), 120);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers),
        cmocka_unit_test(pairs_and_complex),
        cmocka_unit_test(long_double),
        cmocka_unit_test(derived),
        cmocka_unit_test(sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
