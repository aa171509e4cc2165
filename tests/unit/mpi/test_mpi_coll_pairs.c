/* The pairing step of the long reductions (engine/coll/coll_blocks.c): for
 * every size up to 64 and every root, the survivors are p = 2^floor(log2
 * n) distinct ranks numbered 0..p-1 both ways, every other rank folds into
 * its pair's survivor, the root is survivor 0 when pairs keep their even
 * member (reduce), and survivors keep rank order when pairs keep their odd
 * member from root 0 (allreduce with non-commutative ops). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "engine/coll/coll_impl.h"

static void check_size(int n, int root, int keep_odd)
{
    wmpi_coll_pairs s;
    int seen[64];

    memset(seen, 0, sizeof seen);
    wmpi_coll_pairs_init(&s, n, root, keep_odd);
    assert_true(s.p <= n && 2 * s.p > n);
    for (int i = 0; i < s.p; i++) {
        int r = wmpi_coll_pairs_rank(&s, i);
        assert_true(r >= 0 && r < n);
        assert_int_equal(seen[r]++, 0);
        assert_int_equal(wmpi_coll_pairs_index(&s, r), i);
        if (!keep_odd && i == 0)
            assert_int_equal(r, root);
        if (keep_odd && root == 0 && i > 0)
            assert_true(r > wmpi_coll_pairs_rank(&s, i - 1));
    }
    for (int r = 0; r < n; r++) {
        int partner = wmpi_coll_pairs_partner(&s, r);
        if (seen[r])
            continue;
        /* folded: its partner survives and names it back */
        assert_int_equal(wmpi_coll_pairs_index(&s, r), -1);
        assert_true(partner >= 0 && partner < n);
        assert_int_equal(seen[partner], 1);
        assert_int_equal(wmpi_coll_pairs_partner(&s, partner), r);
    }
}

static void survivors_are_a_power_of_two_numbered_both_ways(void **state)
{
    (void)state;
    for (int n = 1; n <= 64; n++)
        for (int root = 0; root < n; root++) {
            check_size(n, root, 0);
            check_size(n, root, 1);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(survivors_are_a_power_of_two_numbered_both_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
