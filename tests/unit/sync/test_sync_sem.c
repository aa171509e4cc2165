/* Counting semaphores: the count follows post/wait/trywait, a waiter on a
 * zero count blocks until a post, and units are conserved under contention
 * (every post is consumed by exactly one wait). */
#include "test_support.h"

#include <stdint.h>
#include <weft.h>

static void test_count_follows_operations(void **state)
{
    weft_sem_t s;
    (void)state;
    assert_int_equal(weft_sem_init(&s, 2), 0);
    assert_int_equal(weft_sem_value(&s), 2);
    assert_int_equal(weft_sem_wait(&s), 0);
    assert_int_equal(weft_sem_trywait(&s), 0);
    assert_int_equal(weft_sem_value(&s), 0);
    assert_int_equal(weft_sem_trywait(&s), WEFT_EAGAIN);
    assert_int_equal(weft_sem_post(&s), 0);
    assert_int_equal(weft_sem_post(&s), 0);
    assert_int_equal(weft_sem_post(&s), 0);
    assert_int_equal(weft_sem_value(&s), 3);
    assert_int_equal(weft_sem_destroy(&s), 0);
}

static void test_error_codes(void **state)
{
    weft_sem_t s;
    (void)state;
    assert_int_equal(weft_sem_init(&s, -1), WEFT_EINVAL);
    assert_int_equal(weft_sem_init(NULL, 0), WEFT_EINVAL);
    assert_int_equal(weft_sem_destroy(NULL), WEFT_EINVAL);
    assert_int_equal(weft_sem_wait(NULL), WEFT_EINVAL);
    assert_int_equal(weft_sem_trywait(NULL), WEFT_EINVAL);
    assert_int_equal(weft_sem_post(NULL), WEFT_EINVAL);
    assert_int_equal(weft_sem_value(NULL), WEFT_EINVAL);
}

static weft_sem_t gate;
static int passed;

static void *pass_gate(void *arg)
{
    (void)arg;
    weft_sem_wait(&gate);
    __atomic_fetch_add(&passed, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* Three waiters block on a zero count; each post lets exactly one pass. */
static void test_wait_blocks_until_post(void **state)
{
    weft_thread_t t[3];
    (void)state;
    assert_int_equal(weft_sem_init(&gate, 0), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, pass_gate, NULL), 0);
    for (int i = 0; i < 100; i++)
        weft_thread_yield();
    assert_int_equal(__atomic_load_n(&passed, __ATOMIC_RELAXED), 0);
    for (int k = 1; k <= 3; k++) {
        assert_int_equal(weft_sem_post(&gate), 0);
        while (__atomic_load_n(&passed, __ATOMIC_RELAXED) < k)
            weft_thread_yield();
        assert_int_equal(__atomic_load_n(&passed, __ATOMIC_RELAXED), k);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(weft_sem_value(&gate), 0);
    assert_int_equal(weft_sem_destroy(&gate), 0);
}

#define NPAIRS 16
#define NUNITS 2000
static weft_sem_t units;
static int taken;

static void *post_units(void *arg)
{
    (void)arg;
    for (int i = 0; i < NUNITS; i++) {
        weft_sem_post(&units);
        if (i % 50 == 0)
            weft_thread_yield();
    }
    return NULL;
}

static void *take_units(void *arg)
{
    (void)arg;
    for (int i = 0; i < NUNITS; i++) {
        if (i % 3 == 0 && weft_sem_trywait(&units) == 0) {
            __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
            continue;
        }
        weft_sem_wait(&units);
        __atomic_fetch_add(&taken, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void test_units_conserved_under_contention(void **state)
{
    weft_thread_t p[NPAIRS], c[NPAIRS];
    (void)state;
    assert_int_equal(weft_sem_init(&units, 0), 0);
    for (int i = 0; i < NPAIRS; i++) {
        assert_int_equal(weft_thread_create(&c[i], NULL, take_units, NULL), 0);
        assert_int_equal(weft_thread_create(&p[i], NULL, post_units, NULL), 0);
    }
    for (int i = 0; i < NPAIRS; i++) {
        assert_int_equal(weft_thread_join(p[i], NULL), 0);
        assert_int_equal(weft_thread_join(c[i], NULL), 0);
    }
    assert_int_equal(taken, NPAIRS * NUNITS);
    assert_int_equal(weft_sem_value(&units), 0);
    assert_int_equal(weft_sem_destroy(&units), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_follows_operations),
        cmocka_unit_test(test_error_codes),
        cmocka_unit_test(test_wait_blocks_until_post),
        cmocka_unit_test(test_units_conserved_under_contention),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
