/* weft_cont_post under load: every continuation runs exactly once, on the
 * worker weft_cont_post said it would (the worker the poster was running
 * on), even though the posters migrate between workers, are preempted
 * (100 us quantum) and block while others post.
 *
 * NTHREADS ULTs on every worker post NPOSTS continuations each, yielding,
 * blocking on a shared mutex and computing in between. Each continuation
 * has its own record: the worker it was posted to, how often it ran and
 * where. After the posters are joined, the last continuations may still be
 * waiting for their worker's next switch; main yields until all have run
 * (bounded by a hang guard, never a timing check), then checks each
 * record: ran once, on its worker.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <weft.h>

#define NTHREADS 16
#define NPOSTS   2000
#define HANG_GUARD_NS 20000000000LL

typedef struct rec {
    int posted_on;   /* weft_cont_post's answer */
    atomic_int runs; /* how many times it ran */
    int ran_on;      /* weft_worker_id() when it ran */
} rec;

static rec recs[NTHREADS][NPOSTS];
static atomic_long total_runs;
static weft_mutex_t shared = WEFT_MUTEX_INITIALIZER;
static long shared_counter;

static void mark(void *arg)
{
    rec *r = arg;
    r->ran_on = weft_worker_id();
    atomic_fetch_add(&r->runs, 1);
    atomic_fetch_add(&total_runs, 1);
}

static void spin_a_little(unsigned i)
{
    volatile unsigned x = i;
    for (int k = 0; k < 200; k++)
        x = x * 1103515245u + 12345u;
}

static void *poster(void *arg)
{
    rec *mine = arg;
    for (int i = 0; i < NPOSTS; i++) {
        mine[i].posted_on = weft_cont_post(mark, &mine[i]);
        if (mine[i].posted_on < 0)
            return NULL;
        switch (i % 4) {
        case 0: weft_thread_yield(); break;
        case 1: weft_mutex_lock(&shared); shared_counter++;
                weft_mutex_unlock(&shared); break;
        default: spin_a_little((unsigned)i); break;
        }
    }
    return NULL;
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(100000);
}

static void wait_for_all_runs(long expected)
{
    int64_t end = wt_now_ns() + HANG_GUARD_NS;
    while (atomic_load(&total_runs) < expected && wt_now_ns() < end)
        weft_thread_yield();
}

static void test_each_runs_once_on_its_worker(void **state)
{
    (void)state;
    weft_thread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, poster, recs[i]), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    wait_for_all_runs((long)NTHREADS * NPOSTS);
    for (int i = 0; i < NTHREADS; i++) {
        for (int j = 0; j < NPOSTS; j++) {
            rec *r = &recs[i][j];
            assert_in_range(r->posted_on, 0, weft_num_workers() - 1);
            assert_int_equal(atomic_load(&r->runs), 1);
            assert_int_equal(r->ran_on, r->posted_on);
        }
    }
    assert_int_equal(atomic_load(&total_runs), (long)NTHREADS * NPOSTS);
    assert_int_equal(shared_counter, (long)NTHREADS * (NPOSTS / 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_runs_once_on_its_worker),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
