/* The MPI engine's pack engine: every constructor packs exactly the bytes
 * its type map names, in type-map order, and unpack puts them back byte
 * for byte without touching the gaps; partial unpack; the reduction layout
 * of pair types. Expected layouts are computed here by plain indexing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/objects/datatype.h"

extern wmpi_datatype wmpi_dt_int, wmpi_dt_double, wmpi_dt_char,
    wmpi_dt_double_int, wmpi_dt_short_int, wmpi_dt_2int;

static wmpi_datatype *make(int comb, int ni, const int *ints, int na,
                           const int64_t *aints, int nt,
                           wmpi_datatype *const *types)
{
    wmpi_type_args a = { comb, ni, na, nt, ints, aints, types };
    wmpi_datatype *t = NULL;

    assert_int_equal(wmpi_datatype_create(&a, &t), 0);
    assert_non_null(t);
    return t;
}

static wmpi_datatype *one(int comb, int ni, const int *ints, int na,
                          const int64_t *aints, wmpi_datatype *old)
{
    return make(comb, ni, ints, na, aints, 1, &old);
}

/* src[i] = i; pack count elements of t from src and compare with the
 * ints at idx[] (n of them); unpack into a 0xEE-filled buffer and check
 * exactly those ints came back and everything else is untouched. */
static void round_trip_ints(wmpi_datatype *t, int64_t count, int64_t base,
                            const int *idx, int n)
{
    int src[512], back[512], packed[512];
    unsigned char mark[512] = { 0 };

    for (int i = 0; i < 512; i++)
        src[i] = i;
    assert_int_equal(wmpi_datatype_pack(t, count, src + base, packed),
                     (int64_t)n * (int64_t)sizeof(int));
    for (int i = 0; i < n; i++)
        assert_int_equal(packed[i], idx[i]);
    memset(back, 0xEE, sizeof back);
    assert_int_equal(wmpi_datatype_unpack(t, count, packed, back + base),
                     (int64_t)n * (int64_t)sizeof(int));
    for (int i = 0; i < n; i++)
        mark[idx[i]] = 1;
    for (int i = 0; i < 512; i++) {
        if (mark[i])
            assert_int_equal(back[i], i);
        else
            assert_int_equal(back[i], (int)0xEEEEEEEE);
    }
}

static void contiguous_vector_hvector(void **state)
{
    int idx[64], n = 0;
    wmpi_datatype *c, *v, *h;

    (void)state;
    c = one(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 5 }, 0, NULL, &wmpi_dt_int);
    assert_true(wmpi_datatype_is_contig(c));
    for (int i = 0; i < 10; i++)
        idx[i] = i;
    round_trip_ints(c, 2, 0, idx, 10);

    v = one(WMPI_COMBINER_VECTOR, 3, (int[]){ 3, 2, 5 }, 0, NULL, &wmpi_dt_int);
    assert_false(wmpi_datatype_is_contig(v));
    assert_int_equal(v->size, 6 * sizeof(int));
    assert_int_equal(v->extent, 12 * sizeof(int)); /* (2*5 + 2) ints */
    for (int e = 0; e < 2; e++)                    /* 2 elements */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                idx[n++] = e * 12 + i * 5 + j;
    round_trip_ints(v, 2, 0, idx, n);

    {   /* a partial unpack cuts a strided segment mid-block */
        int in[6] = { 10, 11, 12, 13, 14, 15 }, out[16];

        memset(out, 0, sizeof out);
        assert_int_equal(wmpi_datatype_unpack_part(v, 1, in, 14, out), 14);
        assert_int_equal(out[0], 10);
        assert_int_equal(out[1], 11);
        assert_int_equal(out[5], 12);
        assert_memory_equal(&out[6], &in[3], 2);
        assert_memory_equal((char *)&out[6] + 2, "\0\0", 2);
        assert_int_equal(out[10], 0);
    }
    h = one(WMPI_COMBINER_HVECTOR, 2, (int[]){ 2, 1 }, 1,
            (int64_t[]){ 3 * sizeof(int) }, v); /* vector of vectors */
    n = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                idx[n++] = k * 3 + i * 5 + j;
    round_trip_ints(h, 1, 0, idx, n);
    wmpi_datatype_release(h);
    wmpi_datatype_release(v);
    wmpi_datatype_release(c);
}

static void indexed_family(void **state)
{
    wmpi_datatype *t;

    (void)state;
    /* blocks out of order: type-map order, not address order */
    t = one(WMPI_COMBINER_INDEXED, 7, (int[]){ 3, 2, 0, 1, 10, 4, 0 }, 0,
            NULL, &wmpi_dt_int);
    round_trip_ints(t, 1, 0, (int[]){ 10, 11, 0 }, 3);
    wmpi_datatype_release(t);

    t = one(WMPI_COMBINER_HINDEXED, 3, (int[]){ 2, 1, 2 }, 2,
            (int64_t[]){ 8 * sizeof(int), 1 * sizeof(int) }, &wmpi_dt_int);
    round_trip_ints(t, 1, 0, (int[]){ 8, 1, 2 }, 3);
    wmpi_datatype_release(t);

    t = one(WMPI_COMBINER_INDEXED_BLOCK, 5, (int[]){ 3, 2, 6, 0, 3 }, 0, NULL,
            &wmpi_dt_int);
    round_trip_ints(t, 1, 0, (int[]){ 6, 7, 0, 1, 3, 4 }, 6);
    wmpi_datatype_release(t);

    t = one(WMPI_COMBINER_HINDEXED_BLOCK, 2, (int[]){ 2, 1 }, 2,
            (int64_t[]){ 4 * sizeof(int), 0 }, &wmpi_dt_int);
    round_trip_ints(t, 1, 0, (int[]){ 4, 0 }, 2);
    wmpi_datatype_release(t);
}

static void resized_negative_lb(void **state)
{
    wmpi_datatype *r, *c;
    wmpi_bounds b;

    (void)state;
    /* one int, lb -8 bytes, extent 16 bytes: element i's int at 4*i */
    r = one(WMPI_COMBINER_RESIZED, 0, NULL, 2,
            (int64_t[]){ -8, 4 * sizeof(int) }, &wmpi_dt_int);
    wmpi_datatype_bounds(r, &b);
    assert_int_equal(b.lb, -8);
    assert_int_equal(b.extent, 16);
    assert_int_equal(b.true_lb, 0);
    assert_int_equal(b.true_extent, 4);
    round_trip_ints(r, 3, 10, (int[]){ 10, 14, 18 }, 3);
    c = one(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 2 }, 0, NULL, r);
    wmpi_datatype_bounds(c, &b);
    assert_int_equal(b.lb, -8); /* the lb marker is inherited */
    assert_int_equal(b.extent, 32);
    wmpi_datatype_release(r); /* c still holds it */
    round_trip_ints(c, 2, 10, (int[]){ 10, 14, 18, 22 }, 4);
    wmpi_datatype_release(c);
}

static void subarray_c_and_fortran(void **state)
{
    int idx[64], n = 0;
    wmpi_datatype *t;
    wmpi_bounds b;

    (void)state;
    /* 4x5 array, 2x3 block from (1,1); C order: rows of 5 */
    t = one(WMPI_COMBINER_SUBARRAY, 8, (int[]){ 2, 4, 5, 2, 3, 1, 1, WMPI_ORDER_C },
            0, NULL, &wmpi_dt_int);
    wmpi_datatype_bounds(t, &b);
    assert_int_equal(b.lb, 0);
    assert_int_equal(b.extent, 80);   /* Open MPI: 80 */
    assert_int_equal(b.true_lb, 24);  /* Open MPI: 24, 32 */
    assert_int_equal(b.true_extent, 32);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            idx[n++] = (1 + i) * 5 + 1 + j;
    round_trip_ints(t, 1, 0, idx, n);
    wmpi_datatype_release(t);

    /* 3-D Fortran order: 4x5x6, block 2x3x2 from (1,1,3); first index fastest */
    t = one(WMPI_COMBINER_SUBARRAY, 11,
            (int[]){ 3, 4, 5, 6, 2, 3, 2, 1, 1, 3, WMPI_ORDER_FORTRAN }, 0, NULL,
            &wmpi_dt_int);
    n = 0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 2; i++)
                idx[n++] = (1 + i) + (1 + j) * 4 + (3 + k) * 20;
    round_trip_ints(t, 1, 0, idx, n);
    wmpi_datatype_bounds(t, &b);
    assert_int_equal(b.extent, 120 * (int64_t)sizeof(int));
    wmpi_datatype_release(t);
}

struct rec { char c; double d; int i[3]; };

static void struct_with_gaps(void **state)
{
    wmpi_datatype *types[3] = { &wmpi_dt_char, &wmpi_dt_double, &wmpi_dt_int };
    struct rec src[3], back[3];
    unsigned char packed[128], *p = packed;
    wmpi_datatype *t;

    (void)state;
    t = make(WMPI_COMBINER_STRUCT, 4, (int[]){ 3, 1, 1, 3 }, 3,
             (int64_t[]){ offsetof(struct rec, c), offsetof(struct rec, d),
                          offsetof(struct rec, i) }, 3, types);
    assert_int_equal(t->size, 1 + 8 + 12);
    assert_int_equal(t->extent, sizeof(struct rec)); /* padded to 8 */
    assert_null(wmpi_datatype_basic(t));
    assert_int_equal(wmpi_datatype_nbasic(t), 5);
    for (int k = 0; k < 3; k++)
        src[k] = (struct rec){ (char)('a' + k), 1.5 * k, { k, k + 1, k + 2 } };
    assert_int_equal(wmpi_datatype_pack(t, 3, src, packed), 3 * 21);
    for (int k = 0; k < 3; k++, p += 21) {
        assert_int_equal(p[0], 'a' + k);
        assert_memory_equal(p + 1, &src[k].d, 8);
        assert_memory_equal(p + 9, src[k].i, 12);
    }
    memset(back, 0x5A, sizeof back);
    assert_int_equal(wmpi_datatype_unpack(t, 3, packed, back), 3 * 21);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(back[k].c, src[k].c);
        assert_memory_equal(&back[k].d, &src[k].d, 8);
        assert_memory_equal(back[k].i, src[k].i, 12);
        assert_int_equal(((unsigned char *)&back[k])[1], 0x5A); /* gap */
    }
    /* a partial unpack stops after the bytes it was given */
    memset(back, 0, sizeof back);
    assert_int_equal(wmpi_datatype_unpack_part(t, 3, packed, 21 + 9 + 4, back),
                     34);
    assert_int_equal(back[1].i[0], 1);
    assert_int_equal(back[1].i[1], 0);
    assert_int_equal(wmpi_datatype_elements(t, 34), 5 + 3);
    assert_int_equal(wmpi_datatype_elements(t, 33), -1);
    assert_int_equal(wmpi_datatype_count(t, 34), -1);
    assert_int_equal(wmpi_datatype_count(t, 42), 2);
    wmpi_datatype_release(t);
}

struct di { double v; int i; };

static void pair_types_travel_packed(void **state)
{
    struct di src[3] = { { 1.0, 1 }, { 2.0, 2 }, { 3.0, 3 } }, back[3];
    unsigned char packed[64];
    wmpi_datatype *v;
    int64_t off;

    (void)state;
    assert_false(wmpi_datatype_is_contig(&wmpi_dt_double_int));
    assert_true(wmpi_datatype_is_contig(&wmpi_dt_2int));
    assert_int_equal(wmpi_datatype_pack(&wmpi_dt_double_int, 3, src, packed), 36);
    assert_memory_equal(packed + 12, &src[1].v, 8);
    assert_memory_equal(packed + 20, &src[1].i, 4);
    /* the reduction layout spreads them back to their extent */
    v = one(WMPI_COMBINER_VECTOR, 3, (int[]){ 2, 1, 2 }, 0, NULL,
            &wmpi_dt_double_int);
    assert_ptr_equal(wmpi_datatype_basic(v), &wmpi_dt_double_int);
    assert_false(wmpi_datatype_is_basic_array(v, 1, &off));
    assert_true(wmpi_datatype_is_basic_array(&wmpi_dt_double_int, 3, &off));
    assert_int_equal(wmpi_datatype_pack_basic(v, 1, src, back), 2);
    assert_true(back[0].v == 1.0 && back[0].i == 1);
    assert_true(back[1].v == 3.0 && back[1].i == 3);
    back[1].i = 7;
    memset(src, 0, sizeof src);
    assert_int_equal(wmpi_datatype_unpack_basic(v, 1, back, src), 2);
    assert_true(src[2].v == 3.0 && src[2].i == 7 && src[1].i == 0);
    assert_int_equal(wmpi_datatype_elements(&wmpi_dt_double_int, 20), 3);
    assert_int_equal(wmpi_datatype_elements(&wmpi_dt_double_int, 16), -1);
    wmpi_datatype_release(v);
}

static void bounds_match_open_mpi(void **state)
{
    wmpi_datatype *t, *r, *s;
    wmpi_bounds b;

    (void)state;
    /* hindexed doubles at 0 and 9: ub 17 rounded to 24 */
    t = one(WMPI_COMBINER_HINDEXED, 3, (int[]){ 2, 1, 1 }, 2, (int64_t[]){ 0, 9 },
            &wmpi_dt_double);
    wmpi_datatype_bounds(t, &b);
    assert_true(b.lb == 0 && b.extent == 24 && b.true_extent == 17);
    /* resized to 9, then in a struct with a char at 16: the marker wins */
    r = one(WMPI_COMBINER_RESIZED, 0, NULL, 2, (int64_t[]){ 0, 9 }, t);
    s = make(WMPI_COMBINER_STRUCT, 3, (int[]){ 2, 1, 1 }, 2, (int64_t[]){ 0, 24 },
             2, (wmpi_datatype *[]){ r, &wmpi_dt_char });
    wmpi_datatype_bounds(s, &b);
    assert_true(b.lb == 0 && b.extent == 9 && b.true_lb == 0 && b.true_extent == 25);
    wmpi_datatype_release(s);
    wmpi_datatype_release(r);
    wmpi_datatype_release(t);
    /* negative stride */
    t = one(WMPI_COMBINER_VECTOR, 3, (int[]){ 3, 1, -2 }, 0, NULL, &wmpi_dt_int);
    wmpi_datatype_bounds(t, &b);
    assert_true(b.lb == -16 && b.extent == 20);
    round_trip_ints(t, 1, 20, (int[]){ 20, 18, 16 }, 3);
    wmpi_datatype_release(t);
    /* empty */
    t = one(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 0 }, 0, NULL, &wmpi_dt_int);
    wmpi_datatype_bounds(t, &b);
    assert_true(b.lb == 0 && b.extent == 0 && t->size == 0);
    assert_int_equal(wmpi_datatype_count(t, 0), 0);
    wmpi_datatype_release(t);
}

static void expect_bounds(const wmpi_datatype *t, int64_t size, int64_t lb,
                          int64_t extent, int64_t true_lb, int64_t true_extent)
{
    wmpi_bounds b;

    wmpi_datatype_bounds(t, &b);
    assert_int_equal((int64_t)t->size, size);
    assert_int_equal(b.lb, lb);
    assert_int_equal(b.extent, extent);
    assert_int_equal(t->extent, extent);
    assert_int_equal(b.true_lb, true_lb);
    assert_int_equal(b.true_extent, true_extent);
}

static wmpi_datatype *resized(wmpi_datatype *old, int64_t lb, int64_t ext)
{
    return one(WMPI_COMBINER_RESIZED, 0, NULL, 2, (int64_t[]){ lb, ext }, old);
}

/* A negative extent (MPI_Type_create_resized allows it) lays elements out
 * downwards; a type built of such copies spans all of them (MPICH lbub). */
static void negative_extent(void **state)
{
    wmpi_datatype *rev, *bytes, *t, *c3, *v, *h;

    (void)state;
    rev = resized(&wmpi_dt_int, 0, -4);
    expect_bounds(rev, 4, 0, -4, 0, 4);
    assert_false(wmpi_datatype_is_contig(rev));
    round_trip_ints(rev, 5, 4, (int[]){ 4, 3, 2, 1, 0 }, 5);

    bytes = one(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 4 }, 0, NULL,
                &wmpi_dt_char);
    t = resized(bytes, 6, -9); /* MPICH: { (LB,6), 4*(BYTE,0), (UB,-3) } */
    expect_bounds(t, 4, 6, -9, 0, 4);
    c3 = one(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 3 }, 0, NULL, t);
    expect_bounds(c3, 12, -12, 9, -18, 22);

    /* 2 blocks of 2, 3 extents (-12 bytes) apart: ints 0, -1, -3, -4 */
    v = one(WMPI_COMBINER_VECTOR, 3, (int[]){ 2, 2, 3 }, 0, NULL, rev);
    expect_bounds(v, 16, -16, 12, -16, 20);
    round_trip_ints(v, 1, 20, (int[]){ 20, 19, 17, 16 }, 4);

    {   /* the bytes 5 reversed ints touch: from 4 ints below the first */
        int64_t lo, hi;

        assert_int_equal(wmpi_datatype_span(rev, 5, &lo, &hi), 0);
        assert_true(lo == -16 && hi == 4);
        assert_int_equal(wmpi_datatype_span(v, 2, &lo, &hi), 0);
        assert_true(lo == -16 && hi == 16); /* second element 12 bytes up */
        assert_int_equal(wmpi_datatype_span(&wmpi_dt_int, 3, &lo, &hi), 0);
        assert_true(lo == 0 && hi == 12);
        assert_int_equal(wmpi_datatype_span(rev, 0, &lo, &hi), 0);
        assert_true(lo == 0 && hi == 0);
    }

    /* a negative stride of a positive extent: ints 0, -2, -4 */
    h = one(WMPI_COMBINER_HVECTOR, 2, (int[]){ 3, 1 }, 1, (int64_t[]){ -8 },
            &wmpi_dt_int);
    expect_bounds(h, 12, -16, 20, -16, 20);
    round_trip_ints(h, 2, 10, (int[]){ 10, 8, 6, 15, 13, 11 }, 6);
    wmpi_datatype_release(h);
    wmpi_datatype_release(v);
    wmpi_datatype_release(c3);
    wmpi_datatype_release(t);
    wmpi_datatype_release(bytes);
    wmpi_datatype_release(rev);
}

static void rejected(int comb, int ni, const int *ints, int na,
                     const int64_t *aints, int nt, wmpi_datatype *const *types)
{
    wmpi_type_args a = { comb, ni, na, nt, ints, aints, types };
    wmpi_datatype *t = &wmpi_dt_int;

    assert_int_equal(wmpi_datatype_create(&a, &t), WEFT_EINVAL);
    assert_null(t);
}

/* Blocks of length 0 hold no entry of the type map, so they add no bound
 * wherever they are, nor does a child type without data or markers. */
static void zero_blocks_far_away(void **state)
{
    wmpi_datatype *h, *e, *s;

    (void)state;
    h = make(WMPI_COMBINER_HINDEXED, 4, (int[]){ 3, 0, 2, 0 }, 3,
             (int64_t[]){ INT64_MAX, 0, INT64_MAX - 4 }, 1,
             (wmpi_datatype *[]){ &wmpi_dt_int });
    expect_bounds(h, 8, 0, 8, 0, 8);
    round_trip_ints(h, 2, 0, (int[]){ 0, 1, 2, 3 }, 4);

    e = make(WMPI_COMBINER_HINDEXED, 2, (int[]){ 1, 0 }, 1,
             (int64_t[]){ INT64_MAX }, 1, (wmpi_datatype *[]){ &wmpi_dt_int });
    expect_bounds(e, 0, 0, 0, 0, 0);
    s = make(WMPI_COMBINER_STRUCT, 3, (int[]){ 2, 1, 1 }, 2,
             (int64_t[]){ INT64_MAX, 4 }, 2,
             (wmpi_datatype *[]){ e, &wmpi_dt_int });
    expect_bounds(s, 4, 4, 4, 4, 4);
    round_trip_ints(s, 2, 16, (int[]){ 17, 18 }, 2);
    wmpi_datatype_release(s);
    wmpi_datatype_release(e);
    wmpi_datatype_release(h);
}

/* Bounds, extents and the offsets of a count are computed with overflow
 * checks: a type that would not fit int64_t is refused, not wrapped. */
static void overflow_is_refused(void **state)
{
    wmpi_datatype *h, *big, *one_int[] = { &wmpi_dt_int };
    int packed[4];
    int64_t lo, hi;

    (void)state;
    rejected(WMPI_COMBINER_HINDEXED, 2, (int[]){ 1, 1 }, 1,
             (int64_t[]){ INT64_MAX - 2 }, 1, one_int);
    rejected(WMPI_COMBINER_HINDEXED, 3, (int[]){ 2, 1, 1 }, 2,
             (int64_t[]){ INT64_MIN, INT64_MAX - 8 }, 1, one_int);
    rejected(WMPI_COMBINER_RESIZED, 0, NULL, 2, (int64_t[]){ INT64_MAX, 8 },
             1, one_int);
    rejected(WMPI_COMBINER_RESIZED, 0, NULL, 2, (int64_t[]){ INT64_MIN, -1 },
             1, one_int);
    h = one(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 2 }, 0, NULL, &wmpi_dt_int);
    rejected(WMPI_COMBINER_STRUCT, 2, (int[]){ 1, 1 }, 1,
             (int64_t[]){ INT64_MAX - 4 }, 1, &h);
    big = resized(&wmpi_dt_int, 0, (int64_t)1 << 62);
    rejected(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 3 }, 0, NULL, 1, &big);
    assert_true(wmpi_datatype_fits(big, 2));
    assert_false(wmpi_datatype_fits(big, 3));
    assert_int_equal(wmpi_datatype_span(big, 3, &lo, &hi), WEFT_EINVAL);
    assert_int_equal(wmpi_datatype_pack(big, 3, packed, packed), WEFT_EINVAL);
    assert_int_equal(wmpi_datatype_unpack(big, 3, packed, packed), WEFT_EINVAL);
    wmpi_datatype_release(big);
    wmpi_datatype_release(h);
}

static void bad_arguments(void **state)
{
    wmpi_type_args a = { WMPI_COMBINER_VECTOR, 3, 0, 1, (int[]){ -1, 1, 1 },
                         NULL, (wmpi_datatype *[]){ &wmpi_dt_int } };
    wmpi_datatype *t = &wmpi_dt_int;

    (void)state;
    assert_int_equal(wmpi_datatype_create(&a, &t), WEFT_EINVAL);
    assert_null(t);
    a.ints = (int[]){ 1, 1, 1 };
    a.types = (wmpi_datatype *[]){ NULL };
    assert_int_equal(wmpi_datatype_create(&a, &t), WEFT_EINVAL);
    a = (wmpi_type_args){ WMPI_COMBINER_SUBARRAY, 5, 0, 1,
                          (int[]){ 1, 4, 2, 3, WMPI_ORDER_C }, NULL,
                          (wmpi_datatype *[]){ &wmpi_dt_int } };
    assert_int_equal(wmpi_datatype_create(&a, &t), WEFT_EINVAL);
    assert_int_equal(wmpi_datatype_pack(&wmpi_dt_int, -1, NULL, NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(contiguous_vector_hvector),
        cmocka_unit_test(indexed_family),
        cmocka_unit_test(resized_negative_lb),
        cmocka_unit_test(subarray_c_and_fortran),
        cmocka_unit_test(struct_with_gaps),
        cmocka_unit_test(pair_types_travel_packed),
        cmocka_unit_test(bounds_match_open_mpi),
        cmocka_unit_test(negative_extent),
        cmocka_unit_test(zero_blocks_far_away),
        cmocka_unit_test(overflow_is_refused),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
