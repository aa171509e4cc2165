/* Under the polling strategy an idle worker polls for as long as a wait
 * lasts, not only for the idle loop's first brief spin.
 *
 * One worker. A ULT waits on a poll-only class; main joins it, so the only
 * worker goes idle. A plain pthread makes the event happen only once it
 * has seen an idle worker's poll (weft_io_idle_poll) at least LATE_NS
 * after the wait started - or, failing that, after GIVE_UP_NS, so that
 * the test ends either way. Idle workers that went to sleep after their
 * spin left the wait to the poller thread (not an idle poll): the event
 * then came only at the give-up, and the check below fails.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <weft.h>

#define LATE_NS (10 * 1000 * 1000LL)
#define GIVE_UP_NS (5 * 1000 * 1000 * 1000LL)

static atomic_llong wait_start_ns, last_idle_poll_ns;
static atomic_int released, late_idle_poll_seen;

static int poll_released(void *ctx)
{
    (void)ctx;
    if (weft_io_idle_poll())
        atomic_store(&last_idle_poll_ns, wt_now_ns());
    return atomic_load(&released) ? 0 : -1;
}

static void *waiter(void *arg)
{
    atomic_store(&wait_start_ns, wt_now_ns());
    return (void *)(intptr_t)weft_io_wait(arg, NULL);
}

/* Release the waiter once an idle poll came LATE_NS into the wait. */
static void *releaser(void *arg)
{
    int64_t give_up = wt_now_ns() + GIVE_UP_NS;
    (void)arg;
    while (wt_now_ns() < give_up) {
        int64_t start = atomic_load(&wait_start_ns);
        if (start && atomic_load(&last_idle_poll_ns) >= start + LATE_NS) {
            atomic_store(&late_idle_poll_seen, 1);
            break;
        }
        usleep(1000);
    }
    atomic_store(&released, 1);
    return NULL;
}

static void idle_worker_polls_the_whole_wait(void **state)
{
    weft_io_params p = { .name = "polled", .poll = poll_released };
    weft_thread_t t;
    pthread_t rel;
    void *ret = (void *)1;

    (void)state;
    assert_int_equal(weft_io_set_strategy(WEFT_IO_POLLING), 0);
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);
    assert_int_equal(pthread_create(&rel, NULL, releaser, NULL), 0);
    assert_int_equal(weft_thread_create(&t, NULL, waiter, h), 0);
    assert_int_equal(weft_thread_join(t, &ret), 0); /* the worker goes idle */
    assert_int_equal((intptr_t)ret, 0);
    assert_int_equal(pthread_join(rel, NULL), 0);
    assert_int_equal(atomic_load(&late_idle_poll_seen), 1);
    assert_int_equal(weft_io_unregister(h), 0);
    assert_int_equal(weft_io_set_strategy(WEFT_IO_ADAPTIVE), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(idle_worker_polls_the_whole_wait),
    };
    return cmocka_run_group_tests(tests, wt_one_worker_setup, wt_runtime_teardown);
}
