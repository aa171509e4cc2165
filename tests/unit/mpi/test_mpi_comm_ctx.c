/* The MPI engine's communicator bookkeeping without a job: context id
 * allocation (engine/create/comm_ctx.c) on a one-rank communicator (the vote is
 * then local), communicator references (engine/objects/comm.c), Cartesian rank
 * arithmetic (engine/objects/topo.c) and attribute caching with its callbacks
 * (engine/objects/attr.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/objects/comm.h"
#include "engine/core/internal.h"

static wmpi_comm solo; /* a one-rank communicator on context 0 */

static int setup(void **state)
{
    (void)state;
    solo.rank = 0;
    solo.size = 1;
    solo.predefined = 1;
    return 0;
}

static void ids_are_lowest_free_and_reused(void **state)
{
    uint32_t a, b, c, d;
    int base = wmpi_ctx_in_use();

    (void)state;
    assert_int_equal(wmpi_ctx_alloc(&solo, 1, NULL, &a), 0);
    assert_int_equal(wmpi_ctx_alloc(&solo, 1, NULL, &b), 0);
    assert_true(a >= WMPI_CTX_FIRST && a % 2 == 0);
    assert_int_equal(b, a + 2);
    wmpi_ctx_free(a, 1);
    assert_int_equal(wmpi_ctx_alloc(&solo, 1, NULL, &c), 0);
    assert_int_equal(c, a); /* the lowest free pair comes back */
    /* two pairs in a row skip the hole-free prefix */
    assert_int_equal(wmpi_ctx_alloc(&solo, 2, NULL, &d), 0);
    assert_int_equal(d, b + 2);
    assert_int_equal(wmpi_ctx_in_use(), base + 4);
    wmpi_ctx_free(b, 1);
    wmpi_ctx_free(c, 1);
    wmpi_ctx_free(d, 2);
    assert_int_equal(wmpi_ctx_in_use(), base);
}

static void ids_run_out_and_come_back(void **state)
{
    static uint32_t got[4096];
    int n = 0, err;

    (void)state;
    while ((err = wmpi_ctx_alloc(&solo, 1, NULL, &got[n])) == 0)
        n++;
    assert_int_equal(err, -ENOSPC);
    assert_true(n >= 1024);
    for (int i = 0; i < n; i++)
        wmpi_ctx_free(got[i], 1);
    assert_int_equal(wmpi_ctx_alloc(&solo, 1, NULL, &got[0]), 0);
    wmpi_ctx_free(got[0], 1);
}

/* A first round that holds the eager segment and never ends (its parent's
 * other members are busy elsewhere) blocks nobody: another allocation's
 * first round offers nothing and fails, and its next round, listed, takes
 * an id from the main segment. On a one-rank parent a vote is its own
 * result. */
static void stuck_first_round_blocks_nobody(void **state)
{
    wmpi_ctx_pending stuck = { .key = 10 }, other = { .key = 20 };
    uint64_t v[WMPI_CTX_NWORDS + 1], w[WMPI_CTX_NWORDS + 1];
    int eager_pairs = WMPI_CTX_EAGER_WORDS * 64, p, q;

    (void)state;
    wmpi_ctx_vote(&stuck, v);
    assert_int_equal(v[WMPI_CTX_NWORDS], WMPI_CTX_HOLD_EAGER);
    wmpi_ctx_vote(&other, w);
    assert_int_equal(w[WMPI_CTX_NWORDS], 0);
    assert_int_equal(wmpi_ctx_settle(&other, w, 1), -1);
    wmpi_ctx_vote(&other, w);
    assert_int_equal(w[WMPI_CTX_NWORDS], WMPI_CTX_HOLD_MAIN);
    p = wmpi_ctx_settle(&other, w, 1);
    assert_true(p >= eager_pairs);
    q = wmpi_ctx_settle(&stuck, v, 1);
    assert_true(q >= 0 && q < eager_pairs);
    wmpi_ctx_free(WMPI_CTX_FIRST + 2u * (uint32_t)p, 1);
    wmpi_ctx_free(WMPI_CTX_FIRST + 2u * (uint32_t)q, 1);
}

/* Of the listed allocations, only the lowest key may offer the main
 * segment; when it is done, the next may. */
static void lowest_listed_key_holds(void **state)
{
    wmpi_ctx_pending hold = { .key = 1 }, lo = { .key = 5 }, hi = { .key = 7 };
    uint64_t h[WMPI_CTX_NWORDS + 1], v[WMPI_CTX_NWORDS + 1];
    int p;

    (void)state;
    wmpi_ctx_vote(&hold, h); /* keeps the eager segment from lo and hi */
    wmpi_ctx_vote(&hi, v);
    assert_int_equal(wmpi_ctx_settle(&hi, v, 1), -1);
    wmpi_ctx_vote(&lo, v);
    assert_int_equal(wmpi_ctx_settle(&lo, v, 1), -1);
    wmpi_ctx_vote(&hi, v);
    assert_int_equal(v[WMPI_CTX_NWORDS], 0);
    assert_int_equal(wmpi_ctx_settle(&hi, v, 1), -1);
    wmpi_ctx_vote(&lo, v);
    assert_int_equal(v[WMPI_CTX_NWORDS], WMPI_CTX_HOLD_MAIN);
    p = wmpi_ctx_settle(&lo, v, 1);
    assert_true(p >= 0);
    wmpi_ctx_free(WMPI_CTX_FIRST + 2u * (uint32_t)p, 1);
    wmpi_ctx_vote(&hi, v);
    assert_int_equal(v[WMPI_CTX_NWORDS], WMPI_CTX_HOLD_MAIN);
    p = wmpi_ctx_settle(&hi, v, 1);
    assert_true(p >= 0);
    wmpi_ctx_free(WMPI_CTX_FIRST + 2u * (uint32_t)p, 1);
    p = wmpi_ctx_settle(&hold, h, 1);
    assert_true(p >= 0 && p < WMPI_CTX_EAGER_WORDS * 64);
    wmpi_ctx_free(WMPI_CTX_FIRST + 2u * (uint32_t)p, 1);
}

static void cart_arithmetic(void **state)
{
    int dims[3] = { 2, 3, 4 }, periods[3] = { 0, 1, 0 };
    int store[9];
    wmpi_topo t = { .kind = WMPI_TOPO_CART, .ndims = 3, .dims = dims,
                    .periods = periods, .coords = store };
    int coords[3], r, src, dst;

    (void)state;
    for (int q = 0; q < 24; q++) {
        wmpi_cart_coords(&t, q, coords);
        assert_int_equal(coords[0] * 12 + coords[1] * 4 + coords[2], q);
        assert_int_equal(wmpi_cart_rank(&t, coords, &r), 0);
        assert_int_equal(r, q);
    }
    int far[3] = { 1, -1, 3 }; /* periodic dim 1 wraps to 2 */
    assert_int_equal(wmpi_cart_rank(&t, far, &r), 0);
    assert_int_equal(r, 12 + 8 + 3);
    int off[3] = { 2, 0, 0 };
    assert_int_equal(wmpi_cart_rank(&t, off, &r), WEFT_EINVAL);
    /* rank 0 = (0,0,0): dim 0 up is 12, down is off the edge */
    wmpi_cart_shift(&t, 0, 0, 1, &src, &dst);
    assert_int_equal(dst, 12);
    assert_int_equal(src, WMPI_PROC_NULL);
    /* periodic dim 1: (0,0,0) -1 -> (0,2,0) = 8; +1 -> 4 */
    wmpi_cart_shift(&t, 0, 1, 1, &src, &dst);
    assert_int_equal(dst, 4);
    assert_int_equal(src, 8);
    wmpi_cart_shift(&t, 0, 1, 7, &src, &dst); /* 7 = 1 mod 3 */
    assert_int_equal(dst, 4);
    /* last dim, rank 3 = (0,0,3): +1 off the edge, -1 -> 2 */
    wmpi_cart_shift(&t, 3, 2, 1, &src, &dst);
    assert_int_equal(dst, WMPI_PROC_NULL);
    assert_int_equal(src, 2);
}

static int copies, deletes;

static int copy_plus_one(wmpi_comm *old, int k, void *extra, void *in,
                         void *out, int *flag)
{
    (void)old, (void)k, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return 0;
}

static int count_delete(wmpi_comm *c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    deletes++;
    return 0;
}

static int refuse_delete(wmpi_comm *c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    return 17; /* an MPI error code */
}

static void attributes(void **state)
{
    wmpi_comm a = { .size = 1 }, b = { .size = 1 };
    char base[4];
    void *v;
    int k, k2, flag;

    (void)state;
    assert_int_equal(wmpi_keyval_create(copy_plus_one, count_delete, NULL, &k), 0);
    assert_true(k >= WMPI_KEY_FIRST_USER);
    assert_int_equal(wmpi_keyval_create(NULL, refuse_delete, NULL, &k2), 0);
    assert_int_equal(wmpi_attr_get(&a, k, &v, &flag), 0);
    assert_int_equal(flag, 0);
    assert_int_equal(wmpi_attr_set(&a, k, base), 0);
    assert_int_equal(wmpi_attr_set(&a, k, base + 1), 0); /* deletes base */
    assert_int_equal(deletes, 1);
    assert_int_equal(wmpi_attr_set(&a, k2, base), 0);
    assert_int_equal(wmpi_attr_copy_all(&a, &b), 0);
    assert_int_equal(copies, 1);
    assert_int_equal(wmpi_attr_get(&b, k, &v, &flag), 0);
    assert_true(flag && v == base + 2);
    assert_int_equal(wmpi_attr_get(&b, k2, &v, &flag), 0);
    assert_int_equal(flag, 0); /* NULL copy function: not copied */
    /* a failing delete callback's code comes back, the value stays */
    assert_int_equal(wmpi_attr_delete(&a, k2), wmpi_err_from_mpi(17));
    assert_int_equal(wmpi_attr_get(&a, k2, &v, &flag), 0);
    assert_int_equal(flag, 1);
    assert_int_equal(wmpi_attr_delete(&b, k2), -ENOENT);
    /* freed keyval: the attributes live on until deleted */
    assert_int_equal(wmpi_keyval_free(k), 0);
    assert_int_equal(wmpi_keyval_free(k), WEFT_EINVAL); /* freed once only */
    assert_int_equal(wmpi_attr_set(&a, k, base), WEFT_EINVAL);
    assert_int_equal(wmpi_attr_get(&a, k, &v, &flag), 0); /* still there */
    assert_true(flag && v == base + 1);
    assert_int_equal(wmpi_attr_delete_all(&b), 0);
    assert_int_equal(deletes, 2);
    wmpi_attr_discard(&a); /* no callbacks */
    assert_int_equal(deletes, 2);
    assert_null(a.attrs);
    assert_int_equal(wmpi_attr_get(&a, k, &v, &flag), WEFT_EINVAL); /* gone */
    assert_int_equal(wmpi_keyval_free(k2), 0);
    assert_int_equal(wmpi_attr_get(&a, 9999, &v, &flag), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids_are_lowest_free_and_reused),
        cmocka_unit_test(ids_run_out_and_come_back),
        cmocka_unit_test(stuck_first_round_blocks_nobody),
        cmocka_unit_test(lowest_listed_key_holds),
        cmocka_unit_test(cart_arithmetic),
        cmocka_unit_test(attributes),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
