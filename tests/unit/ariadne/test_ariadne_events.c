/* The paper's timed-event interface, compiled and run against Weft through
 * <weft/ariadne.h>: a_sleep on the real and the virtual (CPU-time) timer,
 * a_schevnt with plain flags and through the a_schevnt_* macros (timed
 * functions and delay-sensitive / delay-tolerant thread-bound events,
 * relative and absolute times, real and CPU-time queues), a_deschevnt
 * (non-NULL when it cancelled, NULL once the event has run), and
 * a_cnclevnt_rt / a_cnclevnt_vt (cancel by parameter). Completion is
 * awaited on semaphores the events post, never by timing; the only time
 * check is that a sleep never returns early.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <sys/time.h>
#include <weft.h>
#include <weft/ariadne.h>

static weft_sem_t fired;
static atomic_int runs;

/* An event body: count and tell the test. Thread-bound events may block;
 * posting a semaphore never does, so it also suits timed functions. */
static void on_event(void *p)
{
    (void)p;
    atomic_fetch_add(&runs, 1);
    weft_sem_post(&fired);
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_sem_init(&fired, 0);
}

static int teardown(void **state)
{
    weft_sem_destroy(&fired);
    return wt_runtime_teardown(state);
}

static void test_a_sleep_real_never_early(void **state)
{
    (void)state;
    int64_t t0 = weft_now();
    a_sleep(0, 2000, REAL); /* 2 ms */
    assert_true(weft_now() - t0 >= 2000000);
}

static atomic_int spin_stop;

/* Uses CPU until told to stop. Under ThreadSanitizer a tick cannot
 * preempt a loop that never enters the runtime, and the sleeper (the
 * test's main thread, bound to this worker) would never run again: there
 * the loop yields now and then. */
static void *burn_cpu(void *arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (!atomic_load(&spin_stop))
        if (++x % 4096 == 0 && WT_TSAN)
            weft_thread_yield();
    return NULL;
}

static void test_a_sleep_exec_counts_cpu_time(void **state)
{
    (void)state;
    weft_thread_t t;
    atomic_store(&spin_stop, 0);
    assert_int_equal(weft_thread_create(&t, NULL, burn_cpu, NULL), 0);
    int64_t c0 = weft_cpu_now();
    a_sleep(0, 5000, EXEC); /* until the process used 5 ms more CPU */
    assert_true(weft_cpu_now() - c0 >= 5000000);
    atomic_store(&spin_stop, 1);
    assert_int_equal(weft_thread_join(t, NULL), 0);
}

static void test_timed_function_then_deschevnt(void **state)
{
    (void)state;
    struct timeval soon = {0, 1000};
    int x;
    atomic_store(&runs, 0);
    void *e = a_schevnt(on_event, &x, &soon, RELEVNT | RTQEVNT);
    assert_non_null(e);
    assert_int_equal(weft_sem_wait(&fired), 0);
    assert_null(a_deschevnt(e)); /* it has occurred */
    assert_int_equal(atomic_load(&runs), 1);
}

static void test_macros_schedule_thread_bound_events(void **state)
{
    (void)state;
    struct timeval rel = {0, 500}, abs_rt, abs_vt;
    int a, b, c;
    gettimeofday(&abs_rt, NULL);
    abs_rt.tv_usec += 1000; /* 1 ms from now, time of day */
    if (abs_rt.tv_usec >= 1000000) {
        abs_rt.tv_sec++;
        abs_rt.tv_usec -= 1000000;
    }
    int64_t cpu = weft_cpu_now(); /* absolute CPU time: already reached */
    abs_vt.tv_sec = (time_t)(cpu / 1000000000);
    abs_vt.tv_usec = (suseconds_t)(cpu % 1000000000 / 1000);
    atomic_store(&runs, 0);
    void *e1 = a_schevnt_r_t(on_event, &a, 3, &rel);
    void *e2 = a_schevnt_a_rt(on_event, &b, 8, &abs_rt);
    void *e3 = a_schevnt_a_vt(on_event, &c, 2, &abs_vt);
    assert_non_null(e1);
    assert_non_null(e2);
    assert_non_null(e3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_sem_wait(&fired), 0);
    assert_int_equal(atomic_load(&runs), 3);
    assert_null(a_deschevnt(e1));
    assert_null(a_deschevnt(e2));
    assert_null(a_deschevnt(e3));
}

static void test_cancel_by_handle_and_by_parameter(void **state)
{
    (void)state;
    struct timeval later = {3600, 0};
    int p1, p2, p3;
    atomic_store(&runs, 0);
    void *e1 = a_schevnt(on_event, &p1, &later, MPREVNT | RELEVNT | RTQEVNT);
    void *e2 = a_schevnt_r_t(on_event, &p2, 1, &later);
    void *e3 = a_schevnt_r_vt(on_event, &p3, 1, &later);
    assert_non_null(e1);
    assert_non_null(e2);
    assert_non_null(e3);
    assert_non_null(a_deschevnt(e1));       /* cancelled before it ran */
    assert_non_null(a_cnclevnt_rt(&p2));    /* found on the real queue */
    assert_null(a_cnclevnt_rt(&p2));        /* not there any more */
    assert_null(a_cnclevnt_rt(&p3));        /* p3 is on the CPU queue */
    assert_non_null(a_cnclevnt_vt(&p3));
    assert_null(a_deschevnt(e2));           /* gone: cancelled by parameter */
    assert_null(a_deschevnt(e3));
    assert_int_equal(atomic_load(&runs), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_sleep_real_never_early),
        cmocka_unit_test(test_a_sleep_exec_counts_cpu_time),
        cmocka_unit_test(test_timed_function_then_deschevnt),
        cmocka_unit_test(test_macros_schedule_thread_bound_events),
        cmocka_unit_test(test_cancel_by_handle_and_by_parameter),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
