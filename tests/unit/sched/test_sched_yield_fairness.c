/* Yield fairness: on one worker, K threads of equal priority that yield in
 * a loop run round-robin: every round holds each thread exactly once, in
 * the same order every round. A thread that yields with nobody else
 * runnable gets control straight back.
 *
 * Set-up: WEFT_WORKERS=1 and preemption off, so that only weft_thread_yield
 * decides who runs next (a time slice could requeue a thread between its
 * record and its yield, which would make the order depend on timing).
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <weft.h>

#define K      5
#define ROUNDS 200

static atomic_int seq_len;
static int seq[K * ROUNDS];

static void *yield_loop(void *arg)
{
    for (int r = 0; r < ROUNDS; r++) {
        int pos = atomic_fetch_add(&seq_len, 1);
        if (pos < K * ROUNDS)
            seq[pos] = (int)(intptr_t)arg;
        weft_thread_yield();
    }
    return NULL;
}

static int setup(void **state)
{
    setenv("WEFT_WORKERS", "1", 1);
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(0);
}

/* 1 if round r of seq is a permutation of 0..K-1. */
static int round_is_permutation(int r)
{
    int seen[K] = {0};
    for (int i = 0; i < K; i++) {
        int id = seq[r * K + i];
        if (id < 0 || id >= K || seen[id]++)
            return 0;
    }
    return 1;
}

static void test_round_robin(void **state)
{
    (void)state;
    weft_thread_t ts[K];

    assert_int_equal(weft_num_workers(), 1);
    atomic_store(&seq_len, 0);
    for (intptr_t i = 0; i < K; i++)
        assert_int_equal(weft_thread_create(&ts[i], NULL, yield_loop,
                                            (void *)i), 0);
    for (int i = 0; i < K; i++)
        assert_int_equal(weft_thread_join(ts[i], NULL), 0);

    assert_int_equal(atomic_load(&seq_len), K * ROUNDS);
    for (int r = 0; r < ROUNDS; r++) {
        if (!round_is_permutation(r) ||
            memcmp(&seq[r * K], &seq[0], K * sizeof seq[0]) != 0) {
            print_message("round %d: %d %d %d %d %d\n", r, seq[r * K],
                          seq[r * K + 1], seq[r * K + 2], seq[r * K + 3],
                          seq[r * K + 4]);
            fail_msg("round %d is not the same permutation as round 0", r);
        }
    }
    /* threads start in creation order (FIFO within a level) */
    for (int i = 0; i < K; i++)
        assert_int_equal(seq[i], i);
}

static void test_yield_alone_returns(void **state)
{
    (void)state;
    weft_thread_t me = weft_thread_self();

    for (int i = 0; i < 10000; i++)
        weft_thread_yield();
    assert_ptr_equal(weft_thread_self(), me);
    assert_int_equal(weft_worker_id(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_robin),
        cmocka_unit_test(test_yield_alone_returns),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
