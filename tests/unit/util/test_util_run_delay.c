/* The run-queue delay reader (util/run_delay.c): two threads spinning on
 * one CPU for SPIN_NS each must queue for it, so each one's run delay
 * grows by a good part of that (about half; checked against a quarter of
 * it less slack); the value never goes back; and each thread reads its
 * own. Skipped where the kernel has no schedstat file. */
#include "test_support.h"

#include <pthread.h>
#include <sched.h>

#include "util/run_delay.h"

#define MS 1000000LL
#define SPIN_NS (80 * MS)

typedef struct spinner {
    int64_t before, after;
} spinner;

static void *spin_on_cpu0(void *arg)
{
    spinner *s = arg;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    sched_yield(); /* now on CPU 0 */
    s->before = wf_run_delay_ns();
    for (int64_t end = wt_now_ns() + SPIN_NS; wt_now_ns() < end;)
        ;
    s->after = wf_run_delay_ns();
    return NULL;
}

static void two_spinners_on_one_cpu_queue_for_it(void **state)
{
    (void)state;
    spinner s[2];
    pthread_t t[2];
    if (wf_run_delay_ns() < 0)
        skip();
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, spin_on_cpu0, &s[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < 2; i++) {
        assert_true(s[i].before >= 0);
        assert_true(s[i].after - s[i].before >= SPIN_NS / 4 - 10 * MS);
    }
}

static void it_never_goes_back(void **state)
{
    (void)state;
    int64_t last = wf_run_delay_ns();
    if (last < 0)
        skip();
    for (int i = 0; i < 1000; i++) {
        int64_t now = wf_run_delay_ns();
        assert_true(now >= last);
        last = now;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_spinners_on_one_cpu_queue_for_it),
        cmocka_unit_test(it_never_goes_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
