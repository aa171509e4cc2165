/* Unregistering a handle while threads wait on it returns WEFT_ECANCELED
 * to every waiter - ULTs and an external pthread, plain and timed waits,
 * and a wait_any clause - instead of leaving them hanging; the handle's
 * blocker thread (it has a block callback that never reports anything) is
 * stopped. A handle without waiters unregisters at once, and NULL is
 * refused.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include <weft.h>

#define NULTS 8
#define NWAITERS (NULTS + 3) /* + timed ULT, wait_any ULT, pthread */
#define HANG_GUARD_NS 10000000000LL

static weft_io_t h;
static atomic_int linked, canceled, other;

static void group(void *ctx)
{
    (void)ctx;
    int n = 0;
    void *a;
    WEFT_IO_FOR_EACH_REQUEST(weft_io_current(), a)
        n += a == &linked;
    atomic_store(&linked, n);
}

static int never(void *ctx)
{
    (void)ctx;
    return -1;
}

static int block_never(void *ctx, int timeout_ms)
{
    (void)ctx;
    usleep((useconds_t)(timeout_ms > 0 ? timeout_ms : 1) * 100); /* a tenth of it */
    return -1;
}

static void count(int rc)
{
    atomic_fetch_add(rc == WEFT_ECANCELED ? &canceled : &other, 1);
}

static void *plain(void *arg)
{
    (void)arg;
    count(weft_io_wait(h, &linked));
    return NULL;
}

static void *timed(void *arg)
{
    (void)arg;
    count(weft_io_wait_until(h, &linked, wt_now_ns() + HANG_GUARD_NS));
    return NULL;
}

static void *any(void *arg)
{
    (void)arg;
    weft_clause c = { .kind = WEFT_CLAUSE_IO, .io = h, .arg = &linked };
    count(weft_wait_any(&c, 1, WEFT_FOREVER));
    return NULL;
}

static void test_waiters_get_ecanceled(void **state)
{
    (void)state;
    weft_io_params p = { .name = "doomed", .poll = never, .group = group,
                         .block = block_never };
    assert_non_null(h = weft_io_register(&p));
    weft_thread_t t[NULTS + 2];
    for (int i = 0; i < NULTS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, plain, NULL), 0);
    assert_int_equal(weft_thread_create(&t[NULTS], NULL, timed, NULL), 0);
    assert_int_equal(weft_thread_create(&t[NULTS + 1], NULL, any, NULL), 0);
    pthread_t ext;
    assert_int_equal(pthread_create(&ext, NULL, plain, NULL), 0);

    int64_t guard = wt_now_ns() + HANG_GUARD_NS;
    while (atomic_load(&linked) < NWAITERS && wt_now_ns() < guard)
        weft_sleep(1000 * 1000);
    assert_int_equal(atomic_load(&linked), NWAITERS);

    assert_int_equal(weft_io_unregister(h), 0);
    for (int i = 0; i < NULTS + 2; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(pthread_join(ext, NULL), 0);
    assert_int_equal(atomic_load(&canceled), NWAITERS);
    assert_int_equal(atomic_load(&other), 0);
}

static void test_idle_handle_and_null(void **state)
{
    (void)state;
    weft_io_params p = { .name = "idle", .poll = never };
    weft_io_t idle = weft_io_register(&p);
    assert_non_null(idle);
    assert_int_equal(weft_io_unregister(idle), 0);
    assert_int_equal(weft_io_unregister(WEFT_IO_NULL), WEFT_EINVAL);
    assert_null(weft_io_register(NULL));
    p.poll = NULL;
    assert_null(weft_io_register(&p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiters_get_ecanceled),
        cmocka_unit_test(test_idle_handle_and_null),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
