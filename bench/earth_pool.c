/* A rank's task queue: its own threads take the newest task (depth
 * first, so the queue stays short and the data warm) and a thief takes
 * the oldest half (the largest subtrees, so one message ships much work:
 * the split every work-stealing runtime since Cilk makes). A growable
 * array with a head and a tail; the rank's lock guards it.
 */
#include "earth_pool.h"

#include <stdlib.h>
#include <string.h>

#define POOL_MIN_CAP 64

void earth_pool_init(earth_pool *p)
{
    memset(p, 0, sizeof *p);
}

void earth_pool_fini(earth_pool *p)
{
    free(p->v);
    memset(p, 0, sizeof *p);
}

int earth_pool_size(const earth_pool *p)
{
    return p->tail - p->head;
}

/* Room for one more at the tail: slide the live tasks down, or grow. */
static int make_room(earth_pool *p)
{
    if (p->head > 0) {
        int n = earth_pool_size(p);
        memmove(p->v, p->v + p->head, sizeof *p->v * (size_t)n);
        p->head = 0;
        p->tail = n;
        if (n < p->cap)
            return 0;
    }
    int cap = p->cap ? p->cap * 2 : POOL_MIN_CAP;
    earth_task *v = realloc(p->v, sizeof *v * (size_t)cap);
    if (!v)
        return -1;
    p->v = v;
    p->cap = cap;
    return 0;
}

int earth_pool_push(earth_pool *p, const earth_task *t)
{
    if (p->tail == p->cap && make_room(p) != 0)
        return -1;
    p->v[p->tail++] = *t;
    return 0;
}

int earth_pool_pop(earth_pool *p, earth_task *t)
{
    if (p->tail == p->head)
        return 0;
    *t = p->v[--p->tail];
    if (p->tail == p->head)
        p->head = p->tail = 0;
    return 1;
}

int earth_pool_take_half(earth_pool *p, earth_task *out, int max)
{
    int n = (earth_pool_size(p) + 1) / 2;
    if (n > max)
        n = max;
    memcpy(out, p->v + p->head, sizeof *out * (size_t)n);
    p->head += n;
    if (p->tail == p->head)
        p->head = p->tail = 0;
    return n;
}
