/* What a sleep costs, as a class's block() reports it (weft_io_note_wake),
 * teaches the adaptive spin budget its floor (io/wait.c, io/adapt.c):
 * the lag from the event to block() seeing it is averaged (weight 1/4
 * rising, 1/8 falling) and the budget never drops below twice that; an event older than the
 * sleep, a second report in one block(), or a report outside block() teach
 * nothing. No runtime: block() is called as the blocker thread would. */
#include "test_support.h"

#include <string.h>
#include <time.h>

#include <weft/io.h>

#include "io/io.h"

#define MS 1000000LL

static struct weft_io h;
static int64_t event_offset; /* event time relative to block()'s start */
static int64_t pause_ns;     /* how long block() sleeps */
static int reports;          /* weft_io_note_wake calls per block() */

static int fake_block(void *ctx, int timeout_ms)
{
    (void)ctx;
    (void)timeout_ms;
    int64_t start = wt_now_ns();
    struct timespec ts = { 0, pause_ns };
    nanosleep(&ts, NULL);
    for (int i = 0; i < reports; i++)
        weft_io_note_wake(start + event_offset, start + event_offset + (i + 1) * pause_ns);
    return -1;
}

static int fresh_handle(void **state)
{
    (void)state;
    memset(&h, 0, sizeof h);
    h.p.block = fake_block;
    wf_io_adapt_init(&h);
    event_offset = 0;
    pause_ns = 2 * MS;
    reports = 1;
    return 0;
}

static void a_costly_sleep_raises_the_floor(void **state)
{
    (void)state;
    wf_io_call_block(&h); /* lag 2 ms: average 0 + 2 ms / 4 */
    assert_int_equal(h.wake_ns, 2 * MS / 4);
    assert_int_equal(h.spin_ns, 2 * h.wake_ns); /* past the default 500 us cap */
    for (int i = 0; i < 60; i++)
        wf_io_call_block(&h);
    assert_true(h.wake_ns > 19 * MS / 10);
    assert_int_equal(h.spin_ns, 2 * h.wake_ns);
}

static void only_the_first_report_counts(void **state)
{
    (void)state;
    reports = 3; /* lags 2, 4 and 6 ms: only the 2 ms one counts */
    wf_io_call_block(&h);
    assert_int_equal(h.wake_ns, 2 * MS / 4);
}

static void an_event_older_than_the_sleep_teaches_nothing(void **state)
{
    (void)state;
    event_offset = -1 * MS;
    wf_io_call_block(&h);
    assert_int_equal(h.wake_ns, 0);
    assert_int_equal(h.spin_ns, 50 * 1000);
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
    for (int i = 0; i < 60; i++)
        wf_io_call_block(&h);
    pause_ns = 20 * 1000;
    for (int i = 0; i < 100; i++)
        wf_io_call_block(&h);
    assert_true(h.wake_ns < 30 * 1000);
    assert_true(h.spin_ns <= 500 * 1000); /* back under the default cap */
    for (int i = 0; i < 200; i++)
        wf_io_adapt_spin(&h, 4 * 1000); /* short waits: down to the floor */
    assert_int_equal(h.spin_ns, 50 * 1000);
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
