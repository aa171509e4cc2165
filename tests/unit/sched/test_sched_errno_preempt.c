/* errno survives preemption: a ULT switched out by a tick and resumed on
 * another worker still sees the errno it had. errno belongs to the kernel
 * thread, so the tick handler saves it and restores it on the kernel
 * thread it returns on; restoring it through the address taken before the
 * switch would write the old worker's errno (another ULT's) and leave this
 * one with whatever the new worker's last thread had set.
 *
 * Busy ULTs, several per worker, each set errno to a value of their own
 * and check it while they compute, counting the times they find
 * themselves on another worker. errno is read through a function the
 * compiler cannot fold, as a program calling a C library function would.
 * A tick may land between the lookup of errno's address and the load (one
 * instruction): that one read then sees the previous kernel thread's
 * errno, and the next is right again. A lost errno stays wrong, so a
 * mismatch counts only when a second read confirms it.
 */
#include "test_support.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <weft.h>

#define PER_WORKER   4
#define MAX_BUSY     64
#define RUN_NS       300000000LL  /* each thread computes this long */
#define QUANTUM_NS   200000       /* many preemptions meanwhile */

static atomic_int mismatches, migrations;

/* The empty asm keeps the compiler from proving the function pure and
 * merging the two reads below into one. */
static __attribute__((noinline)) int read_errno(void)
{
    __asm__ volatile("" ::: "memory");
    return errno;
}

static __attribute__((noinline)) void write_errno(int e)
{
    errno = e;
}

static void *compute(void *arg)
{
    int mine = 1000 + (int)(intptr_t)arg;
    int worker = weft_worker_id();
    write_errno(mine);
    int64_t end = wt_now_ns() + RUN_NS;
    while (wt_now_ns() < end) {
        /* Read twice: see the head of the file. */
        if (read_errno() != mine && read_errno() != mine) {
            atomic_fetch_add(&mismatches, 1);
            write_errno(mine);
        }
        int now_on = weft_worker_id();
        if (now_on != worker) {
            atomic_fetch_add(&migrations, 1);
            worker = now_on;
        }
    }
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "2", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(QUANTUM_NS);
}

static void test_errno_follows_a_migrated_thread(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    weft_thread_t ts[MAX_BUSY];
    int n = PER_WORKER * weft_num_workers();
    if (n > MAX_BUSY)
        n = MAX_BUSY;
    for (intptr_t i = 0; i < n; i++)
        assert_int_equal(weft_thread_create(&ts[i], NULL, compute, (void *)i), 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);
    /* Without a migration the test would prove nothing. */
    assert_true(atomic_load(&migrations) > 0);
    assert_int_equal(atomic_load(&mismatches), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errno_follows_a_migrated_thread),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
