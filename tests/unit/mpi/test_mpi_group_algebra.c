/* The MPI engine's group algebra (engine/objects/group.c): incl, excl, ranges,
 * union, intersection, difference, translate, compare, against lists
 * worked out by hand; bad ranks and triplets are rejected; empty results
 * are MPI_GROUP_EMPTY; reference counts free every group (ASan checks).
 * The engine is not initialised: the caller is world rank 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/objects/comm.h"

static wmpi_group *make(int n, const int *w)
{
    wmpi_group *g = NULL;

    assert_int_equal(wmpi_group_new(n, w, &g), 0);
    assert_non_null(g);
    return g;
}

static void assert_members(const wmpi_group *g, int n, const int *w)
{
    assert_int_equal(g->size, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(g->world[i], w[i]);
}

static void select_and_exclude(void **state)
{
    int w[6] = { 10, 0, 30, 40, 50, 60 };
    int pick[3] = { 4, 1, 2 }, want_in[3] = { 50, 0, 30 }, want_ex[3] = { 10, 40, 60 };
    wmpi_group *g = make(6, w), *a, *b;

    (void)state;
    assert_int_equal(g->rank, 1); /* world rank 0 is member 1 */
    assert_int_equal(wmpi_group_incl(g, 3, pick, &a), 0);
    assert_members(a, 3, want_in);
    assert_int_equal(a->rank, 1);
    assert_int_equal(wmpi_group_excl(g, 3, pick, &b), 0);
    assert_members(b, 3, want_ex);
    assert_int_equal(b->rank, WMPI_UNDEFINED);
    wmpi_group_release(a);
    wmpi_group_release(b);
    /* nothing picked: the predefined empty group */
    assert_int_equal(wmpi_group_incl(g, 0, pick, &a), 0);
    assert_ptr_equal(a, &wmpi_pub_group_empty);
    wmpi_group_release(a);
    wmpi_group_release(g);
}

static void bad_ranks_are_rejected(void **state)
{
    int w[4] = { 0, 1, 2, 3 }, twice[2] = { 1, 1 }, out[1] = { 4 }, neg[1] = { -1 };
    wmpi_group *g = make(4, w), *a = (wmpi_group *)1;

    (void)state;
    assert_int_equal(wmpi_group_incl(g, 2, twice, &a), WEFT_EINVAL);
    assert_null(a);
    assert_int_equal(wmpi_group_incl(g, 1, out, &a), WEFT_EINVAL);
    assert_int_equal(wmpi_group_excl(g, 1, neg, &a), WEFT_EINVAL);
    assert_int_equal(wmpi_group_excl(g, 2, twice, &a), WEFT_EINVAL);
    int zero[1][3] = { { 0, 3, 0 } }, away[1][3] = { { 0, 3, -1 } },
        past[1][3] = { { 0, 4, 1 } }, overlap[2][3] = { { 0, 2, 1 }, { 2, 3, 1 } };
    assert_int_equal(wmpi_group_range_incl(g, 1, zero, &a), WEFT_EINVAL);
    assert_int_equal(wmpi_group_range_incl(g, 1, away, &a), WEFT_EINVAL);
    assert_int_equal(wmpi_group_range_incl(g, 1, past, &a), WEFT_EINVAL);
    assert_int_equal(wmpi_group_range_excl(g, 2, overlap, &a), WEFT_EINVAL);
    wmpi_group_release(g);
}

static void ranges(void **state)
{
    int w[10];
    for (int i = 0; i < 10; i++)
        w[i] = 100 + i;
    wmpi_group *g = make(10, w), *a;
    int down[2][3] = { { 9, 0, -4 }, { 2, 3, 1 } }; /* 9 5 1, 2 3 */
    int want[5] = { 109, 105, 101, 102, 103 };
    int rest[5] = { 100, 104, 106, 107, 108 };
    int single[1][3] = { { 7, 7, 3 } }; /* just 7 */

    (void)state;
    assert_int_equal(wmpi_group_range_incl(g, 2, down, &a), 0);
    assert_members(a, 5, want);
    wmpi_group_release(a);
    assert_int_equal(wmpi_group_range_excl(g, 2, down, &a), 0);
    assert_members(a, 5, rest);
    wmpi_group_release(a);
    assert_int_equal(wmpi_group_range_incl(g, 1, single, &a), 0);
    assert_int_equal(a->size, 1);
    assert_int_equal(a->world[0], 107);
    wmpi_group_release(a);
    wmpi_group_release(g);
}

static void set_operations(void **state)
{
    int wa[4] = { 5, 3, 1, 7 }, wb[4] = { 2, 7, 3, 4 };
    int u[6] = { 5, 3, 1, 7, 2, 4 }, in[2] = { 3, 7 }, diff[2] = { 5, 1 };
    wmpi_group *a = make(4, wa), *b = make(4, wb), *r;

    (void)state;
    assert_int_equal(wmpi_group_union(a, b, &r), 0);
    assert_members(r, 6, u);
    wmpi_group_release(r);
    assert_int_equal(wmpi_group_intersection(a, b, &r), 0);
    assert_members(r, 2, in);
    wmpi_group_release(r);
    assert_int_equal(wmpi_group_difference(a, b, &r), 0);
    assert_members(r, 2, diff);
    wmpi_group_release(r);
    assert_int_equal(wmpi_group_difference(a, a, &r), 0);
    assert_ptr_equal(r, &wmpi_pub_group_empty);
    assert_int_equal(wmpi_group_union(&wmpi_pub_group_empty, b, &r), 0);
    assert_members(r, 4, wb);
    wmpi_group_release(r);
    wmpi_group_release(a);
    wmpi_group_release(b);
}

static void translate_and_compare(void **state)
{
    int wa[4] = { 0, 1, 2, 3 }, wr[4] = { 3, 2, 1, 0 }, wc[3] = { 0, 1, 2 };
    wmpi_group *a = make(4, wa), *r = make(4, wr), *c = make(3, wc), *a2 = make(4, wa);
    int in[4] = { 0, 3, WMPI_PROC_NULL, 1 }, out[4], bad[1] = { 4 };

    (void)state;
    assert_int_equal(wmpi_group_translate(a, 4, in, r, out), 0);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], WMPI_PROC_NULL);
    assert_int_equal(out[3], 2);
    assert_int_equal(wmpi_group_translate(a, 2, in, c, out), 0);
    assert_int_equal(out[1], WMPI_UNDEFINED);
    assert_int_equal(wmpi_group_translate(a, 1, bad, c, out), WEFT_EINVAL);
    assert_int_equal(wmpi_group_compare(a, a2), WMPI_IDENT);
    assert_int_equal(wmpi_group_compare(a, r), WMPI_SIMILAR);
    assert_int_equal(wmpi_group_compare(a, c), WMPI_UNEQUAL);
    assert_int_equal(wmpi_group_compare(&wmpi_pub_group_empty, &wmpi_pub_group_empty),
                     WMPI_IDENT);
    /* retain/release: a lives until the last reference goes */
    wmpi_group_retain(a);
    wmpi_group_release(a);
    assert_int_equal(a->size, 4);
    wmpi_group_release(a);
    wmpi_group_release(r);
    wmpi_group_release(c);
    wmpi_group_release(a2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(select_and_exclude),
        cmocka_unit_test(bad_ranks_are_rejected),
        cmocka_unit_test(ranges),
        cmocka_unit_test(set_operations),
        cmocka_unit_test(translate_and_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
