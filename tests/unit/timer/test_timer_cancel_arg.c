/* Cancelling by argument (ARIADNE's a_cnclevnt_rt / a_cnclevnt_vt): the
 * earliest pending event with that argument on that queue is cancelled,
 * events of other arguments and of the other queue are left alone, and 0
 * means none was found. Also with thousands of distinct arguments (the
 * map resizes while they are armed and cancelled).
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define FAR_NS 3600000000000LL /* an hour: these never fire */
#define MANY 5000

static void never(void *arg)
{
    (void)arg;
    fail_msg("a cancelled event ran");
}

/* Arm at `offset` ns past a fixed base (far in the future on both clocks),
 * so that deadlines compare as the offsets do. */
static weft_event_t arm(int64_t offset, weft_event_queue q, void *arg)
{
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.queue = q;
    int64_t base = (q == WEFT_QUEUE_CPU ? weft_cpu_now() : weft_now()) / FAR_NS * FAR_NS;
    weft_event_t ev;
    assert_int_equal(weft_event_at(&ev, base + 2 * FAR_NS + offset, &a, never, arg), 0);
    return ev;
}

static void test_earliest_of_that_arg(void **state)
{
    (void)state;
    int x, y;
    weft_event_t late = arm(2, WEFT_QUEUE_REAL, &x);
    weft_event_t early = arm(1, WEFT_QUEUE_REAL, &x);
    weft_event_t other = arm(0, WEFT_QUEUE_REAL, &y);
    weft_event_t cpu = arm(0, WEFT_QUEUE_CPU, &x);
    assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, &x), 1);
    assert_int_equal(weft_event_cancel(early), 0); /* it was this one */
    assert_int_equal(weft_event_cancel(late), 1);
    assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, &x), 0);
    assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_CPU, &x), 1);
    assert_int_equal(weft_event_cancel(cpu), 0);
    assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, &y), 1);
    assert_int_equal(weft_event_cancel(other), 0);
    assert_int_equal(weft_event_pending(), 0);
    weft_event_release(late);
    weft_event_release(early);
    weft_event_release(other);
    weft_event_release(cpu);
}

static void test_without_handles(void **state)
{
    (void)state;
    static char args[MANY];
    for (int i = 0; i < MANY; i++)
        assert_int_equal(weft_event_after(NULL, FAR_NS + i, NULL, never, &args[i]), 0);
    assert_int_equal(weft_event_pending(), MANY);
    for (int i = MANY - 1; i >= 0; i--)
        assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, &args[i]), 1);
    assert_int_equal(weft_event_pending(), 0);
    assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, &args[0]), 0);
}

static void test_shared_null_arg(void **state)
{
    (void)state;
    for (int i = 0; i < 100; i++)
        assert_int_equal(weft_event_after(NULL, FAR_NS + (i * 37) % 100, NULL, never, NULL), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, NULL), 1);
    assert_int_equal(weft_event_cancel_arg(WEFT_QUEUE_REAL, NULL), 0);
    assert_int_equal(weft_event_pending(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_earliest_of_that_arg),
        cmocka_unit_test(test_without_handles),
        cmocka_unit_test(test_shared_null_arg),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
