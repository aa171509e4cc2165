/* main() becomes a ULT after weft_init().
 *
 * Checks that main is then thread id 1, named "main", at the default
 * priority and on worker 0; that calling weft_init() again changes nothing;
 * that main can join a ULT while holding the only worker with preemption
 * off -- which can only finish if the join parks main instead of spinning
 * the worker (a watchdog turns the would-be hang into an abort with a
 * message); and that from a plain pthread weft_thread_self() is NULL and
 * weft_worker_id() is -1.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weft.h>

#define WATCHDOG_S 20

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

static void test_main_identity(void **state)
{
    (void)state;
    weft_thread_t me = weft_thread_self();

    assert_int_equal(weft_is_initialized(), 1);
    assert_non_null(me);
    assert_int_equal(weft_thread_id(me), 1);
    assert_string_equal(weft_thread_name(me), "main");
    assert_int_equal(weft_thread_get_priority(me), WEFT_PRIO_DEFAULT);
    assert_int_equal(weft_num_workers(), 1);
    assert_int_equal(weft_worker_id(), 0);
    assert_int_equal(weft_init(), 0); /* again: harmless */
    assert_ptr_equal(weft_thread_self(), me);
    assert_int_equal(weft_num_workers(), 1);
}

/* ------------------------------------------------------------- watchdog */

static atomic_int watch_done;

static void *watchdog(void *arg)
{
    const char *what = arg;
    for (int i = 0; i < WATCHDOG_S * 100; i++) {
        struct timespec ts = {0, 10000000};
        if (atomic_load(&watch_done))
            return NULL;
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "watchdog: %s did not finish in %d s\n", what, WATCHDOG_S);
    abort();
}

/* ------------------------------------------------------------ main join */

struct seen {
    int worker;
    weft_thread_t self;
};

static void *where_am_i(void *arg)
{
    struct seen *s = arg;
    s->worker = weft_worker_id();
    s->self = weft_thread_self();
    return (void *)0x600d;
}

static void test_main_join_parks(void **state)
{
    (void)state;
    weft_thread_t t;
    struct seen s = {-2, WEFT_THREAD_NULL};
    void *ret = NULL;
    pthread_t wd;

    atomic_store(&watch_done, 0);
    assert_int_equal(pthread_create(&wd, NULL, watchdog,
                                    "main joining a ULT on the only worker"), 0);
    assert_int_equal(weft_thread_create(&t, NULL, where_am_i, &s), 0);
    assert_int_equal(weft_thread_join(t, &ret), 0);
    atomic_store(&watch_done, 1);
    assert_int_equal(pthread_join(wd, NULL), 0);

    assert_ptr_equal(ret, (void *)0x600d);
    assert_int_equal(s.worker, 0);
    assert_ptr_equal(s.self, t);
    assert_ptr_not_equal(s.self, weft_thread_self());
    assert_int_equal(weft_thread_id(weft_thread_self()), 1);
    assert_int_equal(weft_worker_id(), 0);
}

/* ------------------------------------------------------ plain pthread */

struct outside {
    weft_thread_t self;
    int worker;
    int initialized;
    int workers;
};

static void *look_from_outside(void *arg)
{
    struct outside *o = arg;
    o->self = weft_thread_self();
    o->worker = weft_worker_id();
    o->initialized = weft_is_initialized();
    o->workers = weft_num_workers();
    weft_thread_yield(); /* sched_yield() here: must simply return */
    return NULL;
}

static void test_pthread_is_not_ult(void **state)
{
    (void)state;
    struct outside o = {(weft_thread_t)(uintptr_t)1, 7, 0, 0};
    pthread_t pt;

    assert_int_equal(pthread_create(&pt, NULL, look_from_outside, &o), 0);
    assert_int_equal(pthread_join(pt, NULL), 0);
    assert_null(o.self);
    assert_int_equal(o.worker, -1);
    assert_int_equal(o.initialized, 1);
    assert_int_equal(o.workers, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_main_identity),
        cmocka_unit_test(test_main_join_parks),
        cmocka_unit_test(test_pthread_is_not_ult),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
