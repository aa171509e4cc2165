/* One Weft mutex shared by plain pthreads (external kernel threads, which
 * sleep in the kernel) and ULTs: the counter it protects is exact, and an
 * external thread gets EBUSY / EPERM / EDEADLK like a ULT. */
#include "test_support.h"

#include <pthread.h>
#include <stdint.h>
#include <weft.h>

#define NPTHREADS 2
#define NULTS     8
#define NINCR     20000

static weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
static long counter;

static void *increment(void *arg)
{
    (void)arg;
    for (int i = 0; i < NINCR; i++) {
        weft_mutex_lock(&m);
        counter++;
        if (i % 101 == 0)
            sched_yield(); /* hold it a while: others must block */
        weft_mutex_unlock(&m);
    }
    return NULL;
}

static void test_pthreads_and_ults_share_counter(void **state)
{
    pthread_t p[NPTHREADS];
    weft_thread_t u[NULTS];
    (void)state;
    for (int i = 0; i < NPTHREADS; i++)
        assert_int_equal(pthread_create(&p[i], NULL, increment, NULL), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_create(&u[i], NULL, increment, NULL), 0);
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_join(u[i], NULL), 0);
    for (int i = 0; i < NPTHREADS; i++)
        assert_int_equal(pthread_join(p[i], NULL), 0);
    assert_int_equal(counter, (long)(NPTHREADS + NULTS) * NINCR);
}

static void *external_error_codes(void *arg)
{
    int *rc = arg;
    rc[0] = weft_mutex_trylock(&m);   /* main (a ULT) holds it */
    rc[1] = weft_mutex_unlock(&m);
    return NULL;
}

static void test_external_sees_ult_owner(void **state)
{
    pthread_t p;
    int rc[2];
    (void)state;
    assert_int_equal(weft_mutex_lock(&m), 0);
    assert_int_equal(pthread_create(&p, NULL, external_error_codes, rc), 0);
    assert_int_equal(pthread_join(p, NULL), 0);
    assert_int_equal(rc[0], WEFT_EBUSY);
    assert_int_equal(rc[1], WEFT_EPERM);
    assert_int_equal(weft_mutex_unlock(&m), 0);
}

static void *external_owner_checks(void *arg)
{
    int *rc = arg;
    rc[0] = weft_mutex_lock(&m);
    rc[1] = weft_mutex_lock(&m);
    rc[2] = weft_mutex_unlock(&m);
    rc[3] = weft_mutex_unlock(&m);
    return NULL;
}

static void test_external_owner_errors(void **state)
{
    pthread_t p;
    int rc[4];
    (void)state;
    assert_int_equal(pthread_create(&p, NULL, external_owner_checks, rc), 0);
    assert_int_equal(pthread_join(p, NULL), 0);
    assert_int_equal(rc[0], 0);
    assert_int_equal(rc[1], WEFT_EDEADLK);
    assert_int_equal(rc[2], 0);
    assert_int_equal(rc[3], WEFT_EPERM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pthreads_and_ults_share_counter),
        cmocka_unit_test(test_external_sees_ult_owner),
        cmocka_unit_test(test_external_owner_errors),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
