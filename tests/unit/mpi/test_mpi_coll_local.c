/* The collectives' local toolbox (engine/coll/coll_util.c, coll_impl.h): tags
 * of concurrent collectives never collide and stay valid MPI tags; local
 * copies between different layouts of one type signature are byte-exact
 * and refuse to overflow; scratch buffers have the user's layout (lower
 * bound included); local reductions put the lower ranks on the left. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

extern wmpi_datatype wmpi_dt_int;

static wmpi_datatype *make(int comb, int ni, const int *ints, int na,
                           const int64_t *aints)
{
    wmpi_datatype *old = &wmpi_dt_int, *t = NULL;
    wmpi_type_args a = { comb, ni, na, 1, ints, aints, &old };

    assert_int_equal(wmpi_datatype_create(&a, &t), 0);
    wmpi_datatype_commit(t);
    return t;
}

static void tags_of_concurrent_collectives_differ(void **state)
{
    wmpi_comm c = { .ctx = 6, .rank = 0, .size = 4 };
    wmpi_coll_call a, b;

    (void)state;
    wmpi_coll_begin(&a, &c);
    wmpi_coll_begin(&b, &c);
    assert_int_equal(a.ctx, 7);
    assert_int_equal(b.seq, a.seq + 1);
    for (int s = 0; s < 1024; s++)
        for (int t = 0; t < 1024; t += 17) {
            assert_int_not_equal(wmpi_coll_tag(&a, s), wmpi_coll_tag(&b, t));
            if (s != t)
                assert_int_not_equal(wmpi_coll_tag(&a, s), wmpi_coll_tag(&a, t));
        }
    c.coll_seq = UINT32_MAX; /* wraps: tags stay in [0, INT_MAX] */
    wmpi_coll_begin(&a, &c);
    wmpi_coll_begin(&b, &c);
    for (int s = 0; s < 1024; s++) {
        assert_true(wmpi_coll_tag(&a, s) >= 0);
        assert_true(wmpi_coll_tag(&b, s) >= 0);
    }
    b.step_base = 64; /* a later phase of a composite schedule */
    assert_int_not_equal(wmpi_coll_tag(&b, 0), wmpi_coll_tag(&a, 0));
}

static void copies_between_layouts_are_exact(void **state)
{
    int vec_args[3] = { 2, 1, 3 }; /* 2 blocks of 1 int, stride 3 */
    wmpi_datatype *vec = make(WMPI_COMBINER_VECTOR, 3, vec_args, 0, NULL);
    int strided[40], flat[20];

    (void)state;
    for (int i = 0; i < 40; i++)
        strided[i] = i;
    memset(flat, 0, sizeof flat);
    /* 5 vectors (10 ints) -> 10 ints */
    assert_int_equal(wmpi_coll_copy(strided, 5, vec, flat, 10, &wmpi_dt_int), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(flat[i], (i / 2) * 4 + (i % 2) * 3);
    /* and back, into a fresh strided buffer: the holes stay untouched */
    memset(strided, 0x55, sizeof strided);
    assert_int_equal(wmpi_coll_copy(flat, 10, &wmpi_dt_int, strided, 5, vec), 0);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(strided[4 * i], flat[2 * i]);
        assert_int_equal(strided[4 * i + 3], flat[2 * i + 1]);
        assert_int_equal(strided[4 * i + 1], 0x55555555);
    }
    /* the data must fit */
    assert_int_equal(wmpi_coll_copy(flat, 10, &wmpi_dt_int, strided, 4, vec), -EMSGSIZE);
    assert_int_equal(wmpi_coll_copy(flat, 0, &wmpi_dt_int, NULL, 0, vec), 0);
    wmpi_datatype_release(vec);
}

static void scratch_has_the_user_layout(void **state)
{
    int64_t bounds[2] = { -8, 16 }; /* lb -8, extent 16 */
    int one_args[1] = { 2 };
    wmpi_datatype *two = make(WMPI_COMBINER_CONTIGUOUS, 1, one_args, 0, NULL);
    wmpi_datatype *old = two, *shifted = NULL;
    wmpi_type_args a = { WMPI_COMBINER_RESIZED, 0, 2, 1, NULL, bounds, &old };
    wmpi_coll_tmp t;

    (void)state;
    assert_int_equal(wmpi_datatype_create(&a, &shifted), 0);
    assert_int_equal(wmpi_coll_tmp_alloc(&t, 3, two), 0);
    assert_ptr_equal(t.p, t.base);
    memset(t.p, 1, 3 * 2 * sizeof(int)); /* all of it is ours (ASan) */
    wmpi_coll_tmp_free(&t);
    /* the data starts at the true lower bound (0): p = base */
    assert_int_equal(wmpi_coll_tmp_alloc(&t, 3, shifted), 0);
    memset(t.p, 1, 2 * 16 + 8);
    wmpi_coll_tmp_free(&t);
    assert_int_equal(wmpi_coll_tmp_alloc(&t, -1, two), WEFT_EINVAL);
    wmpi_datatype_release(shifted);
    wmpi_datatype_release(two);
}

/* 2x2 matrices of ints: inout = in * inout. */
static void matmul(void *in, void *inout, int *len, wmpi_datatype **dt)
{
    int *a = in, *b = inout;

    (void)dt;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        int c[4] = { a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                     a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3] };
        memcpy(b, c, sizeof c);
    }
}

static void local_reductions_keep_rank_order(void **state)
{
    wmpi_op *op = NULL;
    int lower[4] = { 1, 2, 0, 1 }, higher[4] = { 1, 0, 3, 1 };

    (void)state;
    assert_int_equal(wmpi_op_create(matmul, 0, &op), 0);
    assert_false(wmpi_coll_op_commutes(op));
    assert_int_equal(wmpi_coll_reduce_local(op, lower, higher, 4, &wmpi_dt_int), 0);
    /* lower * higher = [[1*1+2*3, 1*0+2*1], [0*1+1*3, 0*0+1*1]] */
    assert_int_equal(higher[0], 7);
    assert_int_equal(higher[1], 2);
    assert_int_equal(higher[2], 3);
    assert_int_equal(higher[3], 1);
    assert_int_equal(wmpi_coll_reduce_local(op, NULL, NULL, 0, &wmpi_dt_int), 0);
    assert_int_equal(wmpi_op_free(op), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tags_of_concurrent_collectives_differ),
        cmocka_unit_test(copies_between_layouts_are_exact),
        cmocka_unit_test(scratch_has_the_user_layout),
        cmocka_unit_test(local_reductions_keep_rank_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
