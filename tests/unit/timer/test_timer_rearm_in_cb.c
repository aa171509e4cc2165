/* Re-arming from inside an event's function: a FUNCTION event and a THREAD
 * event each re-arm themselves ROUNDS times, 1 ms apart (a periodic timer
 * built from one-shot events); every round runs, in order, never before
 * its deadline.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <weft.h>

#define ROUNDS 20
#define PERIOD_NS 1000000
#define HANG_GUARD_NS 10000000000LL

typedef struct periodic {
    weft_event_attr attr;
    int64_t deadline;
    atomic_int rounds;
    atomic_int early;
} periodic;

static void tick(void *arg)
{
    periodic *p = arg;
    if (weft_now() < p->deadline)
        atomic_fetch_add(&p->early, 1);
    if (atomic_fetch_add(&p->rounds, 1) + 1 < ROUNDS) {
        p->deadline += PERIOD_NS;
        if (weft_event_at(NULL, p->deadline, &p->attr, tick, p) != 0)
            atomic_fetch_add(&p->early, 1000); /* reported below */
    }
}

static void run_periodic(weft_event_kind kind)
{
    static periodic p;
    weft_event_attr_init(&p.attr);
    p.attr.kind = kind;
    atomic_store(&p.rounds, 0);
    atomic_store(&p.early, 0);
    p.deadline = weft_now() + PERIOD_NS;
    assert_int_equal(weft_event_at(NULL, p.deadline, &p.attr, tick, &p), 0);
    int64_t guard = weft_now() + HANG_GUARD_NS;
    while (atomic_load(&p.rounds) < ROUNDS && weft_now() < guard)
        weft_sleep(PERIOD_NS);
    assert_int_equal(atomic_load(&p.rounds), ROUNDS);
    assert_int_equal(atomic_load(&p.early), 0);
    weft_sleep(5 * PERIOD_NS);
    assert_int_equal(atomic_load(&p.rounds), ROUNDS); /* it stopped */
    assert_int_equal(weft_event_pending(), 0);
}

static void test_rearm_function(void **state)
{
    (void)state;
    run_periodic(WEFT_EVENT_FUNCTION);
}

static void test_rearm_thread(void **state)
{
    (void)state;
    run_periodic(WEFT_EVENT_THREAD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rearm_function),
        cmocka_unit_test(test_rearm_thread),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
