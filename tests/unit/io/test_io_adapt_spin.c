/* The adaptive spin budget (io/adapt.c, CLAM's SANR rule): how long an
 * idle worker keeps polling a handle after a wait starts. Checked here,
 * with the default cap (WEFT_IO_SPIN_US unset: 500 us): the budget starts
 * at 50 us; waits far shorter than it never take it below its 50 us
 * floor (a spin shorter than a kernel wake-up saves nothing); waits a
 * little longer than it make it grow, three in a row at a time, up to the
 * cap and no further; waits too long for any spin shrink it back to the
 * floor. A measured sleep cost W (wf_io_adapt_wake, an average with
 * weight 1/8) above 500 us raises the floor to 2 W - 50 us, past the
 * default cap, up to 5 ms. No runtime needed: the rule is a pure
 * function of the waits. */
#include "test_support.h"

#include <stdint.h>
#include <string.h>

#include "io/io.h"

#define US 1000LL
#define FLOOR_NS (50 * US)
#define CAP_NS (500 * US)

static struct weft_io h;

static int fresh_handle(void **state)
{
    (void)state;
    memset(&h, 0, sizeof h);
    wf_io_adapt_init(&h);
    return 0;
}

static void feed(int64_t latency_ns, int times)
{
    for (int i = 0; i < times; i++)
        wf_io_adapt_spin(&h, latency_ns);
}

static void starts_at_the_floor(void **state)
{
    (void)state;
    assert_int_equal(wf_io_spin_ns(), CAP_NS);
    assert_int_equal(h.spin_ns, FLOOR_NS);
}

static void short_waits_keep_the_floor(void **state)
{
    (void)state;
    feed(200 * US, 40); /* grow well above the floor first */
    assert_true(h.spin_ns > 2 * FLOOR_NS);
    feed(4 * US, 1000); /* a ping-pong's waits: a few microseconds */
    assert_int_equal(h.spin_ns, FLOOR_NS);
}

static void longer_waits_grow_it_to_the_cap(void **state)
{
    (void)state;
    feed(60 * US, 2);
    assert_int_equal(h.spin_ns, FLOOR_NS); /* two in a row are not enough */
    feed(60 * US, 1);
    assert_int_equal(h.spin_ns, FLOOR_NS + (FLOOR_NS >> 3)); /* +1/8 */
    feed(CAP_NS, 200); /* each within the cap, each longer than the budget */
    assert_int_equal(h.spin_ns, CAP_NS);
}

static void waits_past_the_cap_shrink_it_to_the_floor(void **state)
{
    (void)state;
    feed(CAP_NS, 200);
    assert_int_equal(h.spin_ns, CAP_NS);
    feed(10 * CAP_NS, 3);
    assert_int_equal(h.spin_ns, CAP_NS - (CAP_NS >> 3));
    feed(10 * CAP_NS, 200);
    assert_int_equal(h.spin_ns, FLOOR_NS);
}

static void a_measured_sleep_cost_holds_against_short_waits(void **state)
{
    (void)state;
    wf_io_adapt_wake(&h, 1000 * US); /* 1/8 of the way */
    assert_int_equal(h.wake_ns, 125 * US);
    assert_int_equal(h.spin_ns, FLOOR_NS); /* not past 500 us yet */
    for (int i = 0; i < 100; i++)
        wf_io_adapt_wake(&h, 1000 * US);
    assert_true(h.wake_ns > 990 * US);
    assert_int_equal(h.spin_ns, 2 * h.wake_ns - FLOOR_NS);
    feed(4 * US, 1000);
    assert_int_equal(h.spin_ns, 2 * h.wake_ns - FLOOR_NS);
    int64_t w = h.wake_ns;
    wf_io_adapt_wake(&h, 0); /* a cheaper one: 1/8 of the way down */
    assert_int_equal(h.wake_ns, w - w / 8);
}

static void a_usual_sleep_cost_keeps_the_floor(void **state)
{
    (void)state;
    for (int i = 0; i < 100; i++)
        wf_io_adapt_wake(&h, 480 * US); /* slow, but within the default cap */
    assert_int_equal(h.spin_ns, FLOOR_NS);
}

static void the_measured_floor_stops_at_5_ms(void **state)
{
    (void)state;
    for (int i = 0; i < 200; i++)
        wf_io_adapt_wake(&h, 50000 * US);
    assert_int_equal(h.spin_ns, 5000 * US);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(starts_at_the_floor, fresh_handle),
        cmocka_unit_test_setup(short_waits_keep_the_floor, fresh_handle),
        cmocka_unit_test_setup(longer_waits_grow_it_to_the_cap, fresh_handle),
        cmocka_unit_test_setup(waits_past_the_cap_shrink_it_to_the_floor, fresh_handle),
        cmocka_unit_test_setup(a_measured_sleep_cost_holds_against_short_waits, fresh_handle),
        cmocka_unit_test_setup(a_usual_sleep_cost_keeps_the_floor, fresh_handle),
        cmocka_unit_test_setup(the_measured_floor_stops_at_5_ms, fresh_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
