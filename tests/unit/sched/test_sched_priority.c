/* Priorities: on one worker, runnable threads run highest priority first,
 * and in creation (FIFO) order within one level.
 *
 * Set-up: WEFT_WORKERS=1, preemption off (a time slice could requeue a
 * thread behind its peers of the same level, which would make FIFO order
 * depend on timing). main raises itself to WEFT_PRIO_MAX so that none of
 * the threads it creates (levels MIN .. MAX-1, created in a scrambled
 * order) can run before main blocks in its first join; from then on the
 * order in which they record themselves is the scheduler's choice alone.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define PER_LEVEL 3
#define LEVELS    (WEFT_NUM_PRIOS - 1) /* MIN .. MAX-1: all below main */
#define NTHREADS  (PER_LEVEL * LEVELS)

static atomic_int seq_len;
static int seq[NTHREADS]; /* order in which threads ran: their index */

static void *record(void *arg)
{
    int pos = atomic_fetch_add(&seq_len, 1);
    if (pos < NTHREADS)
        seq[pos] = (int)(intptr_t)arg;
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

/* Level order in which threads are created: scrambled on purpose. */
static const int create_order[LEVELS] = {2, 5, 0, 6, 3, 1, 4};

struct planned {
    int prio;
    int round; /* FIFO rank within its level */
};

static void create_all(weft_thread_t *ts, struct planned *plan)
{
    weft_thread_attr a;
    int n = 0;

    weft_thread_attr_init(&a);
    for (int r = 0; r < PER_LEVEL; r++)
        for (int l = 0; l < LEVELS; l++, n++) {
            a.priority = create_order[l];
            plan[n].prio = a.priority;
            plan[n].round = r;
            assert_int_equal(weft_thread_create(&ts[n], &a, record,
                                                (void *)(intptr_t)n), 0);
        }
}

static void test_priority_then_fifo(void **state)
{
    (void)state;
    weft_thread_t ts[NTHREADS];
    struct planned plan[NTHREADS];
    weft_thread_t me = weft_thread_self();

    assert_int_equal(weft_num_workers(), 1);
    atomic_store(&seq_len, 0);
    assert_int_equal(weft_thread_set_priority(me, WEFT_PRIO_MAX), 0);
    create_all(ts, plan);
    assert_int_equal(atomic_load(&seq_len), 0); /* nobody ran yet */
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);
    assert_int_equal(weft_thread_set_priority(me, WEFT_PRIO_DEFAULT), 0);

    assert_int_equal(atomic_load(&seq_len), NTHREADS);
    for (int k = 0; k < NTHREADS; k++) {
        /* expected: level MAX-1 first, ..., MIN last; rounds 0,1,2 within */
        int want_prio = LEVELS - 1 - k / PER_LEVEL;
        int want_round = k % PER_LEVEL;
        print_message("position %d: thread %d (prio %d, rank %d)\n", k,
                      seq[k], plan[seq[k]].prio, plan[seq[k]].round);
        assert_int_equal(plan[seq[k]].prio, want_prio);
        assert_int_equal(plan[seq[k]].round, want_round);
    }
}

/* A thread that lowers its own priority below a runnable one yields to it
 * at once ("for the caller itself, at once"). */
static atomic_int order_len;
static int order[2];

static void *mark(void *arg)
{
    order[atomic_fetch_add(&order_len, 1) % 2] = (int)(intptr_t)arg;
    return NULL;
}

static void test_lowering_self_yields(void **state)
{
    (void)state;
    weft_thread_attr a;
    weft_thread_t t;
    weft_thread_t me = weft_thread_self();

    atomic_store(&order_len, 0);
    weft_thread_attr_init(&a);
    a.priority = WEFT_PRIO_HIGH;
    assert_int_equal(weft_thread_set_priority(me, WEFT_PRIO_MAX), 0);
    assert_int_equal(weft_thread_create(&t, &a, mark, (void *)1), 0);
    assert_int_equal(atomic_load(&order_len), 0);
    /* now HIGH is runnable and above main's new level: main must yield */
    assert_int_equal(weft_thread_set_priority(me, WEFT_PRIO_MIN), 0);
    mark((void *)0);
    assert_int_equal(weft_thread_set_priority(me, WEFT_PRIO_DEFAULT), 0);
    assert_int_equal(weft_thread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&order_len), 2);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_priority_then_fifo),
        cmocka_unit_test(test_lowering_self_yields),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
