/* Mutex under contention: many ULTs increment one counter under the mutex
 * (with lock and with trylock) and the total is exact; trylock and unlock
 * give EBUSY / EPERM to other threads while the mutex is held. */
#include "test_support.h"

#include <stdint.h>
#include <weft.h>

#define NTHREADS 100
#define NINCR    5000

static weft_mutex_t counter_lock = WEFT_MUTEX_INITIALIZER;
static long counter;
static int trylock_bad_rc;

static void *increment_with_lock(void *arg)
{
    (void)arg;
    for (int i = 0; i < NINCR; i++) {
        weft_mutex_lock(&counter_lock);
        counter++;
        if (i % 97 == 0)
            weft_thread_yield(); /* sleep holding it: others must queue */
        weft_mutex_unlock(&counter_lock);
    }
    return NULL;
}

static void *increment_with_trylock(void *arg)
{
    (void)arg;
    for (int done = 0; done < NINCR / 5;) {
        int rc = weft_mutex_trylock(&counter_lock);
        if (rc == WEFT_EBUSY) {
            weft_thread_yield();
            continue;
        }
        if (rc != 0)
            __atomic_fetch_add(&trylock_bad_rc, 1, __ATOMIC_RELAXED);
        counter++;
        done++;
        weft_mutex_unlock(&counter_lock);
    }
    return NULL;
}

static void run_workers(void *(*fn)(void *))
{
    weft_thread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, fn, NULL), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
}

static void test_counter_exact_with_lock(void **state)
{
    (void)state;
    counter = 0;
    run_workers(increment_with_lock);
    assert_int_equal(counter, (long)NTHREADS * NINCR);
    assert_int_equal(weft_mutex_destroy(&counter_lock), 0);
}

static void test_counter_exact_with_trylock(void **state)
{
    (void)state;
    counter = 0;
    trylock_bad_rc = 0;
    run_workers(increment_with_trylock);
    assert_int_equal(counter, (long)NTHREADS * (NINCR / 5));
    assert_int_equal(trylock_bad_rc, 0);
}

#define NCHECKERS 10
static weft_mutex_t held = WEFT_MUTEX_INITIALIZER;
static int checked, busy_seen, perm_seen, got_it;

/* While main holds `held`: trylock must say EBUSY and unlock EPERM; then
 * lock blocks until main lets go. */
static void *check_errors_then_lock(void *arg)
{
    (void)arg;
    if (weft_mutex_trylock(&held) == WEFT_EBUSY)
        __atomic_fetch_add(&busy_seen, 1, __ATOMIC_RELAXED);
    if (weft_mutex_unlock(&held) == WEFT_EPERM)
        __atomic_fetch_add(&perm_seen, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&checked, 1, __ATOMIC_RELEASE);
    weft_mutex_lock(&held);
    got_it++;
    weft_mutex_unlock(&held);
    return NULL;
}

static void test_errors_for_non_owners(void **state)
{
    weft_thread_t t[NCHECKERS];
    (void)state;
    assert_int_equal(weft_mutex_lock(&held), 0);
    for (int i = 0; i < NCHECKERS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, check_errors_then_lock, NULL), 0);
    while (__atomic_load_n(&checked, __ATOMIC_ACQUIRE) < NCHECKERS)
        weft_thread_yield();
    assert_int_equal(got_it, 0);
    assert_int_equal(weft_mutex_unlock(&held), 0);
    for (int i = 0; i < NCHECKERS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(busy_seen, NCHECKERS);
    assert_int_equal(perm_seen, NCHECKERS);
    assert_int_equal(got_it, NCHECKERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_exact_with_lock),
        cmocka_unit_test(test_counter_exact_with_trylock),
        cmocka_unit_test(test_errors_for_non_owners),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
