/* A communicator's ranks grouped by the CPU they share, for the schedules
 * that keep most rounds on one CPU (coll_allreduce_groups.c, barrier.c),
 * or as one group, which those schedules run as a fan through rank 0.
 *
 * Design. placement.c numbers each world rank's (host, single CPU); a
 * group is a run of consecutive communicator ranks with the same number,
 * its first rank the leader. The grouping serves only when every rank is
 * bound to a single CPU, each CPU's ranks form one run (so folding groups
 * in order keeps rank order), there are at least two groups, and at least
 * one group holds two ranks (else it is plain point-to-point between
 * CPUs). Every rank reads the same table, so all decide alike.
 *
 * Locking: none (the table is read-only after MPI_Init).
 */
#include "engine/coll/coll_impl.h"

static int slot_of_rank(const wmpi_comm *c, int r)
{
    return wmpi_placement_slot(c->world ? c->world[r] : r);
}

/* 1 if slot s already started one of g's groups. */
static int seen_before(const wmpi_coll_call *k, const wmpi_coll_groups *g, int s)
{
    for (int h = 0; h < g->n; h++)
        if (slot_of_rank(k->c, g->first[h]) == s)
            return 1;
    return 0;
}

int wmpi_coll_cpu_groups(const wmpi_coll_call *k, wmpi_coll_groups *g)
{
    int prev = -2;

    g->n = 0;
    g->mine = 0;
    for (int r = 0; r < k->size; r++) {
        int s = slot_of_rank(k->c, r);
        if (s < 0)
            return -1;
        if (s == prev)
            continue;
        if (seen_before(k, g, s) || g->n == WMPI_COLL_MAX_GROUPS)
            return -1;
        if (r <= k->rank)
            g->mine = g->n;
        g->first[g->n++] = r;
        prev = s;
    }
    g->first[g->n] = k->size;
    return g->n >= 2 && g->n < k->size ? 0 : -1;
}

void wmpi_coll_one_group(const wmpi_coll_call *k, wmpi_coll_groups *g)
{
    g->n = 1;
    g->mine = 0;
    g->first[0] = 0;
    g->first[1] = k->size;
}
