/* Groups: ordered sets of processes (MPI_Group) and their algebra.
 *
 * Design: a group is an array of world ranks in group order, plus the
 * caller's own rank in it, computed once. Every operation builds a new
 * array and wraps it; nothing is shared between groups, so groups are
 * immutable after creation and need no lock (only the reference count is
 * atomic). An empty result is MPI_GROUP_EMPTY itself (a static object),
 * as in Open MPI and MPICH, so programs may compare against the handle.
 * Membership tests are linear scans: groups are as large as the job
 * (tens to thousands of ranks), and the operations that test many
 * members (union, translate...) are called rarely, at set-up time.
 *
 * Rejected: sharing one array between a group and the groups derived from
 * it (strided or ranged views, as MPICH's lpid ranges): less memory for
 * huge jobs, more code for every lookup; not worth it at our sizes.
 *
 * Invariants: world[] holds `size` distinct world ranks; rank is the index
 * of wmpi_eng.rank in world[] or WMPI_UNDEFINED.
 * Locking: none (immutable); refs is atomic.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/core/internal.h"

wmpi_group wmpi_pub_group_empty = { .predefined = 1, .rank = WMPI_UNDEFINED };

int wmpi_group_rank_of(const wmpi_group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return WMPI_UNDEFINED;
}

int wmpi_group_new(int n, const int *world, wmpi_group **out)
{
    wmpi_group *g;

    *out = NULL;
    if (n == 0) {
        *out = &wmpi_pub_group_empty;
        return 0;
    }
    g = malloc(sizeof *g + (size_t)n * sizeof g->world[0]);
    if (!g)
        return WEFT_ENOMEM;
    g->refs = 1;
    g->predefined = 0;
    g->size = n;
    memcpy(g->world, world, (size_t)n * sizeof g->world[0]);
    g->rank = wmpi_group_rank_of(g, wmpi_eng.rank);
    *out = g;
    return 0;
}

void wmpi_group_retain(wmpi_group *g)
{
    if (g && !g->predefined)
        __atomic_add_fetch(&g->refs, 1, __ATOMIC_RELAXED);
}

void wmpi_group_release(wmpi_group *g)
{
    if (g && !g->predefined &&
        __atomic_sub_fetch(&g->refs, 1, __ATOMIC_ACQ_REL) == 0)
        free(g);
}

/* ------------------------------------------------------- selection */

/* The group of g's ranks order[0..n), in that order. */
static int from_ranks(const wmpi_group *g, int n, const int *order,
                      wmpi_group **out)
{
    int *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    int err;

    if (!w)
        return WEFT_ENOMEM;
    for (int i = 0; i < n; i++)
        w[i] = g->world[order[i]];
    err = wmpi_group_new(n, w, out);
    free(w);
    return err;
}

/* Mark ranks[0..n) in seen[] (g->size flags); EINVAL if one is out of
 * range or repeated. */
static int mark(const wmpi_group *g, int n, const int *ranks, char *seen)
{
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]])
            return WEFT_EINVAL;
        seen[ranks[i]] = 1;
    }
    return 0;
}

/* The unmarked ranks of g, in order, into a new group. */
static int complement(const wmpi_group *g, const char *seen, wmpi_group **out)
{
    int *keep = malloc((size_t)(g->size ? g->size : 1) * sizeof *keep);
    int n = 0, err;

    if (!keep)
        return WEFT_ENOMEM;
    for (int i = 0; i < g->size; i++)
        if (!seen[i])
            keep[n++] = i;
    err = from_ranks(g, n, keep, out);
    free(keep);
    return err;
}

/* The n ranks of g (incl) or all the others (excl), after checking them. */
static int select_ranks(wmpi_group *g, int n, const int *ranks, int excl,
                        wmpi_group **out)
{
    char *seen = calloc((size_t)g->size + 1, 1);
    int err;

    *out = NULL;
    if (!seen)
        return WEFT_ENOMEM;
    if (n < 0)
        err = WEFT_EINVAL;
    else
        err = mark(g, n, ranks, seen);
    if (!err)
        err = excl ? complement(g, seen, out) : from_ranks(g, n, ranks, out);
    free(seen);
    return err;
}

int wmpi_group_incl(wmpi_group *g, int n, const int *ranks, wmpi_group **out)
{
    return select_ranks(g, n, ranks, 0, out);
}

int wmpi_group_excl(wmpi_group *g, int n, const int *ranks, wmpi_group **out)
{
    return select_ranks(g, n, ranks, 1, out);
}

/* ---------------------------------------------------------- ranges */

/* Ranks of one triplet (first, last, stride): first, first + stride, ...
 * up to last; appended to list (NULL: only counted). EINVAL for stride 0,
 * an end out of range or a stride pointing away from last. */
static int64_t expand(const wmpi_group *g, const int t[3], int *list, int64_t at)
{
    int first = t[0], last = t[1], stride = t[2];
    int64_t n;

    if (stride == 0 || first < 0 || first >= g->size || last < 0 ||
        last >= g->size || (last - first) / stride < 0 ||
        (first != last && (last > first) != (stride > 0)))
        return WEFT_EINVAL;
    n = (int64_t)(last - first) / stride + 1;
    for (int64_t i = 0; list && i < n; i++)
        list[at + i] = (int)(first + i * stride);
    return n;
}

static int expand_all(const wmpi_group *g, int n, int ranges[][3], int **list,
                      int *count)
{
    int64_t total = 0, k;

    *list = NULL;
    if (n < 0)
        return WEFT_EINVAL;
    for (int i = 0; i < n; i++) {
        if ((k = expand(g, ranges[i], NULL, 0)) < 0)
            return (int)k;
        total += k;
        if (total > g->size) /* some rank repeats */
            return WEFT_EINVAL;
    }
    *list = malloc((size_t)(total ? total : 1) * sizeof **list);
    if (!*list)
        return WEFT_ENOMEM;
    for (int i = 0, at = 0; i < n; i++)
        at += (int)expand(g, ranges[i], *list, at);
    *count = (int)total;
    return 0;
}

static int select_ranges(wmpi_group *g, int n, int ranges[][3], int excl,
                         wmpi_group **out)
{
    int *list, count = 0;
    int err = expand_all(g, n, ranges, &list, &count);

    *out = NULL;
    if (!err)
        err = select_ranks(g, count, list, excl, out);
    free(list);
    return err;
}

int wmpi_group_range_incl(wmpi_group *g, int n, int ranges[][3], wmpi_group **out)
{
    return select_ranges(g, n, ranges, 0, out);
}

int wmpi_group_range_excl(wmpi_group *g, int n, int ranges[][3], wmpi_group **out)
{
    return select_ranges(g, n, ranges, 1, out);
}

/* ------------------------------------------------------------- sets */

enum set_op { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

/* A new group: union (all of a, then b's members not in a), intersection
 * (a's members in b) or difference (a's members not in b), in the order
 * MPI prescribes (a's first). */
static int combine(const wmpi_group *a, const wmpi_group *b, enum set_op op,
                   wmpi_group **out)
{
    int *w = malloc((size_t)(a->size + b->size + 1) * sizeof *w);
    int n = 0, err;

    *out = NULL;
    if (!w)
        return WEFT_ENOMEM;
    for (int i = 0; i < a->size; i++) {
        int in_b = wmpi_group_rank_of(b, a->world[i]) != WMPI_UNDEFINED;
        if (op == SET_UNION || in_b == (op == SET_INTERSECTION))
            w[n++] = a->world[i];
    }
    for (int i = 0; op == SET_UNION && i < b->size; i++)
        if (wmpi_group_rank_of(a, b->world[i]) == WMPI_UNDEFINED)
            w[n++] = b->world[i];
    err = wmpi_group_new(n, w, out);
    free(w);
    return err;
}

int wmpi_group_union(wmpi_group *a, wmpi_group *b, wmpi_group **out)
{
    return combine(a, b, SET_UNION, out);
}

int wmpi_group_intersection(wmpi_group *a, wmpi_group *b, wmpi_group **out)
{
    return combine(a, b, SET_INTERSECTION, out);
}

int wmpi_group_difference(wmpi_group *a, wmpi_group *b, wmpi_group **out)
{
    return combine(a, b, SET_DIFFERENCE, out);
}

/* ---------------------------------------------------------- queries */

int wmpi_group_translate(wmpi_group *a, int n, const int *ranks,
                         wmpi_group *b, int *out)
{
    for (int i = 0; i < n; i++)
        if (ranks[i] != WMPI_PROC_NULL && (ranks[i] < 0 || ranks[i] >= a->size))
            return WEFT_EINVAL;
    for (int i = 0; i < n; i++)
        out[i] = ranks[i] == WMPI_PROC_NULL
                     ? WMPI_PROC_NULL
                     : wmpi_group_rank_of(b, a->world[ranks[i]]);
    return 0;
}

int wmpi_group_compare(const wmpi_group *a, const wmpi_group *b)
{
    if (a->size != b->size)
        return WMPI_UNEQUAL;
    if (a->size == 0 ||
        !memcmp(a->world, b->world, (size_t)a->size * sizeof a->world[0]))
        return WMPI_IDENT;
    for (int i = 0; i < a->size; i++)
        if (wmpi_group_rank_of(b, a->world[i]) == WMPI_UNDEFINED)
            return WMPI_UNEQUAL;
    return WMPI_SIMILAR;
}
