/* A rank's queue of earth tasks (earth_pool.c). Not locked: the rank's
 * lock guards it (earth_rank.c). */
#ifndef BENCH_EARTH_POOL_H
#define BENCH_EARTH_POOL_H

#include "earth.h"

typedef struct earth_pool {
    earth_task *v;
    int head, tail, cap; /* tasks are v[head..tail-1], oldest first */
} earth_pool;

void earth_pool_init(earth_pool *p);
void earth_pool_fini(earth_pool *p);
int earth_pool_size(const earth_pool *p);
/* Queue t as the newest task; 0, or -1 if memory ran out. */
int earth_pool_push(earth_pool *p, const earth_task *t);
/* Take the newest task into *t; 1 if there was one, else 0. */
int earth_pool_pop(earth_pool *p, earth_task *t);
/* Take the oldest half (rounded up, at most max) into out; the count. */
int earth_pool_take_half(earth_pool *p, earth_task *out, int max);

#endif /* BENCH_EARTH_POOL_H */
