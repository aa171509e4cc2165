/* weft_mutex_lock_or_post never loses a post under contention, never runs
 * one twice, and always runs it with the mutex held.
 *
 * Phase 1 (deterministic): while main holds the mutex, every poster's call
 * returns 0 (posted) without blocking; each call runs exactly once, at
 * main's unlock, by main, before the mutex is free again.
 * Phase 2 (contention): ULTs on every worker (100 us quantum) mix
 * lock_or_post with plain lock/unlock that sometimes yields or waits on a
 * condition variable while holding the mutex, so that posts race with
 * every way the mutex is released (fast unlock, wake of a waiter, hand-off
 * in starvation mode, cond_wait's unlock), and external pthreads post
 * too. Every call has its own record; the shared counter is a plain long
 * incremented only by the continuations and the lockers, so a run outside
 * the mutex would show as a lost update. At the end every record ran once,
 * each run saw the mutex held, and the counter is exact.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <weft.h>

#define NPOSTERS   8
#define NEXTERNAL  2
#define NLOCKERS   4
#define NCALLS     10000
#define NLOCKS     10000

typedef struct rec {
    atomic_int runs;
    int saw_unlocked; /* trylock inside the continuation succeeded */
    weft_thread_t runner;
} rec;

static weft_mutex_t m = WEFT_MUTEX_INITIALIZER;
static weft_cond_t cv = WEFT_COND_INITIALIZER;
static long counter; /* guarded by m */
static atomic_int bad_rc, posted_calls;

static void add_one(void *arg)
{
    rec *r = arg;
    if (weft_mutex_trylock(&m) == 0) {
        r->saw_unlocked = 1;
        weft_mutex_unlock(&m);
    }
    counter++;
    r->runner = weft_thread_self();
    atomic_fetch_add(&r->runs, 1);
}

static void check_recs(rec *recs, int n)
{
    for (int i = 0; i < n; i++) {
        assert_int_equal(atomic_load(&recs[i].runs), 1);
        assert_int_equal(recs[i].saw_unlocked, 0);
    }
}

/* ------------------------------------------------- phase 1: posted */

static rec held_recs[NPOSTERS];
static atomic_int posted_rc0;

static void *post_once(void *arg)
{
    if (weft_mutex_lock_or_post(&m, add_one, arg) == 0)
        atomic_fetch_add(&posted_rc0, 1);
    return NULL;
}

static void test_posts_run_at_holders_unlock(void **state)
{
    (void)state;
    weft_thread_t t[NPOSTERS];
    counter = 0;
    assert_int_equal(weft_mutex_lock(&m), 0);
    for (int i = 0; i < NPOSTERS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, post_once, &held_recs[i]), 0);
    for (int i = 0; i < NPOSTERS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0); /* none blocked */
    assert_int_equal(atomic_load(&posted_rc0), NPOSTERS);
    assert_int_equal(counter, 0);
    assert_int_equal(weft_mutex_unlock(&m), 0);
    assert_int_equal(counter, NPOSTERS);
    check_recs(held_recs, NPOSTERS);
    for (int i = 0; i < NPOSTERS; i++)
        assert_ptr_equal(held_recs[i].runner, weft_thread_self());
}

/* --------------------------------------------- phase 2: contention */

static rec recs[NPOSTERS + NEXTERNAL][NCALLS];
static atomic_int lockers_left;

static void *post_many(void *arg)
{
    rec *mine = arg;
    for (int i = 0; i < NCALLS; i++) {
        int rc = weft_mutex_lock_or_post(&m, add_one, &mine[i]);
        if (rc != 0 && rc != 1)
            atomic_fetch_add(&bad_rc, 1);
        else if (rc == 0)
            atomic_fetch_add(&posted_calls, 1);
        if (i % 16 == 0)
            weft_thread_yield();
    }
    return NULL;
}

static void *external_post_many(void *arg)
{
    return post_many(arg);
}

/* Hold the mutex in various ways; the last one out wakes cond waiters. */
static void *locker(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < NLOCKS; i++) {
        weft_mutex_lock(&m);
        counter++;
        if (i % 7 == 0)
            weft_thread_yield(); /* hold it while others run */
        if (i % 101 == 0 && atomic_load(&lockers_left) > 1)
            weft_cond_wait(&cv, &m); /* cond_wait's own unlock */
        if (i % 50 == (int)id)
            weft_cond_broadcast(&cv);
        weft_mutex_unlock(&m);
    }
    weft_mutex_lock(&m);
    atomic_fetch_sub(&lockers_left, 1);
    weft_cond_broadcast(&cv);
    weft_mutex_unlock(&m);
    return NULL;
}

/* Keeps waking cond waiters until every locker is done. */
static void *waker(void *arg)
{
    (void)arg;
    while (atomic_load(&lockers_left) > 0) {
        weft_cond_broadcast(&cv);
        weft_thread_yield();
    }
    return NULL;
}

static void test_no_post_lost_under_contention(void **state)
{
    (void)state;
    weft_thread_t p[NPOSTERS], l[NLOCKERS], w;
    pthread_t ext[NEXTERNAL];
    counter = 0;
    atomic_store(&lockers_left, NLOCKERS);
    assert_int_equal(weft_set_quantum(100000), 0);
    assert_int_equal(weft_thread_create(&w, NULL, waker, NULL), 0);
    for (int i = 0; i < NLOCKERS; i++)
        assert_int_equal(weft_thread_create(&l[i], NULL, locker, (void *)(long)i), 0);
    for (int i = 0; i < NPOSTERS; i++)
        assert_int_equal(weft_thread_create(&p[i], NULL, post_many, recs[i]), 0);
    for (int i = 0; i < NEXTERNAL; i++)
        assert_int_equal(pthread_create(&ext[i], NULL, external_post_many,
                                        recs[NPOSTERS + i]), 0);
    for (int i = 0; i < NPOSTERS; i++)
        assert_int_equal(weft_thread_join(p[i], NULL), 0);
    for (int i = 0; i < NEXTERNAL; i++)
        assert_int_equal(pthread_join(ext[i], NULL), 0);
    for (int i = 0; i < NLOCKERS; i++)
        assert_int_equal(weft_thread_join(l[i], NULL), 0);
    assert_int_equal(weft_thread_join(w, NULL), 0);
    /* Every holder has unlocked: nothing may still be pending. */
    assert_int_equal(atomic_load(&bad_rc), 0);
    for (int i = 0; i < NPOSTERS + NEXTERNAL; i++)
        check_recs(recs[i], NCALLS);
    assert_int_equal(counter, (long)(NPOSTERS + NEXTERNAL) * NCALLS +
                              (long)NLOCKERS * NLOCKS);
    assert_int_equal(weft_mutex_destroy(&m), 0);
    print_message("calls posted to a holder: %d of %d\n", atomic_load(&posted_calls),
                  (NPOSTERS + NEXTERNAL) * NCALLS);
}

static void test_einval(void **state)
{
    (void)state;
    assert_int_equal(weft_mutex_lock_or_post(NULL, add_one, NULL), WEFT_EINVAL);
    assert_int_equal(weft_mutex_lock_or_post(&m, NULL, NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posts_run_at_holders_unlock),
        cmocka_unit_test(test_no_post_lost_under_contention),
        cmocka_unit_test(test_einval),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
