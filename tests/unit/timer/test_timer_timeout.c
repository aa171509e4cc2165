/* wf_timeout (src/timer/timer.h), the timed wait every layer above uses:
 * it wakes a blocked wait with WEFT_ETIMEDOUT, never before its deadline;
 * a real wake-up that comes first wins (reason 0, stop returns 1); a past
 * deadline wakes at once; WEFT_FOREVER arms nothing; it works for an
 * external pthread too; and when both race, exactly one takes effect.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>

#include "timer/timer.h"

#define FAR_NS 10000000000LL /* 10 s: only a hang guard */
#define RACES 2000

static int timed_wait(int64_t deadline, int *stopped)
{
    wf_wait w;
    wf_timeout to;
    wf_wait_init(&w);
    wf_timeout_start(&to, &w, deadline);
    int reason = wf_wait_block(&w, NULL, NULL);
    *stopped = wf_timeout_stop(&to);
    return reason;
}

static void test_times_out(void **state)
{
    (void)state;
    int stopped;
    int64_t deadline = weft_now() + 3000000;
    assert_int_equal(timed_wait(deadline, &stopped), WEFT_ETIMEDOUT);
    assert_true(weft_now() >= deadline);
    assert_int_equal(stopped, 0);
}

static void test_past_deadline(void **state)
{
    (void)state;
    int stopped;
    assert_int_equal(timed_wait(weft_now() - 1, &stopped), WEFT_ETIMEDOUT);
    assert_int_equal(stopped, 0);
    assert_int_equal(timed_wait(0, &stopped), WEFT_ETIMEDOUT);
}

typedef struct waker_arg {
    wf_wait *w;
    int64_t delay;
} waker_arg;

static void *waker(void *arg)
{
    waker_arg *a = arg;
    weft_sleep(a->delay);
    wf_wait_wake(a->w, 0);
    return NULL;
}

static void test_real_wake_wins(void **state)
{
    (void)state;
    wf_wait w;
    wf_timeout to;
    weft_thread_t th;
    wf_wait_init(&w);
    waker_arg a = {&w, 1000000};
    wf_timeout_start(&to, &w, weft_now() + FAR_NS);
    assert_int_equal(weft_thread_create(&th, NULL, waker, &a), 0);
    assert_int_equal(wf_wait_block(&w, NULL, NULL), 0);
    assert_int_equal(wf_timeout_stop(&to), 1);
    assert_int_equal(wf_timeout_stop(&to), 0); /* stopped already */
    assert_int_equal(weft_thread_join(th, NULL), 0);
}

static void test_forever_arms_nothing(void **state)
{
    (void)state;
    wf_wait w;
    wf_timeout to;
    weft_thread_t th;
    wf_wait_init(&w);
    waker_arg a = {&w, 2000000};
    wf_timeout_start(&to, &w, WEFT_FOREVER);
    assert_int_equal(weft_thread_create(&th, NULL, waker, &a), 0);
    assert_int_equal(wf_wait_block(&w, NULL, NULL), 0);
    assert_int_equal(wf_timeout_stop(&to), 0);
    assert_int_equal(weft_thread_join(th, NULL), 0);
}

static void *external_timed_wait(void *arg)
{
    int *reason = arg, stopped;
    int64_t deadline = weft_now() + 2000000;
    *reason = timed_wait(deadline, &stopped);
    if (weft_now() < deadline || stopped != 0)
        *reason = 12345;
    return NULL;
}

static void test_external_thread(void **state)
{
    (void)state;
    pthread_t th;
    int reason = 0;
    assert_int_equal(pthread_create(&th, NULL, external_timed_wait, &reason), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(reason, WEFT_ETIMEDOUT);
}

/* Waker and timeout aimed at the same instant: exactly one wins. */
static void test_race_one_winner(void **state)
{
    (void)state;
    int wrong = 0;
    for (int i = 0; i < RACES; i++) {
        wf_wait w;
        wf_timeout to;
        weft_thread_t th;
        wf_wait_init(&w);
        waker_arg a = {&w, 20000};
        wf_timeout_start(&to, &w, weft_now() + 20000 + (i % 7) * 1000);
        assert_int_equal(weft_thread_create(&th, NULL, waker, &a), 0);
        int reason = wf_wait_block(&w, NULL, NULL);
        int stopped = wf_timeout_stop(&to);
        wrong += reason != 0 && reason != WEFT_ETIMEDOUT;
        wrong += reason == WEFT_ETIMEDOUT && stopped;
        assert_int_equal(weft_thread_join(th, NULL), 0);
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times_out),
        cmocka_unit_test(test_past_deadline),
        cmocka_unit_test(test_real_wake_wins),
        cmocka_unit_test(test_forever_arms_nothing),
        cmocka_unit_test(test_external_thread),
        cmocka_unit_test(test_race_one_winner),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
