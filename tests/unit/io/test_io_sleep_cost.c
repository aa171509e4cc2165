/* What a sleep costs, as a class's block() reports it (weft_io_note_wake),
 * teaches the adaptive spin budget its floor (io/wait.c, io/adapt.c):
 * the lag from the event to block() seeing it, less the time the thread
 * queued for a CPU meanwhile, is averaged (weight 1/8) and, past 500 us,
 * the budget never drops below 2 W - 50 us; an event older
 * than the sleep, a second report in one block(), or a report outside
 * block() teach nothing. No runtime: block() is called as the blocker
 * thread would. The fake block() does not sleep; it reports a lag of
 * LAG_NS. Its few microseconds of run-queue delay (more if the test is
 * preempted meanwhile) are subtracted, hence the ranges. */
#include "test_support.h"

#include <string.h>

#include <weft/io.h>

#include "io/io.h"

#define US 1000LL
#define MS 1000000LL
#define LAG_NS (40 * MS)
#define SLACK_NS (20 * MS) /* run-queue delay the test may meet */
#define WAKE_MAX_NS (5 * MS)

static struct weft_io h;
static int64_t event_offset; /* event time relative to block()'s start */
static int64_t lag_ns;       /* the lag block() reports */
static int reports;          /* weft_io_note_wake calls per block() */

static int fake_block(void *ctx, int timeout_ms)
{
    (void)ctx;
    (void)timeout_ms;
    int64_t event = wt_now_ns() + event_offset;
    for (int i = 0; i < reports; i++)
        weft_io_note_wake(event, event + (i + 1) * lag_ns);
    return -1;
}

static int fresh_handle(void **state)
{
    (void)state;
    memset(&h, 0, sizeof h);
    h.p.block = fake_block;
    wf_io_adapt_init(&h);
    event_offset = 0;
    lag_ns = LAG_NS;
    reports = 1;
    return 0;
}

static void a_costly_sleep_raises_the_floor(void **state)
{
    (void)state;
    wf_io_call_block(&h); /* average 0 + lag / 8 */
    assert_in_range(h.wake_ns, (LAG_NS - SLACK_NS) / 8, LAG_NS / 8);
    int64_t floor = 2 * h.wake_ns - 50 * US; /* past the cap, at most 5 ms */
    assert_int_equal(h.spin_ns, floor < WAKE_MAX_NS ? floor : WAKE_MAX_NS);
}

static void only_the_first_report_counts(void **state)
{
    (void)state;
    reports = 3; /* lags 40, 80 and 120 ms: only the first counts */
    wf_io_call_block(&h);
    assert_in_range(h.wake_ns, (LAG_NS - SLACK_NS) / 8, LAG_NS / 8);
}

static void an_event_older_than_the_sleep_teaches_nothing(void **state)
{
    (void)state;
    event_offset = -1 * MS;
    wf_io_call_block(&h);
    assert_int_equal(h.wake_ns, 0);
    assert_int_equal(h.spin_ns, 50 * US);
}

static void a_report_outside_block_teaches_nothing(void **state)
{
    (void)state;
    int64_t now = wt_now_ns();
    weft_io_note_wake(now - 3 * MS, now);
    reports = 0;
    wf_io_call_block(&h);
    assert_int_equal(h.wake_ns, 0);
}

static void cheap_sleeps_bring_it_back(void **state)
{
    (void)state;
    for (int i = 0; i < 20; i++)
        wf_io_call_block(&h);
    assert_int_equal(h.spin_ns, WAKE_MAX_NS);
    lag_ns = 20 * US;
    for (int i = 0; i < 200; i++)
        wf_io_call_block(&h);
    assert_true(h.wake_ns <= 30 * US);
    assert_true(h.spin_ns <= 500 * US); /* back under the default cap */
    for (int i = 0; i < 200; i++)
        wf_io_adapt_spin(&h, 4 * US); /* short waits: down to the floor */
    assert_int_equal(h.spin_ns, 50 * US);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(a_costly_sleep_raises_the_floor, fresh_handle),
        cmocka_unit_test_setup(only_the_first_report_counts, fresh_handle),
        cmocka_unit_test_setup(an_event_older_than_the_sleep_teaches_nothing, fresh_handle),
        cmocka_unit_test_setup(a_report_outside_block_teaches_nothing, fresh_handle),
        cmocka_unit_test_setup(cheap_sleeps_bring_it_back, fresh_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
