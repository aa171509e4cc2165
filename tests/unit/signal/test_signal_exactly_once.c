/* A signal that arrives while the runtime is in a critical section is
 * delivered exactly once: nothing lost, nothing delivered twice.
 *
 * Hammer ULTs on every worker spend nearly all their time inside runtime
 * critical sections (wf_lock spin sections, weft_mutex_lock/unlock with
 * contention, which queue and wake through the scheduler, and yields),
 * with a 100 us quantum so that preemption ticks keep being deferred too.
 * One waiter ULT counts its wake-ups. A sender ULT sends NSIGS signals, alternately with kill() (the kernel picks a thread) and with
 * pthread_kill() aimed at each worker's kernel thread (so the handler
 * interrupts the hammers in the middle of their critical sections: a probe
 * in the handler, used once while writing this test, found 46 % of the
 * deliveries landing with the worker inside the runtime).
 *
 * The kernel merges a standard signal sent again before the first was
 * handled, so the sender sends signal i+1 only once delivery i has been
 * observed (and, under wake-all, once the waiter is waiting again: a
 * wake-all delivery with no waiter is not kept, by design). Then every
 * send is one delivery, and the test checks that the waiter woke exactly
 * NSIGS times and that weft_sig_count says NSIGS: a lost delivery would
 * stall the sender (caught by the hang guard), a doubled one would show as
 * an extra wake-up (under wake-one, as a pending delivery consumed by the
 * waiter's next wait, before the final check).
 */
#include "test_support.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include <weft.h>

#include "sched/sched.h"

#define NSIGS       1500
#define NHAMMERS    4
#define MAX_WORKERS 64
#define HANG_NS     30000000000LL /* hang guard only, never a timing check */

static pthread_t worker_pt[MAX_WORKERS];
static atomic_int worker_known[MAX_WORKERS];
static atomic_int stop_hammers, observed, sender_failed;
static weft_mutex_t mx = WEFT_MUTEX_INITIALIZER;
static int spin;
static long counter;

static void note_my_worker(void)
{
    int id = weft_worker_id(); /* inside a critical section: stable */
    if (id >= 0 && id < MAX_WORKERS && !atomic_load(&worker_known[id])) {
        worker_pt[id] = pthread_self();
        atomic_store(&worker_known[id], 1);
    }
}

static void busy(int n)
{
    volatile int x = 0;
    for (int k = 0; k < n; k++)
        x += k;
}

static void *hammer(void *arg)
{
    (void)arg;
    for (unsigned i = 0; !atomic_load(&stop_hammers); i++) {
        wf_lock(&spin);
        note_my_worker();
        busy(300);
        wf_unlock(&spin);
        weft_mutex_lock(&mx);
        counter++;
        if (i % 8 == 0)
            weft_thread_yield(); /* others queue on mx meanwhile */
        weft_mutex_unlock(&mx);
    }
    return NULL;
}

static void *waiter(void *arg)
{
    int sig = (int)(long)arg;
    while (weft_sig_wait(sig) == 0)
        atomic_fetch_add(&observed, 1);
    return NULL; /* WEFT_ECANCELED: the signal was cleared */
}

/* ------------------------------------------------------------ sender */

typedef struct send_args {
    int sig;
    int wake_all;
} send_args;

/* Spin (yielding the CPU) until `want` observed deliveries and, if asked,
 * a waiter in place; 0 on success, -1 if the hang guard fired. */
static int wait_for(int want, int need_waiter, int sig)
{
    int64_t end = wt_now_ns() + HANG_NS;
    while (atomic_load(&observed) != want ||
           (need_waiter && weft_sig_waiters(sig) != 1)) {
        if (wt_now_ns() > end)
            return -1;
        weft_thread_yield();
    }
    return 0;
}

static void send_one(int sig, int i)
{
    int nworkers = weft_num_workers();
    int target = i % (nworkers + 1);
    if (target == nworkers || !atomic_load(&worker_known[target]))
        kill(getpid(), sig);
    else
        pthread_kill(worker_pt[target], sig);
}

static void *sender(void *arg)
{
    send_args *a = arg;
    for (int i = 0; i < NSIGS; i++) {
        if (wait_for(i, a->wake_all, a->sig) != 0)
            goto fail;
        send_one(a->sig, i);
    }
    if (wait_for(NSIGS, 1, a->sig) != 0) /* and the waiter waits again */
        goto fail;
    return NULL;
fail:
    atomic_store(&sender_failed, 1);
    return NULL;
}

/* -------------------------------------------------------------- test */

static void run(int sig, int mode)
{
    weft_thread_t h[NHAMMERS], w, s;
    send_args a = {sig, mode == WEFT_SIG_WAKE_ALL};
    atomic_store(&observed, 0);
    atomic_store(&stop_hammers, 0);
    assert_int_equal(weft_sig_set_mode(sig, mode), 0);
    assert_int_equal(weft_sig_set(sig), 0);
    for (int i = 0; i < NHAMMERS; i++)
        assert_int_equal(weft_thread_create(&h[i], NULL, hammer, NULL), 0);
    assert_int_equal(weft_thread_create(&w, NULL, waiter, (void *)(long)sig), 0);
    assert_int_equal(weft_thread_create(&s, NULL, sender, &a), 0);
    assert_int_equal(weft_thread_join(s, NULL), 0);

    assert_int_equal(atomic_load(&sender_failed), 0);
    assert_int_equal(atomic_load(&observed), NSIGS);
    assert_int_equal(weft_sig_count(sig), NSIGS);
    assert_int_equal(weft_sig_clear(sig), 0); /* the waiter returns */
    assert_int_equal(weft_thread_join(w, NULL), 0);
    assert_int_equal(atomic_load(&observed), NSIGS);
    atomic_store(&stop_hammers, 1);
    for (int i = 0; i < NHAMMERS; i++)
        assert_int_equal(weft_thread_join(h[i], NULL), 0);
    assert_int_equal(weft_sig_set_mode(sig, WEFT_SIG_WAKE_ALL), 0);
}

static void test_exactly_once_wake_all(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    run(SIGUSR1, WEFT_SIG_WAKE_ALL);
}

static void test_exactly_once_wake_one(void **state)
{
    (void)state;
    WT_SKIP_UNDER_TSAN();
    run(SIGUSR2, WEFT_SIG_WAKE_ONE);
}

static int setup(void **state)
{
    if (wt_runtime_setup(state) != 0)
        return -1;
    return weft_set_quantum(100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exactly_once_wake_all),
        cmocka_unit_test(test_exactly_once_wake_one),
    };
    return cmocka_run_group_tests(tests, setup, wt_runtime_teardown);
}
