/* weft_io_idle_poll: a poll() callback can tell an idle worker's poll (it
 * may take its time) from every other poll (keep it short).
 *
 * One worker. The class's event is "a poll ran on an idle worker": main
 * joins the waiter, which leaves the only worker idle, so only its idle
 * polls can end the wait. A poll that main runs itself (weft_io_poll) is
 * not an idle one, and outside callbacks the answer is 0.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <weft.h>

static atomic_int idle_polls, other_polls;

static int poll_idle_only(void *ctx)
{
    (void)ctx;
    if (!weft_io_idle_poll()) {
        atomic_fetch_add(&other_polls, 1);
        return -1;
    }
    atomic_fetch_add(&idle_polls, 1);
    return 0; /* the first waiter is ready */
}

static void *waiter(void *arg)
{
    return (void *)(intptr_t)weft_io_wait(arg, NULL);
}

static void idle_polls_are_told_apart(void **state)
{
    weft_io_params p = { 0 };
    weft_thread_t t;
    void *ret = (void *)1;

    (void)state;
    p.name = "idle-flag";
    p.poll = poll_idle_only;
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);
    assert_int_equal(weft_io_idle_poll(), 0);
    assert_int_equal(weft_thread_create(&t, NULL, waiter, h), 0);
    weft_io_stats st;
    do { /* until the waiter waits (main holds the only worker otherwise) */
        weft_thread_yield();
        assert_int_equal(weft_io_get_stats(h, &st), 0);
    } while (st.waits < 1);
    int before = atomic_load(&other_polls);
    assert_int_equal(weft_io_poll(h), 0); /* main's own poll: not idle */
    assert_true(atomic_load(&other_polls) >= before + 1); /* (+ the poller thread's) */
    assert_int_equal(atomic_load(&idle_polls), 0);
    assert_int_equal(weft_thread_join(t, &ret), 0); /* worker idle: it polls */
    assert_int_equal((intptr_t)ret, 0);
    assert_true(atomic_load(&idle_polls) >= 1);
    assert_int_equal(weft_io_idle_poll(), 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(idle_polls_are_told_apart),
    };
    return cmocka_run_group_tests(tests, wt_one_worker_setup, wt_runtime_teardown);
}
