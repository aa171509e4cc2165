/* group() is called on every change of a handle's set of waiting requests
 * - each request added, each one detected, each one that gives up at its
 * deadline - exactly once per change, and WEFT_IO_FOR_EACH_REQUEST then
 * shows exactly the waiting requests, oldest first.
 *
 * One worker, preemption off: the test decides when anything runs. After
 * each step it compares the count of group() calls and the snapshot group()
 * took with what the step implies.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define N 8
#define HANG_GUARD_NS 10000000000LL

typedef struct req {
    int id;
    atomic_int done;
} req;

static req reqs[N + 1];
static int snap[N + 1], nsnap;
static atomic_int group_calls, bad;
static weft_io_t h;

static void group(void *ctx)
{
    (void)ctx;
    req *r;
    nsnap = 0;
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), r)
        snap[nsnap++] = r->id;
    atomic_fetch_add(&group_calls, 1);
}

static int poll_done(void *ctx)
{
    (void)ctx;
    int i = 0;
    req *r;
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), r) {
        if (atomic_load(&r->done))
            return i;
        i++;
    }
    return -1;
}

static void *waiter(void *arg)
{
    if (weft_io_wait(h, arg) != 0)
        atomic_fetch_add(&bad, 1);
    return NULL;
}

static void *timed_waiter(void *arg)
{
    int64_t deadline = wt_now_ns() + 20 * 1000 * 1000;
    if (weft_io_wait_until(h, arg, deadline) != WEFT_ETIMEDOUT)
        atomic_fetch_add(&bad, 1);
    return NULL;
}

static void yield_until_calls(int calls)
{
    int64_t end = wt_now_ns() + HANG_GUARD_NS;
    while (atomic_load(&group_calls) < calls && wt_now_ns() < end)
        weft_thread_yield();
    assert_int_equal(atomic_load(&group_calls), calls);
}

static void expect_set(const int *ids, int n)
{
    assert_int_equal(nsnap, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(snap[i], ids[i]);
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

static void remove_id(int *ids, int *n, int id)
{
    int j = 0;
    for (int i = 0; i < *n; i++)
        if (ids[i] != id)
            ids[j++] = ids[i];
    *n = j;
}

static void test_group_called_on_every_change(void **state)
{
    (void)state;
    weft_io_params p = { .name = "group", .poll = poll_done, .group = group };
    assert_non_null(h = weft_io_register(&p));
    weft_thread_t t[N + 1];
    int ids[N + 1], n = 0;
    for (int i = 0; i < N; i++) { /* each add: one call, set grows */
        reqs[i].id = i;
        assert_int_equal(weft_thread_create(&t[i], NULL, waiter, &reqs[i]), 0);
        yield_until_calls(i + 1);
        ids[n++] = i;
        expect_set(ids, n);
    }
    reqs[N].id = N; /* a deadline: one call to add, one to give up */
    assert_int_equal(weft_thread_create(&t[N], NULL, timed_waiter, &reqs[N]), 0);
    yield_until_calls(N + 1);
    ids[n++] = N;
    expect_set(ids, n);
    assert_int_equal(weft_thread_join(t[N], NULL), 0);
    assert_int_equal(atomic_load(&group_calls), N + 2);
    remove_id(ids, &n, N);
    expect_set(ids, n);

    static const int order[N] = { 3, 0, 7, 5, 1, 6, 2, 4 };
    for (int k = 0; k < N; k++) { /* each detection: one call, set shrinks */
        atomic_store(&reqs[order[k]].done, 1);
        assert_int_equal(weft_thread_join(t[order[k]], NULL), 0);
        assert_int_equal(atomic_load(&group_calls), N + 3 + k);
        remove_id(ids, &n, order[k]);
        expect_set(ids, n);
    }
    assert_int_equal(atomic_load(&bad), 0);
    assert_int_equal(weft_io_unregister(h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_called_on_every_change),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
