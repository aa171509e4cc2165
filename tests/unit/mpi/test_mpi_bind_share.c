/* The MPI shim's binding of local ranks (wmpi_bind_local_rank, engine/
 * bind.c): with n local ranks on c >= n allowed CPUs, local rank r is bound
 * to the allowed CPUs of index [r*c/n, (r+1)*c/n) - shares that are
 * disjoint and together cover the allowed set; with more local ranks than
 * CPUs each gets the one CPU of index r*c/n, and the call says the ranks
 * share CPUs (also with WEFT_MPI_BIND=none); nothing changes with
 * WEFT_MPI_BIND=none, with one local rank, or without the launcher's
 * variables. Weft's runtime is not started here
 * (binding happens only before it starts). Skipped on one CPU.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/core/internal.h"

static cpu_set_t allowed;

static int setup(void **state)
{
    (void)state;
    return sched_getaffinity(0, sizeof allowed, &allowed);
}

static void restore(void)
{
    sched_setaffinity(0, sizeof allowed, &allowed);
    unsetenv("WEFT_MPI_BIND");
    unsetenv("WEFT_MPI_LOCAL_SIZE");
    unsetenv("WEFT_MPI_LOCAL_RANK");
}

/* Bind as local rank r of n (bind mode `mode`, NULL: default); the
 * resulting set in *out; returns what the binding said (1: the host's
 * ranks share CPUs). */
static int bind_as(int r, int n, const char *mode, cpu_set_t *out)
{
    char rs[16], ns[16];
    restore();
    snprintf(rs, sizeof rs, "%d", r);
    snprintf(ns, sizeof ns, "%d", n);
    setenv("WEFT_MPI_LOCAL_RANK", rs, 1);
    setenv("WEFT_MPI_LOCAL_SIZE", ns, 1);
    if (mode)
        setenv("WEFT_MPI_BIND", mode, 1);
    int shared = wmpi_bind_local_rank();
    assert_int_equal(sched_getaffinity(0, sizeof *out, out), 0);
    restore();
    return shared;
}

static void need_two_cpus(void)
{
    if (CPU_COUNT(&allowed) < 2) {
        print_message("one CPU allowed: nothing to share\n");
        skip();
    }
}

static void test_shares_partition_the_cpus(void **state)
{
    (void)state;
    need_two_cpus();
    int c = CPU_COUNT(&allowed), n = c < 4 ? c : 4;
    cpu_set_t all, share;
    CPU_ZERO(&all);
    for (int r = 0; r < n; r++) {
        cpu_set_t common;
        assert_int_equal(bind_as(r, n, NULL, &share), 0);
        assert_int_equal(CPU_COUNT(&share), (r + 1) * c / n - r * c / n);
        CPU_AND(&common, &share, &all);
        assert_int_equal(CPU_COUNT(&common), 0); /* disjoint */
        CPU_OR(&all, &all, &share);
    }
    assert_true(CPU_EQUAL(&all, &allowed)); /* together: everything */
}

static void test_left_alone(void **state)
{
    (void)state;
    need_two_cpus();
    cpu_set_t got;
    assert_int_equal(bind_as(1, 2, "none", &got), 0);
    assert_true(CPU_EQUAL(&got, &allowed));
    assert_int_equal(bind_as(0, CPU_COUNT(&allowed) + 1, "none", &got), 1); /* shared, unbound */
    assert_true(CPU_EQUAL(&got, &allowed));
    bind_as(0, 1, NULL, &got);
    assert_true(CPU_EQUAL(&got, &allowed));
    restore(); /* no launcher variables at all */
    wmpi_bind_local_rank();
    assert_int_equal(sched_getaffinity(0, sizeof got, &got), 0);
    assert_true(CPU_EQUAL(&got, &allowed));
}

/* The lowest CPU of a set. */
static int first_cpu(const cpu_set_t *set)
{
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, set))
            return cpu;
    return -1;
}

/* More ranks than CPUs: each rank gets one CPU, in rank order (neighbours
 * share one), and every CPU is used. */
static void test_oversubscribed_ranks_share_single_cpus(void **state)
{
    (void)state;
    need_two_cpus();
    int c = CPU_COUNT(&allowed), n = 2 * c + 1, last = -1;
    cpu_set_t all, share;
    CPU_ZERO(&all);
    for (int r = 0; r < n; r++) {
        assert_int_equal(bind_as(r, n, NULL, &share), 1);
        assert_int_equal(CPU_COUNT(&share), 1);
        assert_true(first_cpu(&share) >= last);
        last = first_cpu(&share);
        CPU_OR(&all, &all, &share);
    }
    assert_true(CPU_EQUAL(&all, &allowed));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares_partition_the_cpus),
        cmocka_unit_test(test_left_alone),
        cmocka_unit_test(test_oversubscribed_ranks_share_single_cpus),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
