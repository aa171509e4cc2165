/* Barriers: over several rounds no thread leaves before all have arrived,
 * exactly one thread per round gets WEFT_BARRIER_SERIAL_THREAD, and the
 * barrier is reusable; plus the error codes. */
#include "test_support.h"

#include <stdint.h>
#include <weft.h>

#define NTHREADS 12
#define NROUNDS  50

static weft_barrier_t b;
static int arrived[NROUNDS];
static int serial[NROUNDS];
static int early_leavers;

static void *run_rounds(void *arg)
{
    (void)arg;
    for (int r = 0; r < NROUNDS; r++) {
        __atomic_fetch_add(&arrived[r], 1, __ATOMIC_RELAXED);
        int rc = weft_barrier_wait(&b);
        if (rc == WEFT_BARRIER_SERIAL_THREAD)
            __atomic_fetch_add(&serial[r], 1, __ATOMIC_RELAXED);
        else if (rc != 0)
            __atomic_fetch_add(&early_leavers, 1000, __ATOMIC_RELAXED);
        if (__atomic_load_n(&arrived[r], __ATOMIC_RELAXED) != NTHREADS)
            __atomic_fetch_add(&early_leavers, 1, __ATOMIC_RELAXED);
        if (r % 7 == 0)
            weft_thread_yield();
    }
    return NULL;
}

static void test_rounds_with_one_serial_thread(void **state)
{
    weft_thread_t t[NTHREADS];
    (void)state;
    assert_int_equal(weft_barrier_init(&b, NTHREADS), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, run_rounds, NULL), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(early_leavers, 0);
    for (int r = 0; r < NROUNDS; r++) {
        assert_int_equal(arrived[r], NTHREADS);
        assert_int_equal(serial[r], 1);
    }
    assert_int_equal(weft_barrier_destroy(&b), 0);
}

static void test_single_thread_barrier_is_always_serial(void **state)
{
    weft_barrier_t one;
    (void)state;
    assert_int_equal(weft_barrier_init(&one, 1), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_barrier_wait(&one), WEFT_BARRIER_SERIAL_THREAD);
    assert_int_equal(weft_barrier_destroy(&one), 0);
}

static void test_error_codes(void **state)
{
    weft_barrier_t x;
    (void)state;
    assert_int_equal(weft_barrier_init(&x, 0), WEFT_EINVAL);
    assert_int_equal(weft_barrier_init(NULL, 2), WEFT_EINVAL);
    assert_int_equal(weft_barrier_destroy(NULL), WEFT_EINVAL);
    assert_int_equal(weft_barrier_wait(NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounds_with_one_serial_thread),
        cmocka_unit_test(test_single_thread_barrier_is_always_serial),
        cmocka_unit_test(test_error_codes),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
