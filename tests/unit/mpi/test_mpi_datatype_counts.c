/* The MPI engine's datatype counts and layout queries: MPI_Get_count and
 * MPI_Get_elements of a byte count (MPI_UNDEFINED inside an element or a
 * basic element), their inverse for MPI_Status_set_elements, dense runs
 * (messages move without a copy), the single basic type, and reference
 * counts keeping a freed type's parts alive. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/objects/datatype.h"

extern wmpi_datatype wmpi_dt_int, wmpi_dt_double, wmpi_dt_char,
    wmpi_dt_short_int, wmpi_dt_double_int;

static wmpi_datatype *make(int comb, int ni, const int *ints, int na,
                           const int64_t *aints, int nt,
                           wmpi_datatype *const *types)
{
    wmpi_type_args a = { comb, ni, na, nt, ints, aints, types };
    wmpi_datatype *t = NULL;

    assert_int_equal(wmpi_datatype_create(&a, &t), 0);
    return t;
}

/* struct { int; double x2 } and a contiguous pair of it */
static void counts_and_elements(void **state)
{
    wmpi_datatype *s = make(WMPI_COMBINER_STRUCT, 3, (int[]){ 2, 1, 2 }, 2,
                            (int64_t[]){ 0, 8 }, 2,
                            (wmpi_datatype *[]){ &wmpi_dt_int, &wmpi_dt_double });
    wmpi_datatype *c = make(WMPI_COMBINER_CONTIGUOUS, 1, (int[]){ 2 }, 0, NULL,
                            1, &s);

    (void)state;
    assert_int_equal(s->size, 20);
    assert_int_equal(wmpi_datatype_count(s, 40), 2);
    assert_int_equal(wmpi_datatype_count(s, 32), -1);
    assert_int_equal(wmpi_datatype_elements(s, 32), 5);
    assert_int_equal(wmpi_datatype_elements(s, 24), 4);
    assert_int_equal(wmpi_datatype_elements(s, 26), -1);
    assert_int_equal(wmpi_datatype_elements(c, 52), 8);
    for (int64_t n = 0; n < 12; n++) {
        int64_t b = wmpi_datatype_elements_bytes(c, n);

        assert_true(b >= 0);
        assert_int_equal(wmpi_datatype_elements(c, b), n);
    }
    assert_int_equal(wmpi_datatype_elements_bytes(&wmpi_dt_double_int, 3), 20);
    assert_int_equal(wmpi_datatype_elements(&wmpi_dt_short_int, 8), 3);
    wmpi_datatype_release(c);
    wmpi_datatype_release(s);
}

static void dense_runs(void **state)
{
    int64_t off;
    /* full rows 2..3 of a 5x4 int grid: one run at 32 bytes */
    wmpi_datatype *rows = make(WMPI_COMBINER_SUBARRAY, 8,
                               (int[]){ 2, 5, 4, 2, 4, 2, 0, WMPI_ORDER_C },
                               0, NULL, 1,
                               (wmpi_datatype *[]){ &wmpi_dt_int });
    wmpi_datatype *cols = make(WMPI_COMBINER_SUBARRAY, 8,
                               (int[]){ 2, 5, 4, 5, 2, 0, 1, WMPI_ORDER_C },
                               0, NULL, 1,
                               (wmpi_datatype *[]){ &wmpi_dt_int });

    (void)state;
    assert_true(wmpi_datatype_dense(rows, 1, &off));
    assert_int_equal(off, 32);
    assert_false(wmpi_datatype_dense(rows, 2, &off)); /* extent 80 > 32 */
    assert_false(wmpi_datatype_is_contig(rows));
    assert_false(wmpi_datatype_dense(cols, 1, &off));
    assert_true(wmpi_datatype_dense(&wmpi_dt_double_int, 1, &off));
    assert_false(wmpi_datatype_dense(&wmpi_dt_double_int, 2, &off));
    assert_false(wmpi_datatype_dense(&wmpi_dt_short_int, 1, &off));
    assert_true(wmpi_datatype_dense(&wmpi_dt_int, 1000, &off));
    assert_ptr_equal(wmpi_datatype_basic(cols), &wmpi_dt_int);
    assert_int_equal(wmpi_datatype_nbasic(cols), 10);
    wmpi_datatype_release(rows);
    wmpi_datatype_release(cols);
}

static void references_keep_parts(void **state)
{
    wmpi_datatype *v = make(WMPI_COMBINER_VECTOR, 3, (int[]){ 2, 1, 3 }, 0, NULL,
                            1, (wmpi_datatype *[]){ &wmpi_dt_char });
    wmpi_datatype *d = make(WMPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &v);
    wmpi_type_args a;
    char in[8] = "abcdefg", out[2];

    (void)state;
    assert_false(wmpi_datatype_committed(v));
    wmpi_datatype_commit(v);
    assert_true(wmpi_datatype_committed(v));
    assert_true(wmpi_datatype_committed(&wmpi_dt_int));
    wmpi_datatype_retain(v); /* a pending operation */
    wmpi_datatype_release(v); /* the handle */
    wmpi_datatype_args(d, &a);
    assert_int_equal(a.combiner, WMPI_COMBINER_DUP);
    assert_ptr_equal(a.types[0], v);
    wmpi_datatype_release(v); /* the operation: d still holds it */
    assert_int_equal(wmpi_datatype_pack(d, 1, in, out), 2);
    assert_true(out[0] == 'a' && out[1] == 'd');
    wmpi_datatype_release(d); /* frees both (ASan checks) */
    wmpi_datatype_release(&wmpi_dt_int); /* no-op */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_and_elements),
        cmocka_unit_test(dense_runs),
        cmocka_unit_test(references_keep_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
