/* Cancelling from inside an event's function: the function may cancel a
 * later event (1, it never runs), an event due at the same moment that the
 * firer has already taken but not started (1, it never runs), and itself
 * (0: it is running).
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define HANG_GUARD_NS 10000000000LL

static weft_event_t self_ev, later_ev, same_time_ev;
static atomic_int cancel_later, cancel_same, cancel_self;
static atomic_int canceller_ran, victim_runs;

static void victim(void *arg)
{
    (void)arg;
    atomic_fetch_add(&victim_runs, 1);
}

static void canceller(void *arg)
{
    (void)arg;
    atomic_store(&cancel_self, weft_event_cancel(self_ev));
    atomic_store(&cancel_same, weft_event_cancel(same_time_ev));
    atomic_store(&cancel_later, weft_event_cancel(later_ev));
    atomic_store(&canceller_ran, 1);
}

static void test_cancel_from_callback(void **state)
{
    (void)state;
    /* All three handles must be stored before the canceller runs. */
    int64_t t = weft_now() + wt_tolerance(5000000);
    int64_t later = t + wt_tolerance(50000000);
    assert_int_equal(weft_event_at(&self_ev, t, NULL, canceller, NULL), 0);
    assert_int_equal(weft_event_at(&same_time_ev, t, NULL, victim, NULL), 0);
    assert_int_equal(weft_event_at(&later_ev, later, NULL, victim, NULL), 0);
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (!atomic_load(&canceller_ran) && weft_now() < guard)
        weft_sleep(1000000);
    assert_int_equal(atomic_load(&canceller_ran), 1);
    assert_int_equal(atomic_load(&cancel_self), 0);
    assert_int_equal(atomic_load(&cancel_same), 1);
    assert_int_equal(atomic_load(&cancel_later), 1);
    weft_sleep(later - weft_now() + 10000000); /* past the later one's time: it must not run */
    assert_int_equal(atomic_load(&victim_runs), 0);
    assert_int_equal(weft_event_pending(), 0);
    weft_event_release(self_ev);
    weft_event_release(same_time_ev);
    weft_event_release(later_ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cancel_from_callback),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
