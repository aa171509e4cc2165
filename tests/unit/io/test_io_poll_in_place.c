/* Polling in place (io/wait.c): a ULT that waits while its worker has
 * nothing else to run polls the handle itself before parking, and an event
 * it finds there resumes it without any context switch; with another
 * thread runnable it parks at once, as before.
 *
 * The class's event is "the second poll of this wait": the first poll is
 * the wait's immediate test, the second the first poll made in place
 * (made whatever the clock says, so the check does not depend on timing).
 * The worker may judge its CPU contended or shared (a machine busy with
 * other tests), and then parks instead: so the first check wants one
 * switch-free wait out of several, spread over a few hundred
 * milliseconds. The second check asks who made the poll that found the
 * event: not the waiter (it parked), but the thread that ran next, at its
 * switch, or the I/O server's poller thread, which a parking wait kicks
 * and which may find the event before the waiter has even switched away
 * (so counting the waiter's switches would depend on timing). One worker:
 * the other thread of the second check is then runnable beside the
 * waiter, not running elsewhere.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define ATTEMPTS 20

static atomic_int polls;
static _Atomic(weft_thread_t) event_finder; /* who made the ready poll */

static int ready_on_second_poll(void *ctx)
{
    (void)ctx;
    if (atomic_fetch_add(&polls, 1) < 1)
        return -1;
    atomic_store(&event_finder, weft_thread_self());
    return 0;
}

static weft_io_t register_class(void)
{
    weft_io_params p = { 0 };
    p.name = "in-place";
    p.poll = ready_on_second_poll;
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);
    return h;
}

static uint64_t switches(void)
{
    weft_sched_stats st;
    assert_int_equal(weft_sched_get_stats(&st), 0);
    return st.switches;
}

/* The switches one wait of the calling thread on h took. */
static uint64_t switches_of_one_wait(weft_io_t h)
{
    atomic_store(&polls, 0);
    uint64_t before = switches();
    assert_int_equal(weft_io_wait(h, NULL), 0);
    return switches() - before;
}

static void a_lone_waiter_is_resumed_without_a_switch(void **state)
{
    (void)state;
    weft_io_t h = register_class();
    int switch_free = 0;
    for (int i = 0; i < ATTEMPTS && !switch_free; i++) {
        switch_free = switches_of_one_wait(h) == 0;
        if (!switch_free)
            weft_sleep(10 * 1000 * 1000); /* let a busy spell pass */
    }
    assert_true(switch_free);
    assert_int_equal(weft_io_unregister(h), 0);
}

static void *spin_until_set(void *arg)
{
    atomic_int *flag = arg;
    while (!atomic_load(flag))
        weft_thread_yield();
    return NULL;
}

static void a_runnable_thread_makes_the_waiter_park(void **state)
{
    (void)state;
    weft_io_t h = register_class();
    atomic_int flag = 0;
    weft_thread_t t;
    assert_int_equal(weft_thread_create(&t, NULL, spin_until_set, &flag), 0);
    atomic_store(&event_finder, weft_thread_self());
    switches_of_one_wait(h);
    assert_true(atomic_load(&event_finder) != weft_thread_self());
    atomic_store(&flag, 1);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    setenv("WEFT_WORKERS", "1", 1); /* main and the other thread share it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_lone_waiter_is_resumed_without_a_switch),
        cmocka_unit_test(a_runnable_thread_makes_the_waiter_park),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
