/* Detached threads: they run to completion and release themselves.
 *
 * Checks that threads created detached (with or without a handle) all run;
 * that weft_thread_detach() after create works, also on a thread that has
 * already finished, and cannot be repeated; that joining a detached thread
 * gives WEFT_EINVAL; that detach and join of one thread never both succeed;
 * and that weft_fini() refuses with WEFT_EBUSY (and WEFT_EPERM from other
 * threads) while a detached thread still exists, then returns 0 once every
 * thread has finished. The last test finalises the runtime itself.
 *
 * cmocka assertions are only made on the main thread.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <weft.h>

#define DEADLINE_NS 10000000000LL /* hang guard only, never a timing check */

static atomic_int finished;
static atomic_int release;

static void *count_finish(void *arg)
{
    (void)arg;
    atomic_fetch_add(&finished, 1);
    return NULL;
}

/* Runs until main sets `release` (bounded), then counts itself. */
static void *linger(void *arg)
{
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while (!atomic_load(&release) && wt_now_ns() < end)
        weft_thread_yield();
    return count_finish(arg);
}

/* Yield until `finished` reaches n or the hang guard expires. */
static int wait_finished(int n)
{
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while (atomic_load(&finished) < n && wt_now_ns() < end)
        weft_thread_yield();
    return atomic_load(&finished);
}

static void reset(void)
{
    atomic_store(&finished, 0);
    atomic_store(&release, 0);
}

static void test_detached_attr_run(void **state)
{
    (void)state;
    enum { N = 200 };
    weft_thread_attr a;

    reset();
    weft_thread_attr_init(&a);
    a.detached = 1;
    for (int i = 0; i < N; i++) {
        weft_thread_t t = WEFT_THREAD_NULL;
        /* half without a handle: out == NULL is allowed when detached */
        assert_int_equal(weft_thread_create(i % 2 ? &t : NULL, &a,
                                            count_finish, NULL), 0);
    }
    assert_int_equal(wait_finished(N), N);
}

static void test_detach_after_create(void **state)
{
    (void)state;
    weft_thread_t t;

    reset();
    assert_int_equal(weft_thread_create(&t, NULL, linger, NULL), 0);
    assert_int_equal(weft_thread_detach(t), 0);
    /* t cannot finish before `release`: the handle is still valid here */
    assert_int_equal(weft_thread_detach(t), WEFT_EINVAL);
    assert_int_equal(weft_thread_join(t, NULL), WEFT_EINVAL);
    atomic_store(&release, 1);
    assert_int_equal(wait_finished(1), 1);
}

static void test_detach_finished_thread(void **state)
{
    (void)state;
    weft_thread_t t;

    reset();
    assert_int_equal(weft_thread_create(&t, NULL, count_finish, NULL), 0);
    assert_int_equal(wait_finished(1), 1);
    for (int i = 0; i < 10; i++)
        weft_thread_yield();
    /* finished but not joined: detach releases it (checked by weft_fini) */
    assert_int_equal(weft_thread_detach(t), 0);
}

/* ---------------------------------------------- detach vs a joiner */

static weft_thread_t target;
static atomic_int joiner_started;

static void *join_target(void *arg)
{
    (void)arg;
    atomic_store(&joiner_started, 1);
    return (void *)(intptr_t)weft_thread_join(target, NULL);
}

static void test_detach_while_joined(void **state)
{
    (void)state;
    weft_thread_t j;
    void *jrc = NULL;
    int64_t end = wt_now_ns() + DEADLINE_NS;

    reset();
    atomic_store(&joiner_started, 0);
    assert_int_equal(weft_thread_create(&target, NULL, linger, NULL), 0);
    assert_int_equal(weft_thread_create(&j, NULL, join_target, NULL), 0);
    while (!atomic_load(&joiner_started) && wt_now_ns() < end)
        weft_thread_yield();
    for (int i = 0; i < 100; i++)
        weft_thread_yield();
    int drc = weft_thread_detach(target); /* target lingers: still valid */
    atomic_store(&release, 1);
    assert_int_equal(weft_thread_join(j, &jrc), 0);
    /* Either the join came first (detach: ESRCH, join: 0) or the detach
     * did (join: EINVAL). Never both, never neither. */
    if (drc == WEFT_ESRCH)
        assert_int_equal((intptr_t)jrc, 0);
    else {
        assert_int_equal(drc, 0);
        assert_int_equal((intptr_t)jrc, WEFT_EINVAL);
    }
    assert_int_equal(wait_finished(1), 1);
}

/* -------------------------------------------------------- weft_fini */

static void *fini_from_elsewhere(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)weft_fini();
}

static int fini_from_pthread(void)
{
    pthread_t pt;
    void *rc = NULL;
    if (pthread_create(&pt, NULL, fini_from_elsewhere, NULL) != 0)
        return 1;
    pthread_join(pt, &rc); /* returns at once: weft_fini does not block */
    return (int)(intptr_t)rc;
}

static int fini_from_ult(void)
{
    weft_thread_t t;
    void *rc = NULL;
    if (weft_thread_create(&t, NULL, fini_from_elsewhere, NULL) != 0)
        return 1;
    if (weft_thread_join(t, &rc) != 0)
        return 1;
    return (int)(intptr_t)rc;
}

static void test_fini_busy_then_ok(void **state)
{
    (void)state;
    weft_thread_attr a;
    int rc;

    reset();
    weft_thread_attr_init(&a);
    a.detached = 1;
    assert_int_equal(weft_thread_create(NULL, &a, linger, NULL), 0);
    assert_int_equal(weft_fini(), WEFT_EBUSY);
    assert_int_equal(weft_is_initialized(), 1);
    assert_int_equal(fini_from_pthread(), WEFT_EPERM);
    assert_int_equal(fini_from_ult(), WEFT_EPERM); /* runtime still works */
    assert_int_equal(weft_is_initialized(), 1);

    atomic_store(&release, 1);
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while ((rc = weft_fini()) == WEFT_EBUSY && wt_now_ns() < end)
        weft_thread_yield();
    assert_int_equal(rc, 0);
    assert_int_equal(atomic_load(&finished), 1);
    assert_int_equal(weft_is_initialized(), 0);
    assert_int_equal(weft_fini(), WEFT_ESTATE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detached_attr_run),
        cmocka_unit_test(test_detach_after_create),
        cmocka_unit_test(test_detach_finished_thread),
        cmocka_unit_test(test_detach_while_joined),
        cmocka_unit_test(test_fini_busy_then_ok), /* last: finalises */
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, NULL);
}
