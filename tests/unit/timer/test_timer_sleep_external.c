/* weft_sleep from an external kernel thread (a plain pthread, not a
 * worker) sleeps that kernel thread and never returns early, with the
 * runtime up and with it down. Only "never early" is asserted.
 */
#include "test_support.h"

#include <pthread.h>
#include <weft.h>

#define ROUNDS 50

static void *external_sleeper(void *arg)
{
    int *early = arg;
    for (int r = 0; r < ROUNDS; r++) {
        int64_t d = 100000 + (r % 5) * 300000;
        int64_t t0 = weft_now();
        if (r % 2)
            weft_sleep(d);
        else
            weft_sleep_until(t0 + d);
        if (weft_now() - t0 < d)
            (*early)++;
    }
    return NULL;
}

static void run_external(void)
{
    pthread_t th;
    int early = 0;
    assert_int_equal(pthread_create(&th, NULL, external_sleeper, &early), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(early, 0);
}

static void test_external_with_runtime(void **state)
{
    (void)state;
    assert_int_equal(weft_init(), 0);
    run_external();
    assert_int_equal(weft_fini(), 0);
}

static void test_external_without_runtime(void **state)
{
    (void)state;
    run_external();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_external_with_runtime),
        cmocka_unit_test(test_external_without_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
