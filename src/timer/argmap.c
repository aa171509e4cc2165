/* The argument map of a timer queue: pending events by argument, for
 * ARIADNE's "cancel the earliest event whose parameter is p" (a_cnclevnt_rt,
 * a_cnclevnt_vt; weft_event_cancel_arg).
 *
 * Design. A hash table of intrusive singly linked chains (each event holds
 * `hnext`), keyed by the argument pointer, new events at the head. Add is
 * O(1) and touches only the bucket; delete walks its bucket's chain to the
 * event, which is O(1) average (load factor <= 1) and touches nothing but
 * the bucket for an event added recently (the common "arm a timeout, cancel
 * it when the wait ends" pattern). A doubly linked chain would make delete
 * O(1) in the worst case but write the neighbouring (cold) event on every
 * add and delete: one more cache miss per operation at 1 M pending, ~30 %
 * of the cost there. Finding the earliest event of an argument scans its
 * chain: O(1) average for distinct arguments, O(k) for k events sharing
 * one argument (1 M events all with arg NULL make cancel_arg(NULL), and a
 * delete of one of them, scan up to 1 M; add stays O(1)). Rejected: ARIADNE's scan of the whole queue (O(n)
 * per cancel); a per-argument heap (O(log k) cancel, but an allocation per
 * new argument on every insert, which is the common, hot path).
 *
 * Resizing is incremental (as Redis' dict): the table doubles when it holds
 * as many events as buckets and halves below 1/8; while a resize runs both
 * tables live, every add or delete moves up to MOVE_PER_OP buckets, and a
 * bucket b of the old table is in the new one iff b < moved. So no single
 * operation ever rehashes a million events under the queue lock (that
 * would stall every worker that wants the lock for ~50 ms). A failed
 * allocation just postpones the resize (chains get longer).
 *
 * Memory: 8 bytes per bucket, 1-2 buckets per pending event (16 MB for
 * 1 M events during a resize). Guarded by the queue lock.
 */
#include <stdlib.h>
#include <string.h>

#include "timer/timer_int.h"

#define MIN_BUCKETS 64
#define MOVE_PER_OP 4
#define VISIT_PER_OP 64

static uint64_t hash(const void *arg)
{
    uint64_t x = (uint64_t)(uintptr_t)arg;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static struct weft_event **slot_of(wf_argmap *m, const void *arg)
{
    uint64_t h = hash(arg), b = h & m->mask[0];
    if (m->tab[1] && b < m->moved)
        return &m->tab[1][h & m->mask[1]];
    return &m->tab[0][b];
}

static void link_at(struct weft_event **slot, struct weft_event *e)
{
    e->hnext = *slot;
    *slot = e;
}

static void unlink_event(wf_argmap *m, struct weft_event *e)
{
    struct weft_event **p = slot_of(m, e->arg);
    while (*p != e)
        p = &(*p)->hnext;
    *p = e->hnext;
    e->hnext = NULL;
}

static void finish_resize(wf_argmap *m)
{
    free(m->tab[0]);
    m->tab[0] = m->tab[1];
    m->mask[0] = m->mask[1];
    m->tab[1] = NULL;
    m->moved = 0;
}

/* Move a few buckets of a running resize. */
static void step(wf_argmap *m)
{
    if (!m->tab[1])
        return;
    for (int moved = 0, visited = 0; moved < MOVE_PER_OP && visited < VISIT_PER_OP; visited++) {
        if (m->moved > m->mask[0]) {
            finish_resize(m);
            return;
        }
        struct weft_event *e = m->tab[0][m->moved];
        moved += e != NULL;
        while (e) {
            struct weft_event *next = e->hnext;
            link_at(&m->tab[1][hash(e->arg) & m->mask[1]], e);
            e = next;
        }
        m->tab[0][m->moved++] = NULL;
    }
}

static void start_resize(wf_argmap *m, uint64_t buckets)
{
    struct weft_event **t = calloc(buckets, sizeof *t);
    if (!t)
        return;
    m->tab[1] = t;
    m->mask[1] = buckets - 1;
    m->moved = 0;
}

int wf_argmap_add(wf_argmap *m, struct weft_event *e)
{
    if (!m->tab[0]) {
        m->tab[0] = calloc(MIN_BUCKETS, sizeof *m->tab[0]);
        if (!m->tab[0])
            return WEFT_ENOMEM;
        m->mask[0] = MIN_BUCKETS - 1;
    }
    step(m);
    if (!m->tab[1] && m->count > m->mask[0])
        start_resize(m, 2 * (m->mask[0] + 1));
    link_at(slot_of(m, e->arg), e);
    m->count++;
    return 0;
}

void wf_argmap_del(wf_argmap *m, struct weft_event *e)
{
    unlink_event(m, e);
    m->count--;
    step(m);
    uint64_t buckets = m->mask[0] + 1;
    if (!m->tab[1] && buckets > MIN_BUCKETS && m->count < buckets / 8)
        start_resize(m, buckets / 2);
}

static int earlier(const struct weft_event *a, const struct weft_event *b)
{
    return a->node.deadline < b->node.deadline ||
           (a->node.deadline == b->node.deadline && a->node.seq < b->node.seq);
}

struct weft_event *wf_argmap_earliest(wf_argmap *m, void *arg)
{
    if (!m->tab[0] || m->count == 0)
        return NULL;
    struct weft_event *best = NULL;
    for (struct weft_event *e = *slot_of(m, arg); e; e = e->hnext)
        if (e->arg == arg && (!best || earlier(e, best)))
            best = e;
    return best;
}

void wf_argmap_free(wf_argmap *m)
{
    free(m->tab[0]);
    free(m->tab[1]);
    memset(m, 0, sizeof *m);
}
