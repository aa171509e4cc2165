/* weft_mutex_lock_or_post: run a continuation under a mutex now if it is
 * free, else hand it to the holder, who runs it when it unlocks.
 *
 * Design. The posted calls live here, in a table of 64 buckets hashed by
 * the mutex address; each bucket is a FIFO of records guarded by a spin
 * lock. The mutex itself only carries a "posted" state bit (src/sync/,
 * protocol in sync/sync.h): set while it is held, it sends the holder's
 * unlock through run_posted() below, which takes the mutex's records out
 * of their bucket and runs them, the mutex still held.
 *
 * Posting (lock_or_post):
 *   1. trylock; if it works, run what is still posted on the mutex (an
 *      unlock may have left posts to the next owner, sync/sync.h), then
 *      fn, then unlock (which runs what others posted meanwhile); return 1;
 *   2. append the record to the bucket, then set the posted bit, which
 *      succeeds only while the mutex is held: then the holder will find the
 *      record (it clears the bit before it looks, and loops while the bit is
 *      set again), and we return 0 without waiting;
 *   3. if the mutex was free by then, nobody may ever unlock it again: take
 *      the record back and start over. If a holder took the record first,
 *      it runs it: return 0. The record is looked for by address and by a
 *      ticket drawn before it was appended: a holder may have run and
 *      freed it, and malloc given the address to someone else's record.
 * So a record is taken out of its bucket exactly once, under the bucket
 * lock, by a runner (which runs it) or by its poster (who retries): no post
 * is lost, none runs twice. A poster retries only when the mutex changed
 * hands under it, so the loop ends as soon as the mutex is free or held
 * long enough for one CAS.
 *
 * Rejected alternatives: a list head inside weft_mutex_t would avoid the
 * hash, but changes the public type's size and every static initializer;
 * a lock-free stack per bucket cannot remove one record (step 3) without
 * ABA trouble, and runs the posts in reverse order.
 *
 * Cost: the free path is a trylock + unlock (~20 ns); a post is a malloc,
 * a bucket lock and one CAS (~60 ns), instead of blocking (two context
 * switches and a wait as long as the holder keeps the mutex).
 *
 * Locks: bucket.lock guards the bucket's list and the records in it. A
 * record outside every bucket belongs to whoever took it out.
 */
#include <stdint.h>
#include <stdlib.h>
#include <weft/cont.h>

#include "sched/sched.h"
#include "sync/sync.h"

#define NBUCKETS 64

typedef struct post_rec {
    struct post_rec *next;
    weft_mutex_t *m;
    weft_cont_fn fn;
    void *arg;
    uint64_t ticket; /* unique per append: see retract() */
} post_rec;

typedef struct bucket {
    int lock;
    post_rec *head, *tail;
} __attribute__((aligned(64))) bucket;

static bucket table[NBUCKETS];
static int runner_set;       /* atomic */
static uint64_t next_ticket; /* atomic */

static bucket *bucket_of(const weft_mutex_t *m)
{
    uintptr_t h = (uintptr_t)m;
    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15u;
    return &table[(h >> 32) % NBUCKETS];
}

/* ------------------------------------------------------ bucket lists */

/* head is also read without the lock (may_hold_posts), hence atomic. */
static void set_head(bucket *b, post_rec *r)
{
    __atomic_store_n(&b->head, r, __ATOMIC_RELAXED);
}

static void append(bucket *b, post_rec *r)
{
    r->next = NULL;
    wf_lock(&b->lock);
    if (b->tail)
        b->tail->next = r;
    else
        set_head(b, r);
    b->tail = r;
    wf_unlock(&b->lock);
}

/* Unlink `r` (prev is its predecessor or NULL). Lock held. */
static void unlink_rec(bucket *b, post_rec *prev, post_rec *r)
{
    if (prev)
        prev->next = r->next;
    else
        set_head(b, r->next);
    if (b->tail == r)
        b->tail = prev;
}

/* Take `r` out of its bucket if it is still there: 1 if it was. A runner
 * that took r may have run and freed it, and a new record may have been
 * allocated at the same address since: the ticket tells them apart. */
static int retract(bucket *b, post_rec *r, uint64_t ticket)
{
    post_rec *prev = NULL, *p;
    wf_lock(&b->lock);
    for (p = b->head; p && !(p == r && p->ticket == ticket); p = p->next)
        prev = p;
    if (p)
        unlink_rec(b, prev, p);
    wf_unlock(&b->lock);
    return p != NULL;
}

/* Take every record of `m` out of its bucket, in posting order. */
static post_rec *take_all(bucket *b, const weft_mutex_t *m)
{
    post_rec *out = NULL, **tail = &out, *prev = NULL, *p, *next;
    wf_lock(&b->lock);
    for (p = b->head; p; p = next) {
        next = p->next;
        if (p->m != m) {
            prev = p;
            continue;
        }
        unlink_rec(b, prev, p);
        p->next = NULL;
        *tail = p;
        tail = &p->next;
    }
    wf_unlock(&b->lock);
    return out;
}

/* ---------------------------------------------------------- the runner */

/* Called by weft_mutex_unlock(m) with m held and its posted bit cleared. */
static void run_posted(weft_mutex_t *m)
{
    post_rec *r = take_all(bucket_of(m), m);
    while (r) {
        post_rec *next = r->next;
        r->fn(r->arg);
        free(r);
        r = next;
    }
}

static void ensure_runner(void)
{
    if (!__atomic_load_n(&runner_set, __ATOMIC_ACQUIRE)) {
        wf_mutex_set_posted_runner(run_posted); /* idempotent */
        __atomic_store_n(&runner_set, 1, __ATOMIC_RELEASE);
    }
}

/* ------------------------------------------------------------ the call */

/* The caller holds `m`. Records an unlock handed over (see sync/sync.h)
 * are in m's bucket: its release happened before our acquisition, so this
 * unlocked test sees them; other mutexes' records only cost a scan. */
static int may_hold_posts(const weft_mutex_t *m)
{
    return __atomic_load_n(&bucket_of(m)->head, __ATOMIC_RELAXED) != NULL;
}

/* Run fn now, m held: after what was posted before, so that one thread's
 * calls keep their order. */
static int run_now(weft_mutex_t *m, weft_cont_fn fn, void *arg, post_rec *r)
{
    free(r);
    if (may_hold_posts(m))
        run_posted(m);
    fn(arg);
    weft_mutex_unlock(m);
    return 1;
}

int weft_mutex_lock_or_post(weft_mutex_t *m, weft_cont_fn fn, void *arg)
{
    if (!m || !fn)
        return WEFT_EINVAL;
    if (weft_mutex_trylock(m) == 0)
        return run_now(m, fn, arg, NULL);
    ensure_runner();
    post_rec *r = malloc(sizeof *r);
    if (!r)
        return WEFT_ENOMEM;
    r->m = m;
    r->fn = fn;
    r->arg = arg;
    bucket *b = bucket_of(m);
    for (;;) {
        uint64_t ticket = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_RELAXED);
        r->ticket = ticket;
        append(b, r); /* from here on r may be run and freed by a holder */
        if (wf_mutex_mark_posted(m))
            return 0;
        if (!retract(b, r, ticket))
            return 0; /* a holder took it: it runs there */
        if (weft_mutex_trylock(m) == 0)
            return run_now(m, fn, arg, r);
    }
}
