/* The CPU-time queue (ARIADNE's VTQ): an event due after D ns of process
 * CPU time fires once the process has used them (a compute ULT burns CPU
 * until it has), never before by that clock. weft_event_after on the CPU
 * queue counts from weft_cpu_now(). Only "never early" is asserted.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define CPU_DELAY_NS 30000000LL /* 30 ms of CPU time */
#define HANG_GUARD_NS 20000000000LL

static atomic_llong fired_cpu;

static void on_cpu_event(void *arg)
{
    (void)arg;
    atomic_store(&fired_cpu, weft_cpu_now());
}

static void *burn(void *arg)
{
    (void)arg;
    volatile uint64_t x = 1;
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (atomic_load(&fired_cpu) == 0 && weft_now() < guard)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ULL + 1;
    return NULL;
}

static void test_fires_after_cpu_time(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.queue = WEFT_QUEUE_CPU;
    weft_thread_t th;
    int64_t start = weft_cpu_now();
    assert_int_equal(weft_event_after(NULL, CPU_DELAY_NS, &a, on_cpu_event, NULL), 0);
    assert_int_equal(weft_event_pending(), 1);
    assert_int_equal(weft_thread_create(&th, NULL, burn, NULL), 0);
    assert_int_equal(weft_thread_join(th, NULL), 0);
    assert_true(atomic_load(&fired_cpu) != 0);
    assert_true(atomic_load(&fired_cpu) - start >= CPU_DELAY_NS);
    assert_int_equal(weft_event_pending(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fires_after_cpu_time),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
