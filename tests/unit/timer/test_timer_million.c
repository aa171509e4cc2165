/* A million pending events: all inserted (far in the future), counted,
 * then cancelled by handle in random order, each cancel returning 1, and
 * the queue ends empty. Bounded by the CTest timeout only (a few seconds,
 * also under AddressSanitizer); no timing is asserted.
 */
#include "test_support.h"

#include <stdlib.h>
#include <weft.h>

#define N 1000000
#define FAR_NS 3600000000000LL /* an hour: none fires */

static void never(void *arg)
{
    (void)arg;
    fail_msg("a cancelled event ran");
}

static void shuffle(weft_event_t *v, int n)
{
    uint64_t x = 88172645463325252ULL;
    for (int i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1));
        weft_event_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void test_million_insert_cancel(void **state)
{
    (void)state;
    weft_event_t *ev = malloc(N * sizeof *ev);
    assert_non_null(ev);
    int64_t base = weft_now() + FAR_NS;
    for (int i = 0; i < N; i++)
        assert_int_equal(weft_event_at(&ev[i], base + (i * 7919LL) % N, NULL, never, ev + i), 0);
    assert_int_equal(weft_event_pending(), N);
    shuffle(ev, N);
    for (int i = 0; i < N; i++) {
        assert_int_equal(weft_event_cancel(ev[i]), 1);
        weft_event_release(ev[i]);
    }
    assert_int_equal(weft_event_pending(), 0);
    free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_million_insert_cancel),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
