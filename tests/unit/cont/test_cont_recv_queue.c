/* The paper's second continuation example: a receive thread posts incoming
 * messages to a locked receive queue without ever waiting for the lock.
 *
 * "When the receive thread finds the receive-queue locked by another
 * thread, it creates a continuation that will post its message when the
 * lock is eventually released", so it keeps serving a burst of arrivals
 * even while an application thread holding the queue lock is suspended.
 *
 * The test: one receive thread delivers NMSGS numbered messages with
 * weft_mutex_lock_or_post; NCONSUMERS application threads take them from
 * the queue under its lock (waiting on a condition variable when it is
 * empty) and sometimes keep the lock across a yield, as a suspended holder
 * would. Checked: every message is consumed exactly once, and in the order
 * it was received (a thread's posts on one mutex run in the order it made
 * them, whether they ran at once or at a holder's unlock); the receive
 * thread never failed to post.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <weft.h>

#define NMSGS      20000
#define NCONSUMERS 6

/* ------------------------------------------------- the receive queue */

typedef struct msg {
    struct msg *next;
    struct rqueue *q;
    long seq;
} msg;

typedef struct rqueue {
    weft_mutex_t lock;
    weft_cond_t ready;
    msg *head, *tail; /* guarded by lock */
    long enqueued;
} rqueue;

/* The continuation: append under the queue lock, wake a consumer. */
static void enqueue(void *arg)
{
    msg *m = arg;
    rqueue *q = m->q;
    m->next = NULL;
    if (q->tail)
        q->tail->next = m;
    else
        q->head = m;
    q->tail = m;
    q->enqueued++;
    weft_cond_signal(&q->ready);
}

/* ------------------------------------------------------------ the test */

static rqueue rq = { WEFT_MUTEX_INITIALIZER, WEFT_COND_INITIALIZER, NULL, NULL, 0 };
static msg msgs[NMSGS];
static long consumed, out_of_order, last_seq = -1; /* guarded by rq.lock */
static int times_consumed[NMSGS];                  /* guarded by rq.lock */
static atomic_int post_failed, posted;

static void *receiver(void *arg)
{
    (void)arg;
    for (long i = 0; i < NMSGS; i++) {
        msgs[i].q = &rq;
        msgs[i].seq = i;
        int rc = weft_mutex_lock_or_post(&rq.lock, enqueue, &msgs[i]);
        if (rc < 0)
            atomic_fetch_add(&post_failed, 1);
        else if (rc == 0)
            atomic_fetch_add(&posted, 1);
        if (i % 64 == 0)
            weft_thread_yield(); /* the next burst */
    }
    return NULL;
}

static void take_one_locked(void)
{
    msg *m = rq.head;
    rq.head = m->next;
    if (!rq.head)
        rq.tail = NULL;
    if (m->seq != last_seq + 1)
        out_of_order++;
    last_seq = m->seq;
    times_consumed[m->seq]++;
    consumed++;
}

static void *consumer(void *arg)
{
    long id = (long)arg;
    weft_mutex_lock(&rq.lock);
    for (long n = 0;; n++) {
        while (!rq.head && consumed < NMSGS)
            weft_cond_wait(&rq.ready, &rq.lock);
        if (consumed == NMSGS)
            break;
        take_one_locked();
        if ((n + id) % 9 == 0)
            weft_thread_yield(); /* suspended while holding the queue */
        if (n % 4 == 0) {
            weft_mutex_unlock(&rq.lock);
            weft_thread_yield();
            weft_mutex_lock(&rq.lock);
        }
    }
    weft_cond_broadcast(&rq.ready); /* the others see consumed == NMSGS */
    weft_mutex_unlock(&rq.lock);
    return NULL;
}

static void test_receive_queue_post_by_continuation(void **state)
{
    (void)state;
    weft_thread_t r, c[NCONSUMERS];
    for (long i = 0; i < NCONSUMERS; i++)
        assert_int_equal(weft_thread_create(&c[i], NULL, consumer, (void *)i), 0);
    assert_int_equal(weft_thread_create(&r, NULL, receiver, NULL), 0);
    assert_int_equal(weft_thread_join(r, NULL), 0);
    for (int i = 0; i < NCONSUMERS; i++)
        assert_int_equal(weft_thread_join(c[i], NULL), 0);

    assert_int_equal(atomic_load(&post_failed), 0);
    assert_int_equal(rq.enqueued, NMSGS);
    assert_int_equal(consumed, NMSGS);
    assert_int_equal(out_of_order, 0);
    for (int i = 0; i < NMSGS; i++)
        assert_int_equal(times_consumed[i], 1);
    assert_null(rq.head);
    print_message("messages posted to the holder: %d of %d\n",
                  atomic_load(&posted), NMSGS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_receive_queue_post_by_continuation),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
