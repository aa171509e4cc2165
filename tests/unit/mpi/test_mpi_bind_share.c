/* The MPI shim's binding of local ranks (wmpi_bind_local_rank, engine/
 * bind.c): with n local ranks on c >= n allowed CPUs, local rank r is bound
 * to the allowed CPUs of index [r*c/n, (r+1)*c/n) - shares that are
 * disjoint and together cover the allowed set; with more local ranks than
 * CPUs each gets the one CPU of index r*c/n, and the call says the ranks
 * share CPUs (also with WEFT_MPI_BIND=none); nothing changes with
 * WEFT_MPI_BIND=none, with one local rank, or without the launcher's
 * variables. Weft's runtime is not started here
 * (binding happens only before it starts). Skipped on one CPU.
 *
 * The deal itself (wmpi_bind_share) on a made-up machine of 2 packages x
 * 2 cores x 2 hardware threads, numbered as Linux does (a core's second
 * thread is CPU core + 4): whole cores, threads or packages per rank, in
 * blocks or round-robin over the packages, and oversubscription.
 */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/core/bind_share.h"
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

/* ------------------------------------------------- a made-up machine */

enum { MCPUS = 8 };
static wmpi_cpu_place machine[MCPUS];

static void make_machine(void)
{
    for (int cpu = 0; cpu < MCPUS; cpu++)
        machine[cpu] = (wmpi_cpu_place){ .cpu = cpu, .core = cpu % 4,
                                         .package = cpu % 4 < 2 ? 0 : 2 };
}

/* The CPUs of the share as a bit mask (CPU i: bit i). */
static unsigned share_of(wmpi_bind_level level, int by_socket, int r, int n, int *shared)
{
    cpu_set_t set;
    unsigned mask = 0;
    *shared = wmpi_bind_share(machine, MCPUS, level, by_socket, r, n, &set);
    for (int cpu = 0; cpu < MCPUS; cpu++)
        if (CPU_ISSET(cpu, &set))
            mask |= 1u << cpu;
    assert_int_equal(CPU_COUNT(&set), __builtin_popcount(mask)); /* nothing beyond */
    return mask;
}

static void expect_shares(wmpi_bind_level level, int by_socket, int n, const unsigned *want,
                          int want_shared)
{
    for (int r = 0; r < n; r++) {
        int shared;
        assert_int_equal(share_of(level, by_socket, r, n, &shared), want[r]);
        assert_int_equal(shared, want_shared);
    }
}

static void test_whole_cores_in_blocks(void **state)
{
    (void)state;
    make_machine();
    /* cores: {0,4} {1,5} {2,6} {3,7} */
    expect_shares(WMPI_BIND_CORE, 0, 2, (const unsigned[]){ 0x33, 0xcc }, 0);
    expect_shares(WMPI_BIND_CORE, 0, 4, (const unsigned[]){ 0x11, 0x22, 0x44, 0x88 }, 0);
    expect_shares(WMPI_BIND_CORE, 0, 3, (const unsigned[]){ 0x11, 0x22, 0xcc }, 0);
}

static void test_threads_and_packages(void **state)
{
    (void)state;
    make_machine();
    expect_shares(WMPI_BIND_HWTHREAD, 0, 8,
                  (const unsigned[]){ 0x01, 0x10, 0x02, 0x20, 0x04, 0x40, 0x08, 0x80 }, 0);
    /* machine order: a core's two threads, then the next core's */
    expect_shares(WMPI_BIND_HWTHREAD, 0, 2, (const unsigned[]){ 0x33, 0xcc }, 0);
    expect_shares(WMPI_BIND_HWTHREAD, 0, 4, (const unsigned[]){ 0x11, 0x22, 0x44, 0x88 }, 0);
    /* packages: {0,1,4,5} {2,3,6,7} */
    expect_shares(WMPI_BIND_SOCKET, 0, 2, (const unsigned[]){ 0x33, 0xcc }, 0);
    expect_shares(WMPI_BIND_SOCKET, 0, 4, (const unsigned[]){ 0x33, 0x33, 0xcc, 0xcc }, 1);
}

static void test_round_robin_over_packages(void **state)
{
    (void)state;
    make_machine();
    expect_shares(WMPI_BIND_CORE, 1, 4, (const unsigned[]){ 0x11, 0x44, 0x22, 0x88 }, 0);
    /* three ranks: two on package 0 (a core each), one with package 1's two */
    expect_shares(WMPI_BIND_CORE, 1, 3, (const unsigned[]){ 0x11, 0xcc, 0x22 }, 0);
    expect_shares(WMPI_BIND_SOCKET, 1, 2, (const unsigned[]){ 0x33, 0xcc }, 0);
    expect_shares(WMPI_BIND_HWTHREAD, 1, 2, (const unsigned[]){ 0x33, 0xcc }, 0);
}

static void test_more_ranks_than_units(void **state)
{
    (void)state;
    make_machine();
    int shared;
    unsigned all = 0;
    for (int r = 0; r < 9; r++) {
        unsigned mask = share_of(WMPI_BIND_CORE, 0, r, 9, &shared);
        assert_int_equal(shared, 1);
        assert_int_equal(mask, 0x11u << (r * 4 / 9)); /* core r*4/9, both threads */
        all |= mask;
    }
    assert_int_equal(all, 0xff);
    assert_int_equal(share_of(WMPI_BIND_CORE, 0, 9, 9, &shared), 0); /* no such rank */
    assert_int_equal(share_of(WMPI_BIND_CORE, 0, -1, 2, &shared), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shares_partition_the_cpus),
        cmocka_unit_test(test_left_alone),
        cmocka_unit_test(test_oversubscribed_ranks_share_single_cpus),
        cmocka_unit_test(test_whole_cores_in_blocks),
        cmocka_unit_test(test_threads_and_packages),
        cmocka_unit_test(test_round_robin_over_packages),
        cmocka_unit_test(test_more_ranks_than_units),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
