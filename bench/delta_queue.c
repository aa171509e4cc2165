/* ARIADNE's delta queue (see delta_queue.h), for bench/timer_scale.
 *
 * Invariant: the absolute expiry of a node is q->base + the sum of the
 * deltas from head.next up to and including it; deltas are >= 0. (A real
 * delta queue also advances base as time passes, shrinking the first
 * delta; the benchmark's times are all in the future, so base stays.) The tail's
 * absolute time is cached (tail_abs) so that appends are O(1); inserts and
 * cancels keep it exact.
 */
#include "delta_queue.h"

#include <stddef.h>

void dq_init(delta_queue *q, int64_t base)
{
    q->head.prev = q->head.next = NULL;
    q->head.delta = 0;
    q->tail = &q->head;
    q->base = base;
    q->tail_abs = base;
    q->n = 0;
}

static void link_after(delta_queue *q, dq_node *p, dq_node *x)
{
    x->prev = p;
    x->next = p->next;
    if (x->next)
        x->next->prev = x;
    else
        q->tail = x;
    p->next = x;
    q->n++;
}

void dq_insert(delta_queue *q, dq_node *x, int64_t when)
{
    if (when >= q->tail_abs) {
        dq_append(q, x, when);
        return;
    }
    int64_t rem = when - q->base;
    dq_node *p = &q->head;
    while (p->next && rem >= p->next->delta) {
        rem -= p->next->delta;
        p = p->next;
    }
    x->delta = rem;
    if (p->next)
        p->next->delta -= rem;
    link_after(q, p, x);
}

void dq_append(delta_queue *q, dq_node *x, int64_t when)
{
    x->delta = when - q->tail_abs;
    q->tail_abs = when;
    link_after(q, q->tail, x);
}

void dq_cancel(delta_queue *q, dq_node *x)
{
    if (x->next)
        x->next->delta += x->delta;
    else
        q->tail_abs -= x->delta;
    x->prev->next = x->next;
    if (x->next)
        x->next->prev = x->prev;
    else
        q->tail = x->prev;
    x->prev = x->next = NULL;
    q->n--;
}
