/* The runtime lock (weft_rtlock_t): its holder is never switched out by
 * the scheduler, it excludes ULTs and plain pthreads alike, and trylock
 * fails while it is held.
 *
 * 1. One worker, a 100 us quantum: a ULT holds the lock for 20 quanta
 *    while another ULT of the same worker would count if it ran. The
 *    count must not move while the lock is held (a preemption would run
 *    the counter), and must move once it is released.
 * 2. Two ULTs and two plain pthreads add to a counter under the lock,
 *    with a 100 us quantum so that holders are interrupted by ticks often:
 *    the total must be exact.
 * 3. trylock on a held lock fails and leaves it held; on a free one it
 *    takes it.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <weft.h>

#define HOLD_NS (2 * 1000 * 1000LL)
#define ADDS 100000

static weft_rtlock_t lock = WEFT_RTLOCK_INITIALIZER;
static atomic_int stop;
static atomic_long counted;
static long total;

static void *count_while_running(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        atomic_fetch_add(&counted, 1);
    return NULL;
}

static void spin_ns(int64_t ns)
{
    int64_t until = wt_now_ns() + ns;
    while (wt_now_ns() < until)
        ;
}

static void *add_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < ADDS; i++) {
        weft_rtlock_lock(&lock);
        long v = total;
        if (i % 1000 == 0)
            spin_ns(20000); /* long enough for a tick to land inside */
        total = v + 1;
        weft_rtlock_unlock(&lock);
    }
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_QUANTUM_US", "100", 1);
    return wt_one_worker_setup(state);
}

static void test_holder_is_never_switched_out(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_thread_t counter;
    atomic_store(&stop, 0);
    atomic_store(&counted, 0);
    assert_int_equal(weft_thread_create(&counter, NULL, count_while_running, NULL), 0);
    weft_thread_yield(); /* the counter runs, then is preempted back to us */
    spin_ns(HOLD_NS);    /* preemption: the counter counts meanwhile */
    weft_rtlock_lock(&lock);
    long before = atomic_load(&counted);
    spin_ns(HOLD_NS);
    long during = atomic_load(&counted);
    weft_rtlock_unlock(&lock);
    spin_ns(HOLD_NS);
    long after = atomic_load(&counted);
    atomic_store(&stop, 1);
    assert_int_equal(weft_thread_join(counter, NULL), 0);
    assert_int_equal(during, before);
    assert_true(after > during);
}

static void test_excludes_ults_and_pthreads(void **state)
{
    (void)state;
    weft_thread_t u[2];
    pthread_t p[2];
    total = 0;
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&p[i], NULL, add_many, NULL), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(weft_thread_create(&u[i], NULL, add_many, NULL), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(weft_thread_join(u[i], NULL), 0);
        assert_int_equal(pthread_join(p[i], NULL), 0);
    }
    assert_int_equal(total, 4L * ADDS);
}

static void test_trylock(void **state)
{
    (void)state;
    assert_int_equal(weft_rtlock_trylock(&lock), 1);
    assert_int_equal(weft_rtlock_trylock(&lock), 0);
    weft_rtlock_unlock(&lock);
    assert_int_equal(weft_rtlock_trylock(&lock), 1);
    weft_rtlock_unlock(&lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_holder_is_never_switched_out),
        cmocka_unit_test(test_excludes_ults_and_pthreads),
        cmocka_unit_test(test_trylock),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
