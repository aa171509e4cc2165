/* Stress: 1,000 ULTs x 10,000 increments of one mutex-protected counter,
 * with a 100 us quantum (so holders are often preempted inside the
 * critical section) and every worker running: the total must be exact and
 * the run must finish (no lost wake-up, no deadlock).
 *
 * WEFT_STRESS_SCALE=<n> (n >= 1) divides the number of increments per
 * thread, for slow builds (sanitizers); the default run is the full one. */
#include "test_support.h"

#include <stdlib.h>
#include <weft.h>

#define NTHREADS 1000
#define NINCR    10000

static weft_mutex_t lock = WEFT_MUTEX_INITIALIZER;
static long counter;
static int increments;

static int scale_from_env(void)
{
    const char *s = getenv("WEFT_STRESS_SCALE");
    int n = s ? atoi(s) : 1;
    return n >= 1 ? n : 1;
}

static void *hammer(void *arg)
{
    (void)arg;
    for (int i = 0; i < increments; i++) {
        weft_mutex_lock(&lock);
        counter++;
        weft_mutex_unlock(&lock);
    }
    return NULL;
}

static void test_counter_is_exact(void **state)
{
    static weft_thread_t t[NTHREADS];
    (void)state;
    increments = WT_ROUNDS(NINCR) / scale_from_env();
    assert_int_equal(weft_set_quantum(100000), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, hammer, NULL), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(counter, (long)NTHREADS * increments);
    assert_int_equal(weft_mutex_destroy(&lock), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_is_exact),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
