/* MPI_Dims_create's factorisation (wbind_dims_balance): products right,
 * free entries non-increasing and as close to each other as possible,
 * fixed entries kept, impossible requests refused with dims unchanged. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <weft/errno.h>

#include "binding/dims.h"

typedef struct dims_case {
    int nnodes, ndims;
    int in[16], out[16];
} dims_case;

static const dims_case table[] = {
    { 6, 2, { 0, 0 }, { 3, 2 } },
    { 7, 2, { 0, 0 }, { 7, 1 } },
    { 6, 3, { 0, 3, 0 }, { 2, 3, 1 } },
    { 1, 3, { 0, 0, 0 }, { 1, 1, 1 } },
    { 12, 2, { 0, 0 }, { 4, 3 } },
    { 16, 3, { 0, 0, 0 }, { 4, 2, 2 } },
    { 24, 3, { 0, 0, 0 }, { 4, 3, 2 } },
    { 30, 3, { 0, 0, 0 }, { 5, 3, 2 } },
    { 64, 3, { 0, 0, 0 }, { 4, 4, 4 } },
    { 72, 2, { 0, 0 }, { 9, 8 } },       /* greedy would say 12 x 6 */
    { 72, 3, { 0, 0, 0 }, { 6, 4, 3 } },
    { 100, 2, { 0, 0 }, { 10, 10 } },
    { 360, 3, { 0, 0, 0 }, { 9, 8, 5 } }, /* tie with 10 6 6: smaller max */
    { 1024, 3, { 0, 0, 0 }, { 16, 8, 8 } },
    { 48, 4, { 0, 0, 0, 0 }, { 4, 3, 2, 2 } },
    { 12, 3, { 0, 3, 0 }, { 2, 3, 2 } },
    { 12, 2, { 4, 3 }, { 4, 3 } },
    { 60, 4, { 0, 5, 0, 0 }, { 3, 5, 2, 2 } },
    { 1, 0, { 0 }, { 0 } },
    { 2147483647, 2, { 0, 0 }, { 2147483647, 1 } }, /* a prime */
    { 1 << 30, 5, { 0, 0, 0, 0, 0 }, { 64, 64, 64, 64, 64 } },
    { 720720, 6, { 0, 0, 0, 0, 0, 0 }, { 13, 11, 10, 9, 8, 7 } },
    /* ones are forced: then the lexicographically smallest */
    { 720720, 12, { 0 }, { 13, 11, 7, 5, 3, 3, 2, 2, 2, 2, 1, 1 } },
    { 2095133040, 16, { 0 }, { 19, 17, 13, 11, 7, 5, 3, 3, 3, 3, 2, 2, 2, 2, 1, 1 } },
    { 2095133040, 8, { 0 }, { 19, 18, 17, 15, 14, 13, 12, 11 } },
};

static void table_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const dims_case *c = &table[i];
        int d[16];
        memcpy(d, c->in, sizeof d);
        assert_int_equal(wbind_dims_balance(c->nnodes, c->ndims, d), 0);
        for (int k = 0; k < c->ndims; k++) {
            if (d[k] != c->out[k])
                fail_msg("case %zu (%d in %d): dims[%d] = %d, want %d", i, c->nnodes,
                         c->ndims, k, d[k], c->out[k]);
        }
    }
}

static void properties_hold(void **state)
{
    (void)state;
    for (int n = 1; n <= 400; n++) {
        for (int nd = 1; nd <= 4; nd++) {
            int d[4] = { 0, 0, 0, 0 };
            long prod = 1;
            assert_int_equal(wbind_dims_balance(n, nd, d), 0);
            for (int k = 0; k < nd; k++) {
                assert_true(d[k] >= 1);
                if (k > 0)
                    assert_true(d[k] <= d[k - 1]);
                prod *= d[k];
            }
            assert_int_equal(prod, n);
        }
    }
}

static void impossible_requests(void **state)
{
    static const dims_case bad[] = {
        { 0, 2, { 0, 0 }, { 0 } },
        { -1, 2, { 0, 0 }, { 0 } },
        { 12, 3, { 0, 5, 0 }, { 0 } },  /* 5 does not divide 12 */
        { 12, 3, { 0, -1, 0 }, { 0 } }, /* negative entry */
        { 12, 2, { 2, 3 }, { 0 } },     /* all fixed, product 6 */
        { 6, 2, { 7, 0 }, { 0 } },      /* fixed product too large */
        { 2, 0, { 0 }, { 0 } },         /* empty product is 1 */
    };
    (void)state;
    assert_int_equal(wbind_dims_balance(4, -1, NULL), WEFT_EINVAL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int d[16];
        memcpy(d, bad[i].in, sizeof d);
        assert_int_equal(wbind_dims_balance(bad[i].nnodes, bad[i].ndims, d), WEFT_EINVAL);
        assert_memory_equal(d, bad[i].in, sizeof d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_cases),
        cmocka_unit_test(properties_hold),
        cmocka_unit_test(impossible_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
