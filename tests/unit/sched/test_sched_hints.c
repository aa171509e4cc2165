/* What a layer above the runtime (the MPI library) may ask and say:
 * weft_ready_threads counts queued runnable threads, weft_cpus_shared
 * reads back weft_set_cpus_shared, weft_heuristic_on answers WEFT_DISABLE
 * by name, and weft_set_worker_binding(0) leaves the workers unpinned
 * when WEFT_BIND is unset (and WEFT_BIND, when set, wins).
 *
 * Each test starts and stops the runtime itself, with one worker, so the
 * environment and the binding default it reads at weft_init are its own.
 */
#include "test_support.h"

#include <sched.h>
#include <stdlib.h>
#include <weft.h>

static int allowed_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
}

static void *nothing(void *arg)
{
    return arg;
}

/* No preemption: a tick would run the queued threads behind our back. */
static void start_one_worker(void)
{
    setenv("WEFT_WORKERS", "1", 1);
    setenv("WEFT_QUANTUM_US", "0", 1);
    assert_int_equal(weft_init(), 0);
}

/* Created threads wait in the only worker's queue until main yields. */
static void test_ready_threads_counts_the_queue(void **state)
{
    (void)state;
    weft_thread_t t[3];
    start_one_worker();
    assert_int_equal(weft_ready_threads(), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, nothing, NULL), 0);
    assert_int_equal(weft_ready_threads(), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(weft_ready_threads(), 0);
    assert_int_equal(weft_fini(), 0);
}

static void test_cpus_shared_reads_back(void **state)
{
    (void)state;
    weft_set_cpus_shared(7);
    assert_int_equal(weft_cpus_shared(), 1);
    weft_set_cpus_shared(0);
    assert_int_equal(weft_cpus_shared(), 0);
}

static void test_heuristic_on_by_name(void **state)
{
    (void)state;
    setenv("WEFT_DISABLE", "wait-test", 1);
    start_one_worker();
    assert_int_equal(weft_heuristic_on("wait-test"), 0);
    assert_int_equal(weft_heuristic_on("spin"), 1);
    assert_int_equal(weft_heuristic_on("no-such-heuristic"), 1);
    assert_int_equal(weft_heuristic_on(NULL), 1);
    assert_int_equal(weft_fini(), 0);
    unsetenv("WEFT_DISABLE");
    start_one_worker();
    assert_int_equal(weft_heuristic_on("wait-test"), 1);
    assert_int_equal(weft_fini(), 0);
}

/* Worker 0 is the calling thread: pinned, it may run on one CPU only. */
static void test_worker_binding_default(void **state)
{
    (void)state;
    int before = allowed_cpus();
    if (before < 2)
        skip();
    unsetenv("WEFT_BIND");
    weft_set_worker_binding(0);
    start_one_worker();
    assert_int_equal(allowed_cpus(), before);
    assert_int_equal(weft_fini(), 0);

    setenv("WEFT_BIND", "core", 1);
    start_one_worker();
    assert_int_equal(allowed_cpus(), 1);
    assert_int_equal(weft_fini(), 0);
    unsetenv("WEFT_BIND");

    weft_set_worker_binding(1);
    start_one_worker();
    assert_int_equal(allowed_cpus(), 1);
    assert_int_equal(weft_fini(), 0);
    assert_int_equal(allowed_cpus(), before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ready_threads_counts_the_queue),
        cmocka_unit_test(test_cpus_shared_reads_back),
        cmocka_unit_test(test_heuristic_on_by_name),
        cmocka_unit_test(test_worker_binding_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
