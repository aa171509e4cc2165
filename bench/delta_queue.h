/* ARIADNE's delta queue, for bench/timer_scale only: the O(n) structure the
 * paper's timed events use, measured beside Weft's heap. Not part of Weft.
 *
 * A doubly linked list sorted by expiry; each node stores its expiry minus
 * its predecessor's (the "delta"), so the first node's delta is the time
 * to the next expiry. Insert walks from the head summing deltas (O(n));
 * cancel unlinks and gives its delta to its successor (O(1)); appending
 * in increasing order is O(1) from the tail (CLAM's trick for sorted
 * batches, used here only to build a large queue quickly).
 */
#ifndef BENCH_DELTA_QUEUE_H
#define BENCH_DELTA_QUEUE_H

#include <stdint.h>

typedef struct dq_node {
    struct dq_node *prev, *next;
    int64_t delta;
} dq_node;

typedef struct delta_queue {
    dq_node head;     /* sentinel: head.next is the earliest node */
    dq_node *tail;    /* last node, or &head */
    int64_t base;     /* the time the first delta counts from */
    int64_t tail_abs; /* absolute expiry of the tail (base time if empty) */
    int64_t n;
} delta_queue;

/* An empty queue whose times count from `base`. */
void dq_init(delta_queue *q, int64_t base);

/* Insert `x` to expire at absolute time `when` (>= base): walk from the
 * head. O(n). */
void dq_insert(delta_queue *q, dq_node *x, int64_t when);

/* Append `x` at `when`, which must be >= every expiry in the queue. O(1). */
void dq_append(delta_queue *q, dq_node *x, int64_t when);

/* Remove `x` (queued in q). O(1). */
void dq_cancel(delta_queue *q, dq_node *x);

#endif /* BENCH_DELTA_QUEUE_H */
