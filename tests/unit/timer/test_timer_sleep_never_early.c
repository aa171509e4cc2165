/* weft_sleep and weft_sleep_until never return early: SLEEPERS ULTs sleep
 * random short durations (0 to 2 ms, some a microsecond) ROUNDS times each,
 * while COMPUTE ULTs keep every worker busy; every measured sleep must be
 * at least what was asked. Only "never early" is asserted.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define SLEEPERS 16
#define ROUNDS 40
#define COMPUTE 4
#define HANG_GUARD_NS 20000000000LL

static atomic_int sleepers_left, early, total;

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void *sleeper(void *arg)
{
    uint64_t x = 0x9E3779B97F4A7C15ULL * (uint64_t)(intptr_t)arg + 1;
    for (int r = 0; r < ROUNDS; r++) {
        uint64_t v = next_rand(&x);
        int64_t d = v % 4 == 0 ? 1000 : (int64_t)(v % 2000000);
        int64_t t0 = weft_now(), t1;
        if (r % 2) {
            weft_sleep(d);
            t1 = weft_now();
        } else {
            weft_sleep_until(t0 + d);
            t1 = weft_now();
        }
        if (t1 - t0 < d)
            atomic_fetch_add(&early, 1);
        atomic_fetch_add(&total, 1);
    }
    atomic_fetch_sub(&sleepers_left, 1);
    return NULL;
}

static void *compute(void *arg)
{
    (void)arg;
    volatile uint64_t x = 1;
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (atomic_load(&sleepers_left) > 0 && weft_now() < guard)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ULL + 1;
    return NULL;
}

static void test_never_early_under_load(void **state)
{
    (void)state;
    weft_thread_t s[SLEEPERS], c[COMPUTE];
    atomic_store(&sleepers_left, SLEEPERS);
    for (int i = 0; i < COMPUTE; i++)
        assert_int_equal(weft_thread_create(&c[i], NULL, compute, NULL), 0);
    for (int i = 0; i < SLEEPERS; i++)
        assert_int_equal(weft_thread_create(&s[i], NULL, sleeper, (void *)(intptr_t)i), 0);
    for (int i = 0; i < SLEEPERS; i++)
        assert_int_equal(weft_thread_join(s[i], NULL), 0);
    for (int i = 0; i < COMPUTE; i++)
        assert_int_equal(weft_thread_join(c[i], NULL), 0);
    assert_int_equal(atomic_load(&total), SLEEPERS * ROUNDS);
    assert_int_equal(atomic_load(&early), 0);
}

static void test_zero_and_negative(void **state)
{
    (void)state;
    assert_int_equal(weft_sleep(0), 0);
    assert_int_equal(weft_sleep(-5), 0);
    assert_int_equal(weft_sleep_until(weft_now() - 1000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_never_early_under_load),
        cmocka_unit_test(test_zero_and_negative),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
