/* weft_io_poll: a thread that makes an event happen itself (a library's
 * progress call run by a thread that tests instead of waiting) wakes the
 * waiter at once, on its own thread, instead of leaving the detection to
 * the next safe point or the poller.
 *
 * One worker, so while main runs nothing else can poll at a safe point;
 * the class polls only every 100000 ticks at switches, so no switch polls
 * it in between either. The waiter blocks; main sets the flag and polls:
 * exactly one waiter is woken, by that call.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <weft.h>

static atomic_int flag;

static int poll_flag(void *ctx)
{
    (void)ctx;
    return atomic_load(&flag) ? 0 : -1;
}

static void *waiter(void *arg)
{
    return (void *)(intptr_t)weft_io_wait(arg, NULL);
}

static weft_io_t register_flag_class(void)
{
    weft_io_params p = { 0 };
    p.name = "flag";
    p.poll = poll_flag;
    p.frequency = 100000;
    return weft_io_register(&p);
}

static void wait_until_parked(weft_io_t h)
{
    weft_io_stats st;
    do {
        weft_thread_yield();
        assert_int_equal(weft_io_get_stats(h, &st), 0);
    } while (st.waits < 1);
}

static void poll_wakes_the_waiter_on_the_calling_thread(void **state)
{
    weft_io_t h = register_flag_class();
    weft_thread_t t;
    void *ret = (void *)1;

    (void)state;
    assert_non_null(h);
    assert_int_equal(weft_io_poll(h), 0); /* nobody waits: nothing to do */
    assert_int_equal(weft_thread_create(&t, NULL, waiter, h), 0);
    wait_until_parked(h);
    assert_int_equal(weft_io_poll(h), 0); /* not ready: still waiting */
    atomic_store(&flag, 1);
    assert_int_equal(weft_io_poll(h), 1);
    assert_int_equal(weft_thread_join(t, &ret), 0);
    assert_int_equal((intptr_t)ret, 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

static void poll_rejects_null(void **state)
{
    (void)state;
    assert_int_equal(weft_io_poll(WEFT_IO_NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(poll_wakes_the_waiter_on_the_calling_thread),
        cmocka_unit_test(poll_rejects_null),
    };
    return cmocka_run_group_tests(tests, wt_one_worker_setup, wt_runtime_teardown);
}
