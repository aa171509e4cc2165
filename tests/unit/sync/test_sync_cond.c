/* Condition variables: signal wakes exactly one waiter, broadcast wakes
 * all, a bounded-buffer producer/consumer moves every item exactly once,
 * and the error codes. */
#include "test_support.h"

#include <stdint.h>
#include <weft.h>

#define NWAITERS 8

static weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
static weft_cond_t c = WEFT_COND_INITIALIZER;
static int waiting, woken;

/* One wait, no predicate loop: counts exactly the wakes it receives. */
static void *wait_once(void *arg)
{
    (void)arg;
    weft_mutex_lock(&m);
    waiting++;
    weft_cond_wait(&c, &m);
    woken++;
    weft_mutex_unlock(&m);
    return NULL;
}

static void start_waiters(weft_thread_t *t)
{
    waiting = woken = 0;
    assert_int_equal(weft_cond_init(&c), 0); /* a previous test destroyed it */
    for (int i = 0; i < NWAITERS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, wait_once, NULL), 0);
    /* waiting is counted under m before cond_wait queues and drops m, so
     * seeing NWAITERS under m means all of them are queued on c. */
    for (;;) {
        weft_mutex_lock(&m);
        int n = waiting;
        weft_mutex_unlock(&m);
        if (n == NWAITERS)
            break;
        weft_thread_yield();
    }
}

static int read_woken(void)
{
    weft_mutex_lock(&m);
    int n = woken;
    weft_mutex_unlock(&m);
    return n;
}

static void test_signal_wakes_exactly_one(void **state)
{
    weft_thread_t t[NWAITERS];
    (void)state;
    start_waiters(t);
    for (int k = 1; k <= NWAITERS; k++) {
        assert_int_equal(weft_cond_signal(&c), 0);
        while (read_woken() < k)
            weft_thread_yield();
        assert_int_equal(read_woken(), k);
        /* the other NWAITERS - k are still queued */
        assert_int_equal(weft_cond_destroy(&c), k < NWAITERS ? WEFT_EBUSY : 0);
    }
    for (int i = 0; i < NWAITERS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
}

static void test_broadcast_wakes_all(void **state)
{
    weft_thread_t t[NWAITERS];
    (void)state;
    start_waiters(t);
    assert_int_equal(weft_cond_broadcast(&c), 0);
    for (int i = 0; i < NWAITERS; i++)   /* hangs (CTest timeout) if not */
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(woken, NWAITERS);
    assert_int_equal(weft_cond_destroy(&c), 0);
}

static void test_signal_without_waiters_is_noop(void **state)
{
    weft_cond_t lone = WEFT_COND_INITIALIZER;
    (void)state;
    assert_int_equal(weft_cond_signal(&lone), 0);
    assert_int_equal(weft_cond_broadcast(&lone), 0);
    assert_int_equal(weft_cond_destroy(&lone), 0);
}

#define QCAP   8
#define NPROD  4
#define NCONS  4
#define NITEMS 2000 /* per producer */

static struct {
    weft_mutex_t lock;
    weft_cond_t not_full, not_empty;
    int buf[QCAP];
    int head, len;
    long consumed_sum;
    int consumed;
} q = { WEFT_MUTEX_INITIALIZER, WEFT_COND_INITIALIZER, WEFT_COND_INITIALIZER,
        { 0 }, 0, 0, 0, 0 };

static void *produce(void *arg)
{
    int base = (int)(intptr_t)arg * NITEMS;
    for (int i = 1; i <= NITEMS; i++) {
        weft_mutex_lock(&q.lock);
        while (q.len == QCAP)
            weft_cond_wait(&q.not_full, &q.lock);
        q.buf[(q.head + q.len++) % QCAP] = base + i;
        weft_cond_signal(&q.not_empty);
        weft_mutex_unlock(&q.lock);
    }
    return NULL;
}

static void *consume(void *arg)
{
    (void)arg;
    for (int i = 0; i < NPROD * NITEMS / NCONS; i++) {
        weft_mutex_lock(&q.lock);
        while (q.len == 0)
            weft_cond_wait(&q.not_empty, &q.lock);
        q.consumed_sum += q.buf[q.head];
        q.head = (q.head + 1) % QCAP;
        q.len--;
        q.consumed++;
        weft_cond_signal(&q.not_full);
        weft_mutex_unlock(&q.lock);
    }
    return NULL;
}

static void test_producer_consumer(void **state)
{
    weft_thread_t p[NPROD], k[NCONS];
    long n = (long)NPROD * NITEMS;
    (void)state;
    for (int i = 0; i < NCONS; i++)
        assert_int_equal(weft_thread_create(&k[i], NULL, consume, NULL), 0);
    for (int i = 0; i < NPROD; i++)
        assert_int_equal(weft_thread_create(&p[i], NULL, produce, (void *)(intptr_t)i), 0);
    for (int i = 0; i < NPROD; i++)
        assert_int_equal(weft_thread_join(p[i], NULL), 0);
    for (int i = 0; i < NCONS; i++)
        assert_int_equal(weft_thread_join(k[i], NULL), 0);
    assert_int_equal(q.consumed, n);
    assert_int_equal(q.consumed_sum, n * (n + 1) / 2); /* items 1..n, each once */
    assert_int_equal(q.len, 0);
}

static void test_error_codes(void **state)
{
    weft_mutex_t mine = WEFT_MUTEX_INITIALIZER;
    weft_cond_t cv = WEFT_COND_INITIALIZER;
    (void)state;
    assert_int_equal(weft_cond_wait(&cv, &mine), WEFT_EPERM); /* not held */
    assert_int_equal(weft_cond_init(NULL), WEFT_EINVAL);
    assert_int_equal(weft_cond_destroy(NULL), WEFT_EINVAL);
    assert_int_equal(weft_cond_wait(NULL, &mine), WEFT_EINVAL);
    assert_int_equal(weft_cond_wait(&cv, NULL), WEFT_EINVAL);
    assert_int_equal(weft_cond_signal(NULL), WEFT_EINVAL);
    assert_int_equal(weft_cond_broadcast(NULL), WEFT_EINVAL);
    assert_int_equal(weft_cond_init(&cv), 0);
    assert_int_equal(weft_cond_destroy(&cv), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_wakes_exactly_one),
        cmocka_unit_test(test_broadcast_wakes_all),
        cmocka_unit_test(test_signal_without_waiters_is_noop),
        cmocka_unit_test(test_producer_consumer),
        cmocka_unit_test(test_error_codes),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
