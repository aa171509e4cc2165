/* Cancelling timed events by handle (ARIADNE's a_deschevnt): a pending
 * event cancelled returns 1 and never runs; cancelling one that already
 * ran, or cancelling twice, returns 0; a NULL handle is WEFT_EINVAL; the
 * handle stays valid until weft_event_release; the pending count follows.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define FAR_NS 1000000000LL /* 1 s: cancelled long before */
#define HANG_GUARD_NS 10000000000LL

static atomic_int runs;

static void count_run(void *arg)
{
    (void)arg;
    atomic_fetch_add(&runs, 1);
}

static void test_cancel_pending(void **state)
{
    (void)state;
    weft_event_t ev;
    atomic_store(&runs, 0);
    assert_int_equal(weft_event_after(&ev, FAR_NS, NULL, count_run, NULL), 0);
    assert_non_null(ev);
    assert_int_equal(weft_event_pending(), 1);
    assert_int_equal(weft_event_cancel(ev), 1);
    assert_int_equal(weft_event_pending(), 0);
    assert_int_equal(weft_event_cancel(ev), 0); /* twice */
    weft_event_release(ev);
    assert_int_equal(atomic_load(&runs), 0);
}

static void test_cancel_after_run(void **state)
{
    (void)state;
    weft_event_t ev;
    atomic_store(&runs, 0);
    assert_int_equal(weft_event_after(&ev, 1000000, NULL, count_run, NULL), 0);
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (atomic_load(&runs) == 0 && weft_now() < guard)
        weft_sleep(1000000);
    assert_int_equal(atomic_load(&runs), 1);
    assert_int_equal(weft_event_cancel(ev), 0);
    weft_event_release(ev);
    assert_int_equal(weft_event_pending(), 0);
}

static void test_cancel_many_keeps_others(void **state)
{
    (void)state;
    weft_event_t ev[10];
    atomic_store(&runs, 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(weft_event_after(&ev[i], 2000000 + i * 100000, NULL, count_run, NULL), 0);
    for (int i = 0; i < 10; i += 2)
        assert_int_equal(weft_event_cancel(ev[i]), 1);
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while ((weft_event_pending() > 0 || atomic_load(&runs) < 5) && weft_now() < guard)
        weft_sleep(1000000);
    assert_int_equal(weft_event_pending(), 0);
    assert_int_equal(atomic_load(&runs), 5); /* and not the cancelled ones */
    for (int i = 0; i < 10; i++) {
        assert_int_equal(weft_event_cancel(ev[i]), 0);
        weft_event_release(ev[i]);
    }
}

static void test_null_handle(void **state)
{
    (void)state;
    assert_int_equal(weft_event_cancel(WEFT_EVENT_NULL), WEFT_EINVAL);
    weft_event_release(WEFT_EVENT_NULL); /* harmless */
    weft_event_t ev = (weft_event_t)1;
    assert_int_equal(weft_event_after(&ev, 0, NULL, NULL, NULL), WEFT_EINVAL);
    assert_null(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_pending),
        cmocka_unit_test(test_cancel_after_run),
        cmocka_unit_test(test_cancel_many_keeps_others),
        cmocka_unit_test(test_null_handle),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
