/* The paper's first continuation example: a shared buffer pool whose
 * releases are continuations.
 *
 * "It is not crucial for a thread that is releasing a buffer to actually
 * wait until the buffer is placed in the shared pool": a thread takes a
 * buffer with a normal (blocking) lock, because it needs it now, but gives
 * it back with weft_mutex_lock_or_post, so it never waits for the pool
 * lock on the way out. If the pool is locked, the release runs when the
 * holder unlocks; a taker that finds the pool empty waits on a condition
 * variable that the release signals (from inside the continuation).
 *
 * The test: NTHREADS ULTs on every worker take, fill, check and release
 * buffers NCYCLES times each, while an auditor keeps the pool locked for a
 * while now and then (yielding while it holds it, as a preempted holder
 * would), so that many releases are posted. Checked: no buffer is handed
 * to two threads at once (each carries its user's id while in use), every
 * buffer is back in the pool at the end exactly once, and the number of
 * releases is exact.
 */
#include "test_support.h"

#include <stdatomic.h>
#include <string.h>
#include <weft.h>

#define NBUFS     16
#define BUF_BYTES 256
#define NTHREADS  12
#define NCYCLES   2000

/* ------------------------------------------------------ the buffer pool */

typedef struct buffer {
    struct buffer *next;
    struct pool *pool;
    long user; /* who holds it; -1 in the pool */
    unsigned char data[BUF_BYTES];
} buffer;

typedef struct pool {
    weft_mutex_t lock;
    weft_cond_t nonempty;
    buffer *free_list; /* guarded by lock */
    int nfree;
    long releases;
} pool;

static void pool_init(pool *p, buffer *bufs, int n)
{
    weft_mutex_init(&p->lock);
    weft_cond_init(&p->nonempty);
    p->free_list = NULL;
    p->nfree = 0;
    p->releases = 0;
    for (int i = 0; i < n; i++) {
        bufs[i].pool = p;
        bufs[i].user = -1;
        bufs[i].next = p->free_list;
        p->free_list = &bufs[i];
        p->nfree++;
    }
}

/* Taking a buffer must succeed before the caller goes on: it blocks. */
static buffer *pool_get(pool *p, long user)
{
    weft_mutex_lock(&p->lock);
    while (!p->free_list)
        weft_cond_wait(&p->nonempty, &p->lock);
    buffer *b = p->free_list;
    p->free_list = b->next;
    p->nfree--;
    weft_mutex_unlock(&p->lock);
    b->user = user;
    return b;
}

/* The continuation: runs with the pool lock held, now or at unlock. */
static void put_back(void *arg)
{
    buffer *b = arg;
    pool *p = b->pool;
    b->next = p->free_list;
    p->free_list = b;
    p->nfree++;
    p->releases++;
    weft_cond_signal(&p->nonempty);
}

/* Giving a buffer back need not wait: post the work if the pool is busy. */
static int pool_release(buffer *b)
{
    b->user = -1;
    return weft_mutex_lock_or_post(&b->pool->lock, put_back, b);
}

/* ------------------------------------------------------------ the test */

static pool the_pool;
static buffer bufs[NBUFS];
static atomic_int clobbered, bad_rc, posted, threads_left;

static void *worker(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < NCYCLES; i++) {
        buffer *b = pool_get(&the_pool, id);
        memset(b->data, (int)(id & 0xff), sizeof b->data);
        if (i % 5 == 0)
            weft_thread_yield();
        if (b->user != id || b->data[0] != (id & 0xff) ||
            b->data[BUF_BYTES - 1] != (id & 0xff))
            atomic_fetch_add(&clobbered, 1);
        int rc = pool_release(b);
        if (rc < 0)
            atomic_fetch_add(&bad_rc, 1);
        else if (rc == 0)
            atomic_fetch_add(&posted, 1);
    }
    atomic_fetch_sub(&threads_left, 1);
    return NULL;
}

/* Holds the pool lock for a few yields now and then. */
static void *auditor(void *arg)
{
    (void)arg;
    while (atomic_load(&threads_left) > 0) {
        weft_mutex_lock(&the_pool.lock);
        for (int k = 0; k < 3; k++)
            weft_thread_yield();
        weft_mutex_unlock(&the_pool.lock);
        weft_thread_yield();
    }
    return NULL;
}

static void test_buffer_pool_release_by_continuation(void **state)
{
    (void)state;
    weft_thread_t t[NTHREADS], a;
    pool_init(&the_pool, bufs, NBUFS);
    atomic_store(&threads_left, NTHREADS);
    assert_int_equal(weft_thread_create(&a, NULL, auditor, NULL), 0);
    for (long i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_create(&t[i], NULL, worker, (void *)i), 0);
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(weft_thread_join(t[i], NULL), 0);
    assert_int_equal(weft_thread_join(a, NULL), 0);

    assert_int_equal(atomic_load(&clobbered), 0);
    assert_int_equal(atomic_load(&bad_rc), 0);
    assert_int_equal(the_pool.releases, (long)NTHREADS * NCYCLES);
    assert_int_equal(the_pool.nfree, NBUFS);
    int seen[NBUFS] = {0};
    for (buffer *b = the_pool.free_list; b; b = b->next) {
        assert_in_range(b - bufs, 0, NBUFS - 1);
        seen[b - bufs]++;
    }
    for (int i = 0; i < NBUFS; i++)
        assert_int_equal(seen[i], 1);
    print_message("releases posted to the holder: %d of %d\n",
                  atomic_load(&posted), NTHREADS * NCYCLES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffer_pool_release_by_continuation),
    };
    return cmocka_run_group_tests(tests, wt_runtime_setup, wt_runtime_teardown);
}
