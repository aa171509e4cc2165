/* A class whose events land in memory and reach its fd only through a
 * doorbell it rings itself (the `sleeping` hook, as a shared-memory ring
 * uses it): the server tells the class before a worker sleeps in the poll
 * set and after it woke; a producer that rings only while told so wakes
 * the sleeper; an event that lands just before the doorbell is armed (the
 * hook answers 1) turns the sleep into a check instead of being lost; and
 * many events, each racing the sleeper, are all delivered.
 *
 * One worker (WEFT_WORKERS=1), adaptive strategy. The "ring" is a counter
 * pair (posted by a plain pthread, taken by poll()); the doorbell is an
 * eventfd, the class's pollfd. The producer follows the ring protocol:
 * publish, full fence, read `asleep`, ring if set; the hook: set
 * `asleep`, full fence, look at the ring.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <weft.h>

#include "io/io.h"

#define HANG_GUARD_NS 20000000000LL
#define RACE_ROUNDS 2000

static int bell = -1;
static atomic_long posted, taken;
static atomic_int asleep, arm_calls, disarm_calls, post_in_arm, waiting;
static weft_io_t h;

static void ring(void)
{
    uint64_t one = 1;
    assert_int_equal(write(bell, &one, sizeof one), (ssize_t)sizeof one);
}

static void post(void)
{
    atomic_fetch_add(&posted, 1); /* seq_cst: the fence before the load */
    if (atomic_load(&asleep))
        ring();
}

static int take(void *ctx)
{
    (void)ctx;
    uint64_t drained;
    if (read(bell, &drained, sizeof drained) < 0) { /* nonblocking: fine */
    }
    long t = atomic_load(&taken);
    if (t >= atomic_load(&posted))
        return -1;
    atomic_store(&taken, t + 1);
    return 0;
}

static int bell_fd(void *ctx)
{
    (void)ctx;
    return bell;
}

static int sleeping(void *ctx, int now_asleep)
{
    (void)ctx;
    if (!now_asleep) {
        atomic_fetch_add(&disarm_calls, 1);
        atomic_store(&asleep, 0);
        return 0;
    }
    atomic_fetch_add(&arm_calls, 1);
    /* An event that lands here, before `asleep` is visible, is one whose
     * producer saw no sleeper and did not ring. */
    if (atomic_load(&waiting) && atomic_exchange(&post_in_arm, 0))
        atomic_fetch_add(&posted, 1);
    atomic_store(&asleep, 1);
    return atomic_load(&posted) > atomic_load(&taken);
}

static void *waiter(void *arg)
{
    intptr_t rounds = (intptr_t)arg;
    atomic_store(&waiting, 1); /* the only worker idles next inside the wait */
    for (intptr_t i = 0; i < rounds; i++) {
        int64_t deadline = weft_now() + HANG_GUARD_NS;
        int rc = weft_io_wait_until(h, NULL, deadline);
        if (rc != 0)
            return (void *)(intptr_t)rc;
    }
    return NULL;
}

/* Until worker 0 holds the poll set and has armed the doorbell: it claims
 * the set first and tells the class after, so the first alone is not
 * enough. */
static void wait_for_worker_in_set(void)
{
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while ((wf_io_set_sleeper() != 0 || !atomic_load(&asleep)) && wt_now_ns() < guard)
        usleep(200);
    assert_int_equal(wf_io_set_sleeper(), 0);
    assert_int_equal(atomic_load(&asleep), 1);
}

static void *actor_post_once(void *arg)
{
    (void)arg;
    wait_for_worker_in_set();
    post();
    return NULL;
}

static void *actor_racing_posts(void *arg)
{
    (void)arg;
    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    for (int i = 0; i < RACE_ROUNDS && wt_now_ns() < guard; i++) {
        while (atomic_load(&posted) > atomic_load(&taken) && wt_now_ns() < guard)
            ; /* one event in flight, so each races a fresh sleep */
        if (i % 7 == 0)
            usleep(100 + i % 300); /* let the worker reach the set */
        post();
    }
    return NULL;
}

static int setup(void **state)
{
    if (wt_one_worker_setup(state) != 0)
        return -1;
    return weft_io_set_strategy(WEFT_IO_ADAPTIVE);
}

static void open_class(void)
{
    atomic_store(&posted, 0);
    atomic_store(&taken, 0);
    atomic_store(&asleep, 0);
    atomic_store(&arm_calls, 0);
    atomic_store(&disarm_calls, 0);
    atomic_store(&post_in_arm, 0);
    atomic_store(&waiting, 0);
    assert_true((bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) >= 0);
    weft_io_params p = { .name = "ring", .poll = take, .pollfd = bell_fd,
                         .sleeping = sleeping };
    assert_non_null(h = weft_io_register(&p));
}

static void close_class(void)
{
    assert_int_equal(weft_io_unregister(h), 0);
    close(bell);
}

static void run(intptr_t rounds, void *(*actor)(void *))
{
    weft_thread_t w;
    pthread_t a;
    void *rc;
    assert_int_equal(weft_thread_create(&w, NULL, waiter, (void *)rounds), 0);
    if (actor)
        assert_int_equal(pthread_create(&a, NULL, actor, NULL), 0);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal((intptr_t)rc, 0);
    if (actor)
        assert_int_equal(pthread_join(a, NULL), 0);
}

static void test_bell_rung_while_asleep_wakes_the_worker(void **state)
{
    (void)state;
    open_class();
    run(1, actor_post_once);
    assert_int_equal(atomic_load(&taken), 1);
    assert_true(atomic_load(&arm_calls) >= 1);
    assert_true(atomic_load(&disarm_calls) >= 1);
    assert_int_equal(atomic_load(&asleep), 0); /* told after it woke */
    close_class();
}

static void test_event_before_arming_turns_sleep_into_check(void **state)
{
    (void)state;
    open_class();
    atomic_store(&post_in_arm, 1); /* lands during the first arming, silent */
    run(1, NULL);
    assert_int_equal(atomic_load(&taken), 1);
    assert_int_equal(atomic_load(&post_in_arm), 0);
    close_class();
}

static void test_racing_events_are_all_delivered(void **state)
{
    (void)state;
    open_class();
    run(RACE_ROUNDS, actor_racing_posts);
    assert_int_equal(atomic_load(&taken), RACE_ROUNDS);
    assert_int_equal(atomic_load(&posted), RACE_ROUNDS);
    close_class();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bell_rung_while_asleep_wakes_the_worker),
        cmocka_unit_test(test_event_before_arming_turns_sleep_into_check),
        cmocka_unit_test(test_racing_events_are_all_delivered),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
