/* Thread-local keys: each ULT sees its own value; at thread exit the
 * destructor runs exactly once with that thread's value (and is repeated
 * a bounded number of times if it sets new values); delete stops both
 * lookups and destructors; the table holds at most WEFT_KEYS_MAX keys. */
#include "test_support.h"

#include <pthread.h>
#include <stdint.h>
#include <weft.h>

#define NTHREADS 16

static weft_key_t key;
static int vals[NTHREADS];
static int dtor_calls[NTHREADS];
static weft_thread_t dtor_ran_on[NTHREADS];
static int wrong_values, early_dtors;

static void record_dtor(void *v)
{
    int i = (int)((int *)v - vals);
    __atomic_fetch_add(&dtor_calls[i], 1, __ATOMIC_RELAXED);
    dtor_ran_on[i] = weft_thread_self();
}

static void *set_check_exit(void *arg)
{
    int i = (int)(intptr_t)arg;
    if (weft_key_get(key) != NULL)
        __atomic_fetch_add(&wrong_values, 1, __ATOMIC_RELAXED);
    weft_key_set(key, &vals[i]);
    for (int k = 0; k < 20; k++) {
        weft_thread_yield();
        if (weft_key_get(key) != &vals[i])
            __atomic_fetch_add(&wrong_values, 1, __ATOMIC_RELAXED);
    }
    if (__atomic_load_n(&dtor_calls[i], __ATOMIC_RELAXED) != 0)
        __atomic_fetch_add(&early_dtors, 1, __ATOMIC_RELAXED);
    return weft_thread_self();
}

static void test_values_per_thread_and_destructors(void **state)
{
    weft_thread_t t[NTHREADS];
    void *self[NTHREADS];
    (void)state;
    assert_int_equal(weft_key_create(&key, record_dtor), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, set_check_exit, (void *)(intptr_t)i), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(t[i], &self[i]), 0);
    assert_int_equal(wrong_values, 0);
    assert_int_equal(early_dtors, 0);
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(dtor_calls[i], 1);
        assert_ptr_equal(dtor_ran_on[i], self[i]); /* on the exiting thread */
    }
    assert_null(weft_key_get(key)); /* main never set it */
    assert_int_equal(weft_key_delete(key), 0);
}

static int null_dtor_calls;
static void count_dtor(void *v) { (void)v; null_dtor_calls++; }

static void *set_then_clear(void *arg)
{
    weft_key_set(*(weft_key_t *)arg, &vals[0]);
    weft_key_set(*(weft_key_t *)arg, NULL);
    return NULL;
}

static void test_no_destructor_for_null_value(void **state)
{
    weft_key_t k;
    weft_thread_t t;
    (void)state;
    assert_int_equal(weft_key_create(&k, count_dtor), 0);
    assert_int_equal(weft_thread_create(&t, NULL, set_then_clear, &k), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(null_dtor_calls, 0);
    assert_int_equal(weft_key_delete(k), 0);
}

static weft_key_t sticky_key;
static int sticky_calls;

/* Sets its value again every time: destructor rounds are bounded (4). */
static void resetting_dtor(void *v)
{
    sticky_calls++;
    weft_key_set(sticky_key, v);
}

static void *set_sticky(void *arg)
{
    (void)arg;
    weft_key_set(sticky_key, &vals[1]);
    return NULL;
}

static void test_destructor_rounds_are_bounded(void **state)
{
    weft_thread_t t;
    (void)state;
    assert_int_equal(weft_key_create(&sticky_key, resetting_dtor), 0);
    assert_int_equal(weft_thread_create(&t, NULL, set_sticky, NULL), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(sticky_calls, 4);
    assert_int_equal(weft_key_delete(sticky_key), 0);
}

static int deleted_dtor_calls;
static void deleted_dtor(void *v) { (void)v; deleted_dtor_calls++; }

static void *set_wait_delete_check(void *arg)
{
    weft_key_t k = *(weft_key_t *)arg;
    intptr_t bad = 0;
    weft_key_set(k, &vals[2]);
    bad += weft_key_delete(k) != 0;
    bad += weft_key_get(k) != NULL;
    bad += weft_key_set(k, &vals[2]) != WEFT_EINVAL;
    return (void *)bad;
}

static void test_delete_hides_values_and_skips_destructor(void **state)
{
    weft_key_t k, k2;
    weft_thread_t t;
    void *bad;
    (void)state;
    assert_int_equal(weft_key_create(&k, deleted_dtor), 0);
    assert_int_equal(weft_thread_create(&t, NULL, set_wait_delete_check, &k), 0);
    assert_int_equal(weft_thread_join(t, &bad), 0);
    assert_int_equal((intptr_t)bad, 0);
    assert_int_equal(deleted_dtor_calls, 0);
    assert_int_equal(weft_key_delete(k), WEFT_EINVAL); /* already deleted */
    assert_int_equal(weft_key_create(&k2, NULL), 0);
    assert_null(weft_key_get(k2));
    assert_int_equal(weft_key_delete(k2), 0);
}

static void test_table_is_bounded(void **state)
{
    weft_key_t keys[WEFT_KEYS_MAX + 1];
    int n = 0, rc;
    (void)state;
    while ((rc = weft_key_create(&keys[n], NULL)) == 0 && n < WEFT_KEYS_MAX)
        n++;
    assert_int_equal(rc, WEFT_EAGAIN);
    assert_int_equal(n, WEFT_KEYS_MAX); /* every earlier key was deleted */
    for (int i = 0; i < n; i++)
        assert_int_equal(weft_key_delete(keys[i]), 0);
}

static void *external_use(void *arg)
{
    weft_key_t k = *(weft_key_t *)arg;
    intptr_t bad = 0;
    bad += weft_key_set(k, &vals[3]) != WEFT_EINVAL;
    bad += weft_key_get(k) != NULL;
    return (void *)bad;
}

static void test_external_thread_has_no_values(void **state)
{
    weft_key_t k;
    pthread_t p;
    void *bad;
    (void)state;
    assert_int_equal(weft_key_create(&k, NULL), 0);
    assert_int_equal(pthread_create(&p, NULL, external_use, &k), 0);
    assert_int_equal(pthread_join(p, &bad), 0);
    assert_int_equal((intptr_t)bad, 0);
    assert_int_equal(weft_key_delete(k), 0);
}

static void test_error_codes(void **state)
{
    (void)state;
    assert_int_equal(weft_key_create(NULL, NULL), WEFT_EINVAL);
    assert_int_equal(weft_key_delete(WEFT_KEYS_MAX), WEFT_EINVAL);
    assert_int_equal(weft_key_set(WEFT_KEYS_MAX, NULL), WEFT_EINVAL);
    assert_null(weft_key_get(WEFT_KEYS_MAX));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_per_thread_and_destructors),
        cmocka_unit_test(test_no_destructor_for_null_value),
        cmocka_unit_test(test_destructor_rounds_are_bounded),
        cmocka_unit_test(test_delete_hides_values_and_skips_destructor),
        cmocka_unit_test(test_table_is_bounded),
        cmocka_unit_test(test_external_thread_has_no_values),
        cmocka_unit_test(test_error_codes),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
