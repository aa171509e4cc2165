/* Pre- and post-execution hooks (ARIADNE's a_setschdf / a_setdschdf).
 *
 * Checks, on one worker with preemption off (so that every switch is one
 * the test caused), that the pre-hook runs just before each time the thread
 * gets control and the post-hook just after each time it stops: for a
 * thread that yields n times the log is exactly (pre, run, post) x (n+1);
 * blocking in a join and finishing also count as stopping; the hooks get
 * the thread and their own argument; removed hooks are no longer called;
 * a NULL thread is refused.
 *
 * main raises itself to WEFT_PRIO_MAX while creating a thread and installing
 * its hooks, so the thread cannot run before its hooks are set.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define DEADLINE_NS 10000000000LL /* hang guard only, never a timing check */
#define LOG_MAX 256

static char hook_log[LOG_MAX + 1];
static atomic_int log_len;
static atomic_int bad_hook_args;
static weft_thread_t watched;
static int cookie_pre, cookie_post;

static void log_event(char c)
{
    int pos = atomic_fetch_add(&log_len, 1);
    if (pos < LOG_MAX)
        hook_log[pos] = c;
}

static void pre_hook(weft_thread_t t, void *arg)
{
    if (t != watched || arg != &cookie_pre)
        atomic_fetch_add(&bad_hook_args, 1);
    log_event('P');
}

static void post_hook(weft_thread_t t, void *arg)
{
    if (t != watched || arg != &cookie_post)
        atomic_fetch_add(&bad_hook_args, 1);
    log_event('Q');
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

static void reset_log(void)
{
    memset(hook_log, 0, sizeof hook_log);
    atomic_store(&log_len, 0);
    atomic_store(&bad_hook_args, 0);
}

/* Create `fn` at default priority with hooks installed (or not) before it
 * can run. */
static weft_thread_t create_watched(void *(*fn)(void *), int with_hooks)
{
    weft_thread_t me = weft_thread_self(), t;

    assert_int_equal(weft_thread_set_priority(me, WEFT_PRIO_MAX), 0);
    assert_int_equal(weft_thread_create(&t, NULL, fn, NULL), 0);
    watched = t;
    assert_int_equal(weft_thread_set_pre_hook(t, pre_hook, &cookie_pre), 0);
    assert_int_equal(weft_thread_set_post_hook(t, post_hook, &cookie_post), 0);
    if (!with_hooks) {
        assert_int_equal(weft_thread_set_pre_hook(t, NULL, NULL), 0);
        assert_int_equal(weft_thread_set_post_hook(t, NULL, NULL), 0);
    }
    assert_int_equal(atomic_load(&log_len), 0);
    return t;
}

/* ------------------------------------------------------------ yielding */

#define NYIELDS 10
static atomic_int watched_done;

/* Keeps the worker contended so that each of the watched thread's yields
 * really switches. */
static void *partner(void *arg)
{
    (void)arg;
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while (!atomic_load(&watched_done) && wt_now_ns() < end)
        weft_thread_yield();
    return NULL;
}

static void *yielder(void *arg)
{
    (void)arg;
    for (int i = 0; i < NYIELDS; i++) {
        log_event('r');
        weft_thread_yield();
    }
    log_event('r');
    atomic_store(&watched_done, 1);
    return NULL;
}

static void expect_log(const char *unit, int times)
{
    char want[LOG_MAX + 1] = "";
    for (int i = 0; i < times; i++)
        strcat(want, unit);
    assert_int_equal(atomic_load(&bad_hook_args), 0);
    assert_int_equal(atomic_load(&log_len), (int)strlen(want));
    assert_string_equal(hook_log, want);
}

static void run_yielder(int with_hooks)
{
    weft_thread_t p, t;

    reset_log();
    atomic_store(&watched_done, 0);
    assert_int_equal(weft_thread_create(&p, NULL, partner, NULL), 0);
    t = create_watched(yielder, with_hooks);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_thread_join(p, NULL), 0);
    assert_int_equal(weft_thread_set_priority(weft_thread_self(),
                                              WEFT_PRIO_DEFAULT), 0);
}

static void test_hooks_around_each_yield(void **state)
{
    (void)state;
    run_yielder(1);
    expect_log("PrQ", NYIELDS + 1);
}

static void test_removed_hooks_not_called(void **state)
{
    (void)state;
    run_yielder(0);
    expect_log("r", NYIELDS + 1);
}

/* --------------------------------------------------- blocking in join */

static void *short_task(void *arg)
{
    for (int i = 0; i < 3; i++)
        weft_thread_yield();
    return arg;
}

static void *joiner(void *arg)
{
    (void)arg;
    weft_thread_t u;
    void *ret = NULL;

    log_event('r');
    if (weft_thread_create(&u, NULL, short_task, (void *)7) != 0 ||
        weft_thread_join(u, &ret) != 0 || ret != (void *)7)
        log_event('!');
    log_event('r');
    return NULL;
}

static void test_hooks_around_join_block(void **state)
{
    (void)state;
    weft_thread_t t;

    reset_log();
    t = create_watched(joiner, 1);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(weft_thread_set_priority(weft_thread_self(),
                                              WEFT_PRIO_DEFAULT), 0);
    /* runs, blocks in join (post), resumes (pre), finishes (post) */
    expect_log("PrQ", 2);
}

static void test_hook_einval(void **state)
{
    (void)state;
    assert_int_equal(weft_thread_set_pre_hook(WEFT_THREAD_NULL, pre_hook,
                                              NULL), WEFT_EINVAL);
    assert_int_equal(weft_thread_set_post_hook(WEFT_THREAD_NULL, post_hook,
                                               NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hooks_around_each_yield),
        cmocka_unit_test(test_removed_hooks_not_called),
        cmocka_unit_test(test_hooks_around_join_block),
        cmocka_unit_test(test_hook_einval),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
