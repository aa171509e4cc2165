/* weft_once: with many concurrent callers (ULTs and plain pthreads) the
 * function runs exactly once, and every caller returns only after it has
 * finished; later calls do nothing. */
#include "test_support.h"

#include <pthread.h>
#include <stdint.h>
#include <weft.h>

#define NULTS     32
#define NPTHREADS 2

static weft_once_t once = WEFT_ONCE_INIT;
static int runs, finished, returned_early;

static void init_fn(void)
{
    __atomic_fetch_add(&runs, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 50; i++)
        weft_thread_yield(); /* let the other callers arrive meanwhile */
    __atomic_store_n(&finished, 1, __ATOMIC_RELAXED);
}

static void *call_once(void *arg)
{
    (void)arg;
    if (weft_once(&once, init_fn) != 0)
        __atomic_fetch_add(&returned_early, 100, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&finished, __ATOMIC_RELAXED))
        __atomic_fetch_add(&returned_early, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void test_concurrent_callers_run_fn_once(void **state)
{
    weft_thread_t u[NULTS];
    pthread_t p[NPTHREADS];
    (void)state;
    for (int i = 0; i < NPTHREADS; i++)
        assert_int_equal(pthread_create(&p[i], NULL, call_once, NULL), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_create(&u[i], NULL, call_once, NULL), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_join(u[i], NULL), 0);
    for (int i = 0; i < NPTHREADS; i++)
        assert_int_equal(pthread_join(p[i], NULL), 0);
    assert_int_equal(runs, 1);
    assert_int_equal(returned_early, 0);
}

static void test_later_call_does_nothing(void **state)
{
    (void)state;
    assert_int_equal(weft_once(&once, init_fn), 0);
    assert_int_equal(runs, 1);
}

static void noop(void) {}

static void test_error_codes(void **state)
{
    weft_once_t o = WEFT_ONCE_INIT;
    (void)state;
    assert_int_equal(weft_once(NULL, noop), WEFT_EINVAL);
    assert_int_equal(weft_once(&o, NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_callers_run_fn_once),
        cmocka_unit_test(test_later_call_does_nothing),
        cmocka_unit_test(test_error_codes),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
