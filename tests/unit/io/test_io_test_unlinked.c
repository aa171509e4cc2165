/* Testing unlinked (io/wait.c): a class with a test() callback lets a lone
 * waiter - nothing else runnable on its worker, no request of any class
 * waiting - test its own request before the request joins the handle's
 * list. A request found ready there never changes the list (no group()
 * call) and is counted as a wait and a detection. Otherwise the request
 * is linked and found by poll(), as for a class without test().
 *
 * The class's event: "the n-th test() of this request" (poll() finds such
 * a request ready at once), or a flag that another thread sets. One worker, so that a thread
 * created by the test is runnable beside the waiter, not running
 * elsewhere. The worker may judge its CPU shared or contended (a machine
 * busy with other tests) and then skip the unlinked tests: the first
 * check wants one such wait out of several, spread over a few hundred
 * milliseconds; the others do not depend on it.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define ATTEMPTS 20

typedef struct request {
    atomic_int tests;      /* test() calls for it */
    int ready_at_test;     /* ready at this test() call (0: never) */
    atomic_int flag;       /* ready for poll() once set */
} request;

static atomic_int groups, polls;

static int test_one(void *ctx, void *arg)
{
    (void)ctx;
    request *r = arg;
    int n = atomic_fetch_add(&r->tests, 1) + 1;
    return (r->ready_at_test && n >= r->ready_at_test) || atomic_load(&r->flag);
}

static int poll_all(void *ctx)
{
    (void)ctx;
    void *arg;
    int i = 0;
    atomic_fetch_add(&polls, 1);
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), arg) {
        request *r = arg;
        if (atomic_load(&r->flag) || r->ready_at_test)
            return i;
        i++;
    }
    return -1;
}

static void count_group(void *ctx)
{
    (void)ctx;
    atomic_fetch_add(&groups, 1);
}

static weft_io_t register_class(int (*test)(void *, void *))
{
    weft_io_params p = { 0 };
    p.name = "unlinked";
    p.poll = poll_all;
    p.group = count_group;
    p.test = test;
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);
    return h;
}

static void reset_counts(void)
{
    atomic_store(&groups, 0);
    atomic_store(&polls, 0);
}

static weft_io_stats stats_of(weft_io_t h)
{
    weft_io_stats st;
    assert_int_equal(weft_io_get_stats(h, &st), 0);
    return st;
}

/* One wait of the calling thread for a request ready at its `at`-th
 * test; 1 if it ended without the request joining the list. */
static int wait_unlinked(weft_io_t h, int at)
{
    request r = { .ready_at_test = at };
    reset_counts();
    assert_int_equal(weft_io_wait(h, &r), 0);
    if (atomic_load(&groups) != 0)
        return 0;
    assert_int_equal(atomic_load(&r.tests), at);
    assert_int_equal(atomic_load(&polls), 0);
    return 1;
}

static void a_lone_waiter_finds_its_request_unlinked(void **state)
{
    (void)state;
    weft_io_t h = register_class(test_one);
    int at = 0;
    for (int i = 0; i < ATTEMPTS && !at; i++) {
        weft_io_stats before = stats_of(h);
        if (wait_unlinked(h, 3)) {
            weft_io_stats after = stats_of(h);
            assert_int_equal(after.waits - before.waits, 1);
            assert_int_equal(after.detected_poll - before.detected_poll, 1);
            at = 3;
        } else {
            weft_sleep(10 * 1000 * 1000); /* let a busy spell pass */
        }
    }
    assert_int_equal(at, 3);
    /* ready at the first test: an immediate detection */
    for (int i = 0; i < ATTEMPTS; i++) {
        weft_io_stats before = stats_of(h);
        if (wait_unlinked(h, 1)) {
            weft_io_stats after = stats_of(h);
            assert_int_equal(after.detected_immediate - before.detected_immediate, 1);
            break;
        }
        assert_true(i + 1 < ATTEMPTS);
        weft_sleep(10 * 1000 * 1000);
    }
    assert_int_equal(weft_io_unregister(h), 0);
}

static void *set_flag_later(void *arg)
{
    weft_sleep(30 * 1000 * 1000);
    atomic_store(&((request *)arg)->flag, 1);
    return NULL;
}

/* One wait for a request only poll() reports, set 30 ms later by a
 * sleeping thread; 1 if the waiter tested it unlinked first. */
static int wait_past_the_unlinked_tests(weft_io_t h)
{
    request r = { .ready_at_test = 0 };
    weft_thread_t t;
    reset_counts();
    assert_int_equal(weft_thread_create(&t, NULL, set_flag_later, &r), 0);
    weft_thread_yield(); /* it starts, and sleeps */
    assert_int_equal(weft_io_wait(h, &r), 0);
    assert_true(atomic_load(&groups) >= 2); /* linked, then unlinked */
    assert_int_equal(weft_thread_join(t, NULL), 0);
    return atomic_load(&r.tests) > 0;
}

static void a_request_not_ready_in_time_joins_the_list(void **state)
{
    (void)state;
    weft_io_t h = register_class(test_one);
    int tested = 0;
    for (int i = 0; i < ATTEMPTS && !tested; i++)
        tested = wait_past_the_unlinked_tests(h);
    assert_true(tested);
    assert_int_equal(weft_io_unregister(h), 0);
}

static void *yield_until_set(void *arg)
{
    atomic_int *flag = arg;
    while (!atomic_load(flag))
        weft_thread_yield();
    return NULL;
}

static void a_runnable_thread_keeps_the_request_linked(void **state)
{
    (void)state;
    weft_io_t h = register_class(test_one);
    atomic_int stop = 0;
    request r = { .ready_at_test = 1 };
    weft_thread_t t;
    assert_int_equal(weft_thread_create(&t, NULL, yield_until_set, &stop), 0);
    atomic_store(&r.flag, 1); /* poll() finds it at once */
    reset_counts();
    assert_int_equal(weft_io_wait(h, &r), 0);
    assert_int_equal(atomic_load(&r.tests), 0);
    assert_true(atomic_load(&groups) >= 1);
    atomic_store(&stop, 1);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

static void *wait_on(void *arg)
{
    weft_io_t h = *(weft_io_t *)arg;
    request r = { .ready_at_test = 0 };
    assert_int_equal(weft_io_wait_until(h, &r, weft_now() + 200 * 1000 * 1000LL),
                     WEFT_ETIMEDOUT);
    return NULL;
}

static void another_waiter_keeps_the_request_linked(void **state)
{
    (void)state;
    weft_io_t other = register_class(NULL); /* polled only: its waiter parks */
    weft_io_t h = register_class(test_one);
    weft_thread_t t;
    assert_int_equal(weft_thread_create(&t, NULL, wait_on, &other), 0);
    while (stats_of(other).waits == 0)
        weft_thread_yield();
    request r = { .ready_at_test = 1 };
    atomic_store(&r.flag, 1);
    assert_int_equal(weft_io_wait(h, &r), 0);
    assert_int_equal(atomic_load(&r.tests), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_io_unregister(h), 0);
    assert_int_equal(weft_io_unregister(other), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_lone_waiter_finds_its_request_unlinked),
        cmocka_unit_test(a_request_not_ready_in_time_joins_the_list),
        cmocka_unit_test(a_runnable_thread_keeps_the_request_linked),
        cmocka_unit_test(another_waiter_keeps_the_request_linked),
    };
    return cmocka_run_group_tests(tests, wt_one_worker_setup, wt_runtime_teardown);
}
