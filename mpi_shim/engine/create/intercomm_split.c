/* Making intercommunicators from one: MPI_Comm_split and MPI_Comm_create
 * of an intercommunicator (MPI-3.1 6.4.2).
 *
 * Design (MPICH's): every rank learns every rank's (colour, key) in both
 * groups (an allgather in its group, the leaders swap the tables, a bcast
 * in each group); then each rank of colour c sorts the ranks of colour c
 * of its own group and of the other one by key (ties by rank): those are
 * the new intercommunicator's local and remote groups. All ranks of both
 * groups then vote on one id pair, as a dup does (intercomm.c); new
 * intercommunicators of different colours share it, as they share no
 * rank. A rank of undefined colour, or whose colour the other group lacks,
 * votes and gets MPI_COMM_NULL. MPI_Comm_create is the split whose colour
 * is membership of the group given and whose key the rank in it.
 *
 * Rejected: one vote per colour (several rounds of messages for what one
 * shared id already gives).
 * Invariants: the tables are the same on every rank of a group.
 * Locking: none; the messages block the caller only.
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/comm.h"
#include "engine/core/internal.h"

#define PHASE2 512 /* step base of the second local phase */

extern wmpi_datatype wmpi_dt_int;

/* mine[2 * size] gets this group's (colour, key) pairs, theirs[2 * rs]
 * the other group's; theirs[2 * rs] tells the group the leader failed. */
static int learn_tables(const wmpi_coll_call *k, const int me[2], int *mine,
                        int *theirs)
{
    wmpi_coll_call kl = wmpi_coll_local(k);
    int rs = k->c->remote_size;
    wmpi_coll_args ag = { .sbuf = me, .scount = 2, .sdt = &wmpi_dt_int,
                          .rbuf = mine, .rcount = 2, .rdt = &wmpi_dt_int };
    wmpi_coll_args bc = { .rbuf = theirs, .rcount = 2 * rs + 1,
                          .rdt = &wmpi_dt_int, .root = 0 };
    int err = wmpi_coll_allgather_run(&kl, &ag);

    if (err)
        return err;
    theirs[2 * rs] = 0;
    if (k->rank == 0 &&
        wmpi_coll_sendrecv(k, 0, mine, 2 * k->size, &wmpi_dt_int, 0, theirs,
                           2 * rs, &wmpi_dt_int, 0))
        theirs[2 * rs] = 1;
    kl.step_base = PHASE2;
    err = wmpi_coll_bcast_run(&kl, &bc);
    return err ? err : theirs[2 * rs] ? -ECONNABORTED : 0;
}

/* The group of colour `color` among the n ranks of table t (world ranks
 * from `world`), in key order; NULL if it has none. */
static int group_of(const int *t, int n, int color, const int *world,
                    wmpi_group **out)
{
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    int k = w ? wmpi_split_members(t, n, color, world, w) : WEFT_ENOMEM;

    *out = NULL;
    int err = k < 0 ? k : k > 0 ? wmpi_group_new(k, w, out) : 0;
    free(w);
    return err;
}

int wmpi_intercomm_split(wmpi_comm *inter, int color, int key, wmpi_comm **out)
{
    int me[2] = { color, key }, rs = inter->remote_size, err = 0;
    int *mine = malloc((size_t)inter->size * 2 * sizeof *mine);
    int *theirs = malloc(((size_t)rs * 2 + 1) * sizeof *theirs);
    wmpi_group *lg = NULL, *rg = NULL;
    wmpi_coll_call k1, k2;

    *out = NULL;
    /* both calls' numbers now, in call order, whatever fails below */
    wmpi_coll_begin(&k1, inter);
    wmpi_coll_begin(&k2, inter);
    if (!mine || !theirs)
        err = WEFT_ENOMEM;
    if (!err)
        err = learn_tables(&k1, me, mine, theirs);
    if (!err && color != WMPI_UNDEFINED)
        err = group_of(mine, inter->size, color, inter->group->world, &lg);
    if (!err && color != WMPI_UNDEFINED)
        err = group_of(theirs, rs, color, inter->remote->world, &rg);
    if (!err)
        err = wmpi_intercomm_make(&k2, (uint64_t)inter->local->ctx << 32, lg, rg, out);
    wmpi_group_release(lg);
    wmpi_group_release(rg);
    free(mine);
    free(theirs);
    return err;
}

int wmpi_intercomm_create_from(wmpi_comm *inter, wmpi_group *g, wmpi_comm **out)
{
    *out = NULL;
    for (int i = 0; i < g->size; i++)
        if (wmpi_group_rank_of(inter->group, g->world[i]) == WMPI_UNDEFINED)
            return WEFT_EINVAL;
    return wmpi_intercomm_split(inter, g->rank == WMPI_UNDEFINED ? WMPI_UNDEFINED : 0,
                                g->rank, out);
}
