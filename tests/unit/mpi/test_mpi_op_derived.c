/* Predefined ops on derived datatypes made of one predefined type: a
 * contiguous type is reduced in place, a strided one through its packed
 * elements, and the bytes between its elements stay as they were; a pair
 * type inside a vector still gets MINLOC/MAXLOC; a type mixing two basic
 * types is refused (WEFT_EINVAL) and left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <mpi.h>

#include "engine/objects/datatype.h"
#include "engine/objects/op.h"

static wmpi_datatype *make(int combiner, int ni, const int *ints, int na,
                           const int64_t *aints, int nt,
                           wmpi_datatype *const *types)
{
    wmpi_type_args a = { combiner, ni, na, nt, ints, aints, types };
    wmpi_datatype *dt = NULL;

    assert_int_equal(wmpi_datatype_create(&a, &dt), 0);
    wmpi_datatype_commit(dt);
    return dt;
}

static wmpi_datatype *vector(int count, int bl, int stride, wmpi_datatype *old)
{
    int ints[3] = { count, bl, stride };

    return make(WMPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &old);
}

static void contiguous_in_place(void **state)
{
    int ints[1] = { 5 };
    wmpi_datatype *base = MPI_INT;
    wmpi_datatype *dt = make(WMPI_COMBINER_CONTIGUOUS, 1, ints, 0, NULL, 1, &base);
    int a[15], b[15];

    (void)state;
    for (int i = 0; i < 15; i++)
        a[i] = i, b[i] = 100 * i;
    assert_true(wmpi_op_valid(MPI_SUM, dt));
    assert_true(wmpi_op_valid(MPI_LAND, dt));
    assert_int_equal(wmpi_op_apply(MPI_SUM, a, b, 3, dt), 0);
    for (int i = 0; i < 15; i++)
        assert_int_equal(b[i], 101 * i);
    wmpi_datatype_release(dt);
}

/* 3 blocks of 2 doubles, stride 3: every third double is a gap. */
static void strided_through_packing(void **state)
{
    wmpi_datatype *dt = vector(3, 2, 3, MPI_DOUBLE);
    double a[18], b[18];

    (void)state;
    for (int i = 0; i < 18; i++)
        a[i] = i, b[i] = -1.0 - i;
    /* two elements of dt: extent 8 doubles, so data at 0,1,3,4,6,7 and
     * 8,9,11,12,14,15 */
    assert_int_equal(wmpi_op_apply(MPI_MAX, a, b, 2, dt), 0);
    for (int i = 0; i < 18; i++) {
        int in_data = i < 16 && (i % 8) % 3 != 2;
        assert_true(b[i] == (in_data ? (double)i : -1.0 - i));
    }
    assert_false(wmpi_op_valid(MPI_BAND, dt));
    assert_int_equal(wmpi_op_apply(MPI_BAND, a, b, 2, dt), WEFT_EINVAL);
    wmpi_datatype_release(dt);
}

static void pairs_inside_a_vector(void **state)
{
    wmpi_datatype *dt = vector(2, 1, 2, MPI_DOUBLE_INT);
    struct { double v; int i; } a[4], b[4];

    (void)state;
    memset(a, 0, sizeof a), memset(b, 0, sizeof b);
    for (int i = 0; i < 4; i++) {
        a[i].v = 1, a[i].i = 10 + i;
        b[i].v = i == 2 ? 5 : 1, b[i].i = 3;
    }
    assert_true(wmpi_op_valid(MPI_MAXLOC, dt));
    assert_int_equal(wmpi_op_apply(MPI_MAXLOC, a, b, 1, dt), 0);
    assert_true(b[0].v == 1 && b[0].i == 3);   /* tie: lower index */
    assert_true(b[1].v == 1 && b[1].i == 3);   /* gap */
    assert_true(b[2].v == 5 && b[2].i == 3);   /* larger value kept */
    assert_true(b[3].v == 1 && b[3].i == 3);   /* beyond the element */
    wmpi_datatype_release(dt);
}

static void mixed_types_are_refused(void **state)
{
    int ints[3] = { 2, 1, 1 };
    int64_t disps[2] = { 0, 8 };
    wmpi_datatype *types[2] = { MPI_INT, MPI_DOUBLE };
    wmpi_datatype *dt = make(WMPI_COMBINER_STRUCT, 3, ints, 2, disps, 2, types);
    double a[2] = { 1, 2 }, b[2] = { 3, 4 };

    (void)state;
    assert_false(wmpi_op_valid(MPI_SUM, dt));
    assert_int_equal(wmpi_op_apply(MPI_SUM, a, b, 1, dt), WEFT_EINVAL);
    assert_true(b[0] == 3 && b[1] == 4);
    wmpi_datatype_release(dt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(contiguous_in_place),
        cmocka_unit_test(strided_through_packing),
        cmocka_unit_test(pairs_inside_a_vector),
        cmocka_unit_test(mixed_types_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
