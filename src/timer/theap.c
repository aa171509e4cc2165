/* The timer heap: a 4-ary min-heap of wf_tnode pointers ordered by
 * (deadline, seq), with each node's slot index stored in the node so that
 * a node is removed by handle in O(log n).
 *
 * Why a heap. Insert, remove-by-handle and pop-min are O(log4 n); the
 * minimum is read in O(1), which is all the switch path needs. For random
 * deadlines the expected sift-up after an insert is O(1) levels and a
 * removal lands near the leaves (3/4 of a 4-ary heap's slots are leaves),
 * so the average cost is nearly flat in n; what grows is cache misses.
 * Rejected: ARIADNE's delta queue (O(n) insert: ~0.5 ms per insert at 1 M
 * pending in bench/timer_scale, against ~100 ns here); a hierarchical
 * timing wheel (O(1) insert, but cascading, a fixed granularity, and no
 * cheap "earliest deadline" for the service thread's exact sleep).
 *
 * Why 4-ary. Half the depth of a binary heap (10 levels at 1 M), and the
 * four children of a slot are one 64-byte cache line: entries are 16 bytes
 * (deadline + pointer) and the array starts 3 entries before a 64-byte
 * boundary, so children 4i+1..4i+4 sit at byte 64(i+1). Comparisons read
 * only the entries, never the nodes (ties, rare, read node->seq).
 *
 * Memory: 16 bytes per pending node, doubled when full (copied into a new
 * aligned block: ~5 ms at 1 M, once per doubling) and halved when a
 * large heap falls below a quarter full.
 *
 * Invariants: for every slot i > 0, ent[(i-1)/4] <= ent[i];
 * ent[i].node->index == i; a node out of the heap has index -1.
 * The caller serialises access (the queue lock).
 */
#include <stdlib.h>
#include <string.h>

#include "timer/timer_int.h"

#define ARITY 4
#define PAD 3 /* entries before slot 0, so child groups are line-aligned */
#define MIN_CAP 64
#define SHRINK_CAP 4096

static int less(const wf_theap_ent *a, const wf_theap_ent *b)
{
    return a->key < b->key || (a->key == b->key && a->node->seq < b->node->seq);
}

static void place(wf_theap *h, int64_t i, wf_theap_ent e)
{
    h->ent[i] = e;
    e.node->index = i;
}

static void sift_up(wf_theap *h, int64_t i, wf_theap_ent e)
{
    while (i > 0) {
        int64_t p = (i - 1) / ARITY;
        if (!less(&e, &h->ent[p]))
            break;
        place(h, i, h->ent[p]);
        i = p;
    }
    place(h, i, e);
}

static int64_t min_child(const wf_theap *h, int64_t first)
{
    int64_t best = first, end = first + ARITY < h->n ? first + ARITY : h->n;
    for (int64_t k = first + 1; k < end; k++)
        if (less(&h->ent[k], &h->ent[best]))
            best = k;
    return best;
}

static void sift_down(wf_theap *h, int64_t i, wf_theap_ent e)
{
    for (;;) {
        int64_t first = ARITY * i + 1;
        if (first >= h->n)
            break;
        int64_t c = min_child(h, first);
        if (!less(&h->ent[c], &e))
            break;
        place(h, i, h->ent[c]);
        i = c;
    }
    place(h, i, e);
}

static int resize(wf_theap *h, int64_t cap)
{
    void *mem;
    if (posix_memalign(&mem, 64, (size_t)(cap + PAD) * sizeof(wf_theap_ent)) != 0)
        return WEFT_ENOMEM;
    wf_theap_ent *ent = (wf_theap_ent *)mem + PAD;
    if (h->n)
        memcpy(ent, h->ent, (size_t)h->n * sizeof *ent);
    free(h->mem);
    h->mem = mem;
    h->ent = ent;
    h->cap = cap;
    return 0;
}

int wf_theap_insert(wf_theap *h, wf_tnode *n)
{
    if (h->n == h->cap && resize(h, h->cap ? 2 * h->cap : MIN_CAP) != 0)
        return WEFT_ENOMEM;
    wf_theap_ent e = {n->deadline, n};
    sift_up(h, h->n++, e);
    return 0;
}

void wf_theap_remove(wf_theap *h, wf_tnode *n)
{
    int64_t i = n->index;
    wf_theap_ent last = h->ent[--h->n];
    n->index = -1;
    if (i != h->n) {
        if (i > 0 && less(&last, &h->ent[(i - 1) / ARITY]))
            sift_up(h, i, last);
        else
            sift_down(h, i, last);
    }
    if (h->cap >= SHRINK_CAP && h->n < h->cap / 4)
        resize(h, h->cap / 2); /* on failure the heap simply stays large */
}

wf_tnode *wf_theap_min(const wf_theap *h)
{
    return h->n ? h->ent[0].node : NULL;
}

void wf_theap_free(wf_theap *h)
{
    free(h->mem);
    memset(h, 0, sizeof *h);
}
