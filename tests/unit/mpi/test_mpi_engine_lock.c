/* The engine lock's waiting rules (engine/lock.h): a kernel thread that
 * waits behind a brief holder (wmpi_lock_try_brief) marks the lock and
 * sleeps until the release wakes it; behind any other holder it keeps
 * yielding and leaves the lock unmarked; either way it owns the lock once
 * the holder lets go, and mutual exclusion holds between threads that mix
 * both kinds of taking. Plain pthreads, no Weft runtime: the waiters are
 * the kernel threads the rules are about. */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "engine/lock.h"

#define ROUNDS 20000

static wmpi_lock lock = WMPI_LOCK_INITIALIZER;
static atomic_int waiter_owns;

static void *take_and_release(void *arg)
{
    (void)arg;
    wmpi_lock_take(&lock);
    atomic_store(&waiter_owns, 1);
    wmpi_lock_release(&lock);
    return NULL;
}

static int held_state(void)
{
    return __atomic_load_n(&lock.held, __ATOMIC_SEQ_CST);
}

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };
    nanosleep(&ts, NULL);
}

static void a_waiter_behind_a_brief_holder_sleeps_until_the_release(void **state)
{
    (void)state;
    pthread_t t;
    atomic_store(&waiter_owns, 0);
    assert_true(wmpi_lock_try_brief(&lock));
    assert_int_equal(pthread_create(&t, NULL, take_and_release, NULL), 0);
    for (int i = 0; i < 5000 && held_state() != 2; i++)
        pause_ms(1);
    assert_int_equal(held_state(), 2); /* marked: it sleeps on the futex */
    assert_false(atomic_load(&waiter_owns));
    wmpi_lock_release(&lock);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(atomic_load(&waiter_owns));
    assert_int_equal(held_state(), 0);
}

static void a_waiter_behind_another_holder_yields_unmarked(void **state)
{
    (void)state;
    pthread_t t;
    atomic_store(&waiter_owns, 0);
    assert_true(wmpi_lock_try(&lock));
    assert_int_equal(pthread_create(&t, NULL, take_and_release, NULL), 0);
    pause_ms(50); /* long past its spins */
    assert_int_equal(held_state(), 1);
    assert_false(atomic_load(&waiter_owns));
    wmpi_lock_release(&lock);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(atomic_load(&waiter_owns));
}

static long counter; /* guarded by lock */

static void *count_mixed(void *arg)
{
    int brief = *(int *)arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (brief) {
            while (!wmpi_lock_try_brief(&lock))
                ;
        } else {
            wmpi_lock_take(&lock);
        }
        counter++;
        wmpi_lock_release(&lock);
    }
    return NULL;
}

static void takers_of_both_kinds_exclude_each_other(void **state)
{
    (void)state;
    pthread_t t[4];
    int kinds[4] = { 1, 0, 1, 0 };
    counter = 0;
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, count_mixed, &kinds[i]), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(counter, 4L * ROUNDS);
    assert_int_equal(held_state(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_waiter_behind_a_brief_holder_sleeps_until_the_release),
        cmocka_unit_test(a_waiter_behind_another_holder_yields_unmarked),
        cmocka_unit_test(takers_of_both_kinds_exclude_each_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
