/* A WEFT_IO_SPIN_US the user set is a hard cap of the adaptive spin
 * budget: measured sleep costs above it (io/adapt.c, item 3) do not lift
 * the budget past it, as they do past the default cap
 * (test_io_sleep_cost). No runtime: the rule is fed directly. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "io/io.h"

#define US 1000LL

static void the_set_cap_bounds_the_measured_floor(void **state)
{
    (void)state;
    struct weft_io h;
    setenv("WEFT_IO_SPIN_US", "300", 1);
    wf_io_init(); /* reads the environment */
    assert_int_equal(wf_io_spin_ns(), 300 * US);
    memset(&h, 0, sizeof h);
    wf_io_adapt_init(&h);
    for (int i = 0; i < 100; i++)
        wf_io_adapt_wake(&h, 2000 * US);
    assert_true(h.wake_ns > 1900 * US);
    assert_int_equal(h.spin_ns, 300 * US);
    for (int i = 0; i < 100; i++)
        wf_io_adapt_spin(&h, 4 * US); /* short waits keep it at the floor */
    assert_int_equal(h.spin_ns, 300 * US);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_set_cap_bounds_the_measured_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
