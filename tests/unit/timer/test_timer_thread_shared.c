/* Delay-tolerant THREAD events share one host and run in deadline order:
 * the first one blocks; those due while it blocks wait behind it (they do
 * not start), and once it is released they all run, in order, on that same
 * host thread. A delay-sensitive event due meanwhile is not held up.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define N 8
#define HANG_GUARD_NS 10000000000LL

static weft_sem_t gate;
static weft_thread_t host_of[N];
static int order[N];
static atomic_int nran, sensitive_ran;

static void tolerant(void *arg)
{
    int i = (int)(intptr_t)arg;
    int pos = atomic_fetch_add(&nran, 1);
    order[pos] = i;
    host_of[i] = weft_thread_self();
    if (i == 0)
        weft_sem_wait(&gate);
}

static void sensitive(void *arg)
{
    (void)arg;
    atomic_store(&sensitive_ran, 1);
}

static void wait_until(int (*cond)(void))
{
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (!cond() && weft_now() < guard)
        weft_sleep(1000000);
    assert_true(cond());
}

static int none_pending(void)
{
    return weft_event_pending() == 0;
}

static int all_ran(void)
{
    return atomic_load(&nran) == N;
}

static int sensitive_done(void)
{
    return atomic_load(&sensitive_ran);
}

static void test_shared_host_in_order(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.kind = WEFT_EVENT_THREAD;
    a.delay_sensitive = 0;
    assert_int_equal(weft_sem_init(&gate, 0), 0);
    int64_t t = weft_now() + wt_tolerance(2000000); /* all armed before the first is due */
    for (int i = N - 1; i >= 0; i--) /* armed in reverse: order is by deadline */
        assert_int_equal(weft_event_at(NULL, t + i * 100000, &a, tolerant, (void *)(intptr_t)i), 0);
    a.delay_sensitive = 1;
    assert_int_equal(weft_event_at(NULL, t + N * 100000, &a, sensitive, NULL), 0);
    wait_until(none_pending);
    wait_until(sensitive_done);
    assert_int_equal(atomic_load(&nran), 1); /* the others wait behind event 0 */
    weft_sem_post(&gate);
    wait_until(all_ran);
    for (int i = 0; i < N; i++) {
        assert_int_equal(order[i], i);
        assert_ptr_equal(host_of[i], host_of[0]);
    }
    assert_int_equal(weft_sem_destroy(&gate), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_host_in_order),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
