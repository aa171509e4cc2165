/* THREAD events (ARIADNE's thread-bound events) run on a host ULT at the
 * attribute's priority and may block; delay-sensitive ones get a host of
 * their own: two events that block on each other (A waits for a semaphore
 * that B posts, B runs after A has blocked) both finish, which they could
 * not do on a shared host.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define HANG_GUARD_NS 10000000000LL

static weft_sem_t handshake;
static atomic_int on_ult, prio_seen, slept_ok, a_done, b_done;

static void blocking_body(void *arg)
{
    (void)arg;
    atomic_store(&on_ult, weft_thread_self() != WEFT_THREAD_NULL);
    atomic_store(&prio_seen, weft_thread_get_priority(weft_thread_self()));
    int64_t t0 = weft_now();
    weft_sleep(2000000); /* blocking is allowed here */
    atomic_store(&slept_ok, weft_now() - t0 >= 2000000);
}

static void wait_flag(atomic_int *flag)
{
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (!atomic_load(flag) && weft_now() < guard)
        weft_sleep(1000000);
    assert_int_equal(atomic_load(flag), 1);
}

static void test_runs_on_host_at_priority(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.kind = WEFT_EVENT_THREAD;
    a.priority = 5;
    assert_int_equal(weft_event_after(NULL, 1000000, &a, blocking_body, NULL), 0);
    wait_flag(&slept_ok);
    assert_int_equal(atomic_load(&on_ult), 1);
    assert_int_equal(atomic_load(&prio_seen), 5);
}

static void event_a(void *arg)
{
    (void)arg;
    weft_sem_wait(&handshake); /* posted by B */
    atomic_store(&a_done, 1);
}

static void event_b(void *arg)
{
    (void)arg;
    weft_sem_post(&handshake);
    atomic_store(&b_done, 1);
}

static void test_sensitive_events_own_hosts(void **state)
{
    (void)state;
    weft_event_attr a;
    weft_event_attr_init(&a);
    a.kind = WEFT_EVENT_THREAD;
    a.delay_sensitive = 1;
    assert_int_equal(weft_sem_init(&handshake, 0), 0);
    int64_t t = weft_now() + 2000000;
    assert_int_equal(weft_event_at(NULL, t, &a, event_a, NULL), 0);
    assert_int_equal(weft_event_at(NULL, t + 3000000, &a, event_b, NULL), 0);
    wait_flag(&a_done);
    assert_int_equal(atomic_load(&b_done), 1);
    assert_int_equal(weft_sem_destroy(&handshake), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_on_host_at_priority),
        cmocka_unit_test(test_sensitive_events_own_hosts),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
