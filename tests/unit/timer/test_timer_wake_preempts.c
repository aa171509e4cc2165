/* Timers fire on time even when no thread ever switches: with preemption
 * off and every worker busy with a compute ULT that never yields, a
 * FUNCTION event still runs (on the timer service thread) and a sleeping
 * ULT is still woken and runs (the wake-up preempts a compute thread).
 * The compute ULTs spin until both have happened; a missing detection
 * would leave them spinning until the hang guard, and the test fails.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define HANG_GUARD_NS 10000000000LL

static atomic_int event_ran, sleeper_ran, sleeper_started;

static void on_event(void *arg)
{
    (void)arg;
    atomic_store(&event_ran, 1);
}

/* Once it has set sleeper_started it runs on to its block: nothing can
 * preempt it (preemption is off, and nothing else is urgent). */
static void *sleeper(void *arg)
{
    (void)arg;
    atomic_store(&sleeper_started, 1);
    weft_sleep(20000000);
    atomic_store(&sleeper_ran, 1);
    return NULL;
}

static void *compute(void *arg)
{
    (void)arg;
    volatile uint64_t x = 1;
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (!(atomic_load(&event_ran) && atomic_load(&sleeper_ran)) && weft_now() < guard)
        x = x * 6364136223846793005ULL + 1;
    return NULL;
}

static void test_fires_without_switches(void **state)
{
    (void)state;
    int n = weft_num_workers();
    weft_thread_t s, c[64];
    assert_true(n <= 64);
    assert_int_equal(weft_set_quantum(0), 0);
    assert_int_equal(weft_thread_create(&s, NULL, sleeper, NULL), 0);
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (!atomic_load(&sleeper_started) && weft_now() < guard)
        weft_sleep(100000);
    assert_int_equal(atomic_load(&sleeper_started), 1);
    assert_int_equal(weft_event_after(NULL, 20000000, NULL, on_event, NULL), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(weft_thread_create(&c[i], NULL, compute, NULL), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(weft_thread_join(c[i], NULL), 0);
    assert_int_equal(weft_thread_join(s, NULL), 0);
    assert_int_equal(atomic_load(&event_ran), 1);
    assert_int_equal(atomic_load(&sleeper_ran), 1);
    assert_int_equal(weft_set_quantum(10000000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fires_without_switches),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
