/* wf_lock: a waiter behind a holder that does not release sleeps in the
 * kernel (it gives its CPU to the holder, which may need that very CPU),
 * the release wakes it, and the lock stays exclusive under contention.
 *
 * 1. A holder keeps the lock; a waiter thread calls wf_lock. The waiter
 *    must end up asleep (state S in /proc), the lock word marked 2, and
 *    acquire as soon as the holder releases. With a spinning or yielding
 *    waiter the thread stays runnable (R) and the test fails.
 * 2. Four threads increment a counter under the lock; every 64th section
 *    holds it for 50 us, so waiters go to sleep often. The total must be
 *    exact, and no wake may be lost (a lost one hangs: CTest's limit).
 * 3. wf_trylock on a lock held with sleepers fails and leaves the mark,
 *    so the release still wakes them.
 * 4. The same lock without the critical section (wf_lock_acquire, the run
 *    queues'): a waiter behind a holder that does not release sleeps the
 *    same way (state S, the word marked 2), and takes the lock once it is
 *    released.
 */
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sched/sched_internal.h"

#define WAIT_LIMIT_MS 10000

static int lock_word;
static atomic_int waiter_tid, waiter_has_lock;

static void sleep_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

/* The scheduler state letter of one of this process's threads. */
static char thread_state(int tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' ? close_paren[2] : '?';
}

/* The waiter: takes the lock once, with wf_lock (arg NULL) or with
 * wf_lock_acquire (arg non-NULL). */
static void *take_lock(void *raw)
{
    atomic_store(&waiter_tid, (int)syscall(SYS_gettid));
    if (raw)
        wf_lock_acquire(&lock_word);
    else
        wf_lock(&lock_word);
    atomic_store(&waiter_has_lock, 1);
    if (raw)
        wf_lock_release(&lock_word);
    else
        wf_unlock(&lock_word);
    return NULL;
}

/* Poll until the waiter sleeps on the marked lock; 1 if it did in time. */
static int waiter_sleeps_on(int marked_word)
{
    for (int ms = 0; ms < WAIT_LIMIT_MS; ms++) {
        int tid = atomic_load(&waiter_tid);
        if (tid && __atomic_load_n(&lock_word, __ATOMIC_SEQ_CST) == marked_word &&
            thread_state(tid) == 'S')
            return 1;
        sleep_us(1000);
    }
    return 0;
}

static int waiter_sleeps(void)
{
    return waiter_sleeps_on(2);
}

/* Take the lock, start a waiter for it and see it fall asleep. */
static void hold_with_sleeping_waiter(pthread_t *t)
{
    atomic_store(&waiter_tid, 0);
    atomic_store(&waiter_has_lock, 0);
    wf_lock(&lock_word);
    assert_int_equal(pthread_create(t, NULL, take_lock, NULL), 0);
    assert_true(waiter_sleeps());
}

static void test_waiter_sleeps_until_release(void **state)
{
    (void)state;
    pthread_t t;
    hold_with_sleeping_waiter(&t);
    assert_int_equal(atomic_load(&waiter_has_lock), 0);
    wf_unlock(&lock_word);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&waiter_has_lock), 1);
    assert_int_equal(lock_word, 0);
}

#define CONTENDERS 4
#define ROUNDS 20000
#define LONG_EVERY 64

static long counter;

static void *increment(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        wf_lock(&lock_word);
        long seen = counter;
        if (i % LONG_EVERY == 0)
            sleep_us(50);
        counter = seen + 1;
        wf_unlock(&lock_word);
    }
    return NULL;
}

static void test_exclusive_under_contention(void **state)
{
    (void)state;
    pthread_t t[CONTENDERS];
    counter = 0;
    for (int i = 0; i < CONTENDERS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, increment, NULL), 0);
    for (int i = 0; i < CONTENDERS; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_int_equal(counter, (long)CONTENDERS * ROUNDS);
    assert_int_equal(lock_word, 0);
}

static void test_trylock_keeps_sleepers_mark(void **state)
{
    (void)state;
    pthread_t t;
    hold_with_sleeping_waiter(&t);
    assert_int_equal(wf_trylock(&lock_word), 0);
    assert_int_equal(__atomic_load_n(&lock_word, __ATOMIC_SEQ_CST), 2);
    wf_unlock(&lock_word);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&waiter_has_lock), 1);
}

static void test_acquire_waiter_sleeps(void **state)
{
    (void)state;
    pthread_t t;
    atomic_store(&waiter_tid, 0);
    atomic_store(&waiter_has_lock, 0);
    wf_lock_acquire(&lock_word);
    assert_int_equal(pthread_create(&t, NULL, take_lock, &lock_word), 0);
    assert_true(waiter_sleeps_on(2));
    assert_int_equal(atomic_load(&waiter_has_lock), 0);
    wf_lock_release(&lock_word);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(atomic_load(&waiter_has_lock), 1);
    assert_int_equal(lock_word, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waiter_sleeps_until_release),
        cmocka_unit_test(test_exclusive_under_contention),
        cmocka_unit_test(test_trylock_keeps_sleepers_mark),
        cmocka_unit_test(test_acquire_waiter_sleeps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
