/* OPTIMISTIC events run as functions until they block, then carry on as
 * threads: a handler that blocks on a weft mutex held by main finishes once
 * main unlocks it, and other optimistic events are not held up by it
 * (another runner takes them), whether they come due after it blocked or
 * at the same instant (then they were queued behind it before it blocked,
 * and its promotion hands them over); a handler that does not block just
 * runs.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define N_LIGHT 5
#define HANG_GUARD_NS 10000000000LL

static weft_mutex_t m;
static atomic_int blocker_started, blocker_done, light_done;

static void blocker(void *arg)
{
    (void)arg;
    atomic_store(&blocker_started, 1);
    weft_mutex_lock(&m); /* held by main: this handler blocks here */
    weft_mutex_unlock(&m);
    atomic_store(&blocker_done, 1);
}

static void light(void *arg)
{
    (void)arg;
    atomic_fetch_add(&light_done, 1);
}

static void wait_count(atomic_int *v, int want)
{
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (atomic_load(v) < want && weft_now() < guard)
        weft_sleep(1000000);
    assert_int_equal(atomic_load(v), want);
}

static void reset_counts(void)
{
    atomic_store(&blocker_started, 0);
    atomic_store(&blocker_done, 0);
    atomic_store(&light_done, 0);
}

static void test_blocking_handler_is_promoted(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.kind = WEFT_EVENT_OPTIMISTIC;
    reset_counts();
    assert_int_equal(weft_mutex_init(&m), 0);
    assert_int_equal(weft_mutex_lock(&m), 0);
    int64_t t = weft_now() + 2000000;
    assert_int_equal(weft_event_at(NULL, t, &a, blocker, NULL), 0);
    for (int i = 0; i < N_LIGHT; i++)
        assert_int_equal(weft_event_at(NULL, t + 1000000 + i * 200000, &a, light, NULL), 0);
    wait_count(&blocker_started, 1);
    wait_count(&light_done, N_LIGHT); /* while the blocker still waits */
    assert_int_equal(atomic_load(&blocker_done), 0);
    assert_int_equal(weft_mutex_unlock(&m), 0);
    wait_count(&blocker_done, 1);
    assert_int_equal(weft_mutex_destroy(&m), 0);
}

/* Same deadline: one firer queues them all before any runner starts. Two
 * rounds: the second finds idle hosts in the pool, the first does not. */
static void test_queued_behind_blocking_handler(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.kind = WEFT_EVENT_OPTIMISTIC;
    assert_int_equal(weft_mutex_init(&m), 0);
    for (int round = 1; round <= 2; round++) {
        reset_counts();
        assert_int_equal(weft_mutex_lock(&m), 0);
        int64_t t = weft_now() + 2000000;
        assert_int_equal(weft_event_at(NULL, t, &a, blocker, NULL), 0);
        for (int i = 0; i < N_LIGHT; i++)
            assert_int_equal(weft_event_at(NULL, t, &a, light, NULL), 0);
        wait_count(&light_done, N_LIGHT);
        wait_count(&blocker_started, 1);
        assert_int_equal(atomic_load(&blocker_done), 0);
        assert_int_equal(weft_mutex_unlock(&m), 0);
        wait_count(&blocker_done, 1);
    }
    assert_int_equal(weft_mutex_destroy(&m), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queued_behind_blocking_handler),
        cmocka_unit_test(test_blocking_handler_is_promoted),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
