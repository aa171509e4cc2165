/* weft_set_cpus_shared: while a program says its CPUs are shared, an idle
 * worker yields its CPU to the kernel (sched_yield) between polls.
 *
 * One worker. The test interposes sched_yield to count the worker's calls.
 * A ULT waits on a poll-only event class while a plain pthread fires the
 * event a few milliseconds later: meanwhile the only worker is idle and
 * polls the class. With the hint set it must have yielded; the count is
 * taken on the worker only (the firing pthread does not yield).
 */
#include "test_support.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <weft.h>

static atomic_int worker_yields, fired;

/* Interposed: libweft's calls land here. */
int sched_yield(void)
{
    if (weft_worker_id() >= 0)
        atomic_fetch_add(&worker_yields, 1);
    return (int)syscall(SYS_sched_yield);
}

static int poll_fired(void *ctx)
{
    (void)ctx;
    return atomic_load(&fired) ? 0 : -1;
}

static void *waiter(void *arg)
{
    return (void *)(intptr_t)weft_io_wait((weft_io_t)arg, NULL);
}

static void *fire_later(void *arg)
{
    (void)arg;
    usleep(5000);
    atomic_store(&fired, 1);
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    return wt_runtime_setup(state);
}

static void test_idle_worker_yields_when_told(void **state)
{
    (void)state;
    weft_io_params p = { .name = "later", .poll = poll_fired };
    weft_io_t h = weft_io_register(&p);
    assert_non_null(h);
    weft_set_cpus_shared(1);
    atomic_store(&worker_yields, 0);
    weft_thread_t w;
    pthread_t t;
    void *rc;
    assert_int_equal(weft_thread_create(&w, NULL, waiter, h), 0);
    assert_int_equal(pthread_create(&t, NULL, fire_later, NULL), 0);
    assert_int_equal(weft_thread_join(w, &rc), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal((intptr_t)rc, 0);
    assert_true(atomic_load(&worker_yields) > 0);
    weft_set_cpus_shared(0);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_worker_yields_when_told),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
