/* The default number of workers follows the CPU binding the process has at
 * weft_init (taskset, a launcher's per-rank binding, the MPI shim's own):
 * bound to one CPU, weft_init starts one worker, and weft_fini gives the
 * caller that binding back; unbound again, the runtime starts again (one
 * worker per allowed core: not asserted, cores may share CPUs).
 * Skipped on a machine with a single allowed CPU (nothing to restrict).
 */
#include "test_support.h"

#include <sched.h>
#include <stdlib.h>
#include <weft.h>

static cpu_set_t allowed;

static int setup(void **state)
{
    (void)state;
    unsetenv("WEFT_WORKERS"); /* the default is what is tested */
    return sched_getaffinity(0, sizeof allowed, &allowed);
}

static int teardown(void **state)
{
    (void)state;
    return sched_setaffinity(0, sizeof allowed, &allowed);
}

static int first_allowed_cpu(void)
{
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &allowed))
            return cpu;
    return -1;
}

static void test_one_cpu_one_worker(void **state)
{
    (void)state;
    cpu_set_t one, after;

    if (CPU_COUNT(&allowed) < 2) {
        print_message("one CPU allowed: nothing to restrict\n");
        skip();
    }
    CPU_ZERO(&one);
    CPU_SET(first_allowed_cpu(), &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);

    assert_int_equal(weft_init(), 0);
    assert_int_equal(weft_num_workers(), 1);
    assert_int_equal(weft_fini(), 0);

    assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
    assert_true(CPU_EQUAL(&after, &one)); /* the binding the caller had */
}

static void test_unbound_again_more_workers(void **state)
{
    (void)state;
    if (CPU_COUNT(&allowed) < 2)
        skip();
    assert_int_equal(sched_setaffinity(0, sizeof allowed, &allowed), 0);
    assert_int_equal(weft_init(), 0);
    assert_true(weft_num_workers() >= 1);
    print_message("%d workers for %d allowed CPUs\n", weft_num_workers(),
                  CPU_COUNT(&allowed));
    assert_int_equal(weft_fini(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_cpu_one_worker),
        cmocka_unit_test(test_unbound_again_more_workers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
