/* Mutex basics on one thread and between two: init/destroy, lock/unlock,
 * trylock, the static initializer and every error code. */
#include "test_support.h"

#include <weft.h>

static void test_lock_unlock_cycle(void **state)
{
    weft_mutex_t m;
    (void)state;
    assert_int_equal(weft_mutex_init(&m), 0);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(weft_mutex_lock(&m), 0);
        assert_int_equal(weft_mutex_unlock(&m), 0);
    }
    assert_int_equal(weft_mutex_destroy(&m), 0);
}

static void test_static_initializer(void **state)
{
    static weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    (void)state;
    assert_int_equal(weft_mutex_trylock(&m), 0);
    assert_int_equal(weft_mutex_unlock(&m), 0);
    assert_int_equal(weft_mutex_destroy(&m), 0);
}

static void test_trylock_busy_while_held(void **state)
{
    weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    (void)state;
    assert_int_equal(weft_mutex_trylock(&m), 0);
    assert_int_equal(weft_mutex_trylock(&m), WEFT_EBUSY);
    assert_int_equal(weft_mutex_unlock(&m), 0);
    assert_int_equal(weft_mutex_trylock(&m), 0);
    assert_int_equal(weft_mutex_unlock(&m), 0);
}

static void test_relock_is_deadlk(void **state)
{
    weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    (void)state;
    assert_int_equal(weft_mutex_lock(&m), 0);
    assert_int_equal(weft_mutex_lock(&m), WEFT_EDEADLK);
    assert_int_equal(weft_mutex_unlock(&m), 0);
}

static void test_unlock_unlocked_is_eperm(void **state)
{
    weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    (void)state;
    assert_int_equal(weft_mutex_unlock(&m), WEFT_EPERM);
}

static void test_destroy_locked_is_ebusy(void **state)
{
    weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    (void)state;
    assert_int_equal(weft_mutex_lock(&m), 0);
    assert_int_equal(weft_mutex_destroy(&m), WEFT_EBUSY);
    assert_int_equal(weft_mutex_unlock(&m), 0);
    assert_int_equal(weft_mutex_destroy(&m), 0);
}

static void test_null_is_einval(void **state)
{
    (void)state;
    assert_int_equal(weft_mutex_init(NULL), WEFT_EINVAL);
    assert_int_equal(weft_mutex_destroy(NULL), WEFT_EINVAL);
    assert_int_equal(weft_mutex_lock(NULL), WEFT_EINVAL);
    assert_int_equal(weft_mutex_trylock(NULL), WEFT_EINVAL);
    assert_int_equal(weft_mutex_unlock(NULL), WEFT_EINVAL);
}

static void *unlock_foreign(void *arg)
{
    return (void *)(intptr_t)weft_mutex_unlock(arg);
}

static void test_unlock_by_other_thread_is_eperm(void **state)
{
    weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    weft_thread_t t;
    void *rc;
    (void)state;
    assert_int_equal(weft_mutex_lock(&m), 0);
    assert_int_equal(weft_thread_create(&t, NULL, unlock_foreign, &m), 0);
    assert_int_equal(weft_thread_join(t, &rc), 0);
    assert_int_equal((intptr_t)rc, WEFT_EPERM);
    assert_int_equal(weft_mutex_unlock(&m), 0);
}

static void *lock_set_unlock(void *arg)
{
    weft_mutex_t *m = ((void **)arg)[0];
    int *flag = ((void **)arg)[1];
    weft_mutex_lock(m);
    *flag = 1;
    weft_mutex_unlock(m);
    return NULL;
}

/* The child blocks on the held mutex and gets it once main unlocks. */
static void test_blocked_locker_gets_mutex_after_unlock(void **state)
{
    weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
    int flag = 0;
    void *args[2] = { &m, &flag };
    weft_thread_t t;
    (void)state;
    assert_int_equal(weft_mutex_lock(&m), 0);
    assert_int_equal(weft_thread_create(&t, NULL, lock_set_unlock, args), 0);
    for (int i = 0; i < 100; i++)
        weft_thread_yield();
    assert_int_equal(flag, 0); /* cannot pass the held mutex */
    assert_int_equal(weft_mutex_unlock(&m), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(flag, 1);
    assert_int_equal(weft_mutex_destroy(&m), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock_unlock_cycle),
        cmocka_unit_test(test_static_initializer),
        cmocka_unit_test(test_trylock_busy_while_held),
        cmocka_unit_test(test_relock_is_deadlk),
        cmocka_unit_test(test_unlock_unlocked_is_eperm),
        cmocka_unit_test(test_destroy_locked_is_ebusy),
        cmocka_unit_test(test_null_is_einval),
        cmocka_unit_test(test_unlock_by_other_thread_is_eperm),
        cmocka_unit_test(test_blocked_locker_gets_mutex_after_unlock),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
