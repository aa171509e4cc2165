/* weft_fini and the timer layer: it refuses (WEFT_EBUSY, nothing stopped)
 * while a timed event is pending or a host thread is still inside a
 * THREAD event, and succeeds once they are gone; the host threads and the
 * timer service are then stopped, and the layer starts again after a new
 * weft_init.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define HANG_GUARD_NS 10000000000LL

static weft_sem_t gate;
static atomic_int ran;

static void nothing(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

static void blocks_on_gate(void *arg)
{
    (void)arg;
    weft_sem_wait(&gate);
    atomic_fetch_add(&ran, 1);
}

static void wait_ran(int n)
{
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (atomic_load(&ran) < n && weft_now() < guard)
        weft_sleep(1000000);
    assert_int_equal(atomic_load(&ran), n);
}

static void test_pending_event_blocks_fini(void **state)
{
    (void)state;
    weft_event_t ev;
    assert_int_equal(weft_init(), 0);
    assert_int_equal(weft_event_after(&ev, 3600000000000LL, NULL, nothing, NULL), 0);
    assert_int_equal(weft_fini(), WEFT_EBUSY);
    assert_int_equal(weft_event_cancel(ev), 1);
    weft_event_release(ev);
    assert_int_equal(weft_fini(), 0);
}

static void test_busy_host_blocks_fini(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.kind = WEFT_EVENT_THREAD;
    atomic_store(&ran, 0);
    assert_int_equal(weft_init(), 0);
    assert_int_equal(weft_sem_init(&gate, 0), 0);
    assert_int_equal(weft_event_after(NULL, 1000000, &a, blocks_on_gate, NULL), 0);
    assert_int_equal(weft_event_after(NULL, 1000000, &a, nothing, NULL), 0);
    wait_ran(1); /* `nothing` ran; the other waits on the gate */
    assert_int_equal(weft_event_pending(), 0);
    assert_int_equal(weft_fini(), WEFT_EBUSY);
    weft_sem_post(&gate);
    wait_ran(2);
    assert_int_equal(weft_sem_destroy(&gate), 0);
    assert_int_equal(weft_fini(), 0);
}

static void test_restarts_after_fini(void **state)
{
    (void)state;
    atomic_store(&ran, 0);
    for (int round = 1; round <= 3; round++) {
        weft_event_attr a;
        weft_event_attr_init(&a);
        a.kind = WEFT_EVENT_OPTIMISTIC;
        assert_int_equal(weft_init(), 0);
        assert_int_equal(weft_event_after(NULL, 500000, &a, nothing, NULL), 0);
        assert_int_equal(weft_event_after(NULL, 500000, NULL, nothing, NULL), 0);
        wait_ran(2 * round);
        assert_int_equal(weft_fini(), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_event_blocks_fini),
        cmocka_unit_test(test_busy_host_blocks_fini),
        cmocka_unit_test(test_restarts_after_fini),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
