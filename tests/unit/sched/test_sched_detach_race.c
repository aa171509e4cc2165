/* A detach that races with the thread's own finish is never lost.
 *
 * The thread returns while the creator, on another worker, detaches it:
 * the finishing thread marks itself as leaving for good at the same moment
 * as the detach marks it detached. Both used to write the same flags word,
 * the finish without the join lock, so the detach's mark could be
 * overwritten: the thread then finished neither detached nor joined, its
 * descriptor leaked and weft_fini() refused forever (WEFT_EBUSY). After
 * many such races every thread must be gone, so weft_fini() succeeds.
 * Two workers, so that the thread runs while its creator spins.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define ROUNDS 20000
#define SPINS 100000
#define DEADLINE_NS 10000000000LL /* hang guard only, never a timing check */

static atomic_int returned;

static void *return_at_once(void *arg)
{
    (void)arg;
    atomic_store(&returned, 1);
    return NULL;
}

/* Until the thread has returned: spin, so that the detach comes while it
 * is still finishing; yield now and then, in case it was queued here. */
static void wait_returned(void)
{
    for (int i = 0; !atomic_load(&returned); i++)
        if (i % SPINS == SPINS - 1)
            weft_thread_yield();
}

static void a_detach_racing_the_finish_still_releases_the_thread(void **state)
{
    (void)state;
    for (int i = 0; i < WT_ROUNDS(ROUNDS); i++) {
        weft_thread_t t;
        atomic_store(&returned, 0);
        assert_int_equal(weft_thread_create(&t, NULL, return_at_once, NULL), 0);
        wait_returned();
        assert_int_equal(weft_thread_detach(t), 0);
    }
    int rc;
    int64_t end = wt_now_ns() + DEADLINE_NS;
    while ((rc = weft_fini()) == WEFT_EBUSY && wt_now_ns() < end)
        weft_thread_yield();
    assert_int_equal(rc, 0);
}

int main(void)
{
    setenv("WEFT_WORKERS", "2", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_detach_racing_the_finish_still_releases_the_thread),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, NULL);
}
