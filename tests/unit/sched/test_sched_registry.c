/* The thread registry (thread.c), which debuggers walk to list every
 * user-level thread.
 *
 * Checks that it counts the main thread alone at rest; that it lists
 * blocked threads (which no run queue holds) and finished but unjoined
 * ones; that joined and detached threads leave it, both when their
 * descriptor is freed and when a worker's cache keeps it (more threads
 * than the cache holds exercise both); that counting while other workers
 * create and join is safe (the ThreadSanitizer build checks the locking);
 * and that weft_fini leaves it empty.
 *
 * cmocka assertions are only made on the main thread.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include <weft.h>

#include "sched/sched_internal.h"

#define NBLOCKED 40 /* more than a worker's descriptor cache */
#define NCHURN 4
#define DEADLINE_NS 10000000000LL /* hang guard only, never a timing check */

static weft_sem_t gate;
static atomic_int parked;

static void *wait_at_gate(void *arg)
{
    atomic_fetch_add(&parked, 1);
    weft_sem_wait(&gate);
    return arg;
}

static void *quick(void *arg)
{
    return arg;
}

static void wait_until_registry(int n)
{
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while (wf_thread_registry_count() != n && wt_now_ns() < end)
        weft_thread_yield();
    assert_int_equal(wf_thread_registry_count(), n);
}

static void test_main_alone(void **state)
{
    (void)state;
    assert_int_equal(wf_thread_registry_count(), 1);
}

static void test_blocked_and_finished_listed(void **state)
{
    (void)state;
    weft_thread_t t[NBLOCKED];
    assert_int_equal(weft_sem_init(&gate, 0), 0);
    atomic_store(&parked, 0);
    for (int i = 0; i < NBLOCKED; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, wait_at_gate, NULL), 0);
    assert_int_equal(wf_thread_registry_count(), 1 + NBLOCKED);
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while (atomic_load(&parked) < NBLOCKED && wt_now_ns() < end)
        weft_thread_yield();
    assert_int_equal(wf_thread_registry_count(), 1 + NBLOCKED);
    for (int i = 0; i < NBLOCKED; i++)
        weft_sem_post(&gate);
    wait_until_registry(1 + NBLOCKED); /* finished, not joined: still there */
    for (int i = 0; i < NBLOCKED; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(wf_thread_registry_count(), 1);
    weft_sem_destroy(&gate);
}

static void test_detached_leave(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_attr_init(&a);
    a.detached = 1;
    for (int i = 0; i < NBLOCKED; i++)
        assert_int_equal(weft_thread_create(NULL, &a, quick, NULL), 0);
    wait_until_registry(1);
}

/* Threads on other workers create and join while main counts. */
static atomic_int churn_stop;

static void *churn(void *arg)
{
    while (!atomic_load(&churn_stop)) {
        weft_thread_t t;
        if (weft_thread_create(&t, NULL, quick, NULL) == 0)
            weft_thread_join(t, NULL);
    }
    return arg;
}

static void test_count_during_churn(void **state)
{
    (void)state;
    weft_thread_t t[NCHURN];
    atomic_store(&churn_stop, 0);
    for (int i = 0; i < NCHURN; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, churn, NULL), 0);
    for (int round = 0; round < WT_ROUNDS(2000); round++) {
        int n = wf_thread_registry_count();
        assert_true(n >= 1 && n <= 1 + 2 * NCHURN);
        weft_thread_yield();
    }
    atomic_store(&churn_stop, 1);
    for (int i = 0; i < NCHURN; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(wf_thread_registry_count(), 1);
}

/* A child of fork() starts a runtime of its own: the parent's threads,
 * gone in the child, are not listed there. */
static void test_fork_child_forgets(void **state)
{
    (void)state;
    weft_thread_t t[4];
    assert_int_equal(weft_sem_init(&gate, 0), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, wait_at_gate, NULL), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int ok = weft_init() == 0 && wf_thread_registry_count() == 1 &&
                 weft_fini() == 0 && wf_thread_registry_count() == 0;
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(wf_thread_registry_count(), 5);
    for (int i = 0; i < 4; i++)
        weft_sem_post(&gate);
    for (int i = 0; i < 4; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    weft_sem_destroy(&gate);
}

static void test_fini_empties(void **state)
{
    (void)state;
    assert_int_equal(weft_fini(), 0);
    assert_int_equal(wf_thread_registry_count(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_main_alone),
        cmocka_unit_test(test_blocked_and_finished_listed),
        cmocka_unit_test(test_detached_leave),
        cmocka_unit_test(test_count_during_churn),
        cmocka_unit_test(test_fork_child_forgets),
        cmocka_unit_test(test_fini_empties), /* last: finalises */
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, NULL);
}
