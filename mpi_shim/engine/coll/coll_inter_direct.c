/* Intercommunicator collectives that trade with each remote rank
 * directly: gather(v), scatter(v), allgather(v) and alltoall(v,w).
 *
 * Design: on an intercommunicator these buffers are laid out per remote
 * rank (MPI-3.1 5.2.2), so each block goes straight to, or comes straight
 * from, the remote rank it belongs to: one message a block, started
 * together and waited for together (one wake-up). The rooted forms follow
 * coll_inter.c's rules: WMPI_ROOT trades with the whole remote group,
 * WMPI_PROC_NULL does nothing, the other group trades with the root.
 *
 * Rejected: gathering each group at its leader first (MPICH's allgather):
 * fewer messages across, for a copy of a whole group's data at each
 * leader and two more phases; our groups are small.
 * Invariants: the requests are all waited for. Locking: none.
 */
#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

/* One rank's block of a per-rank buffer: where, how many, of what. */
typedef struct block {
    char *p;
    int64_t n;
    wmpi_datatype *dt;
} block;

static block send_block(const wmpi_coll_args *a, int r)
{
    if (a->sdts) /* w-form: byte displacements, a type each */
        return (block){ (char *)a->sbuf + a->sdispls[r], a->scounts[r], a->sdts[r] };
    if (a->scounts)
        return (block){ wmpi_coll_at(a->sbuf, a->sdispls[r], a->sdt), a->scounts[r],
                        a->sdt };
    return (block){ wmpi_coll_at(a->sbuf, (int64_t)r * a->scount, a->sdt), a->scount,
                    a->sdt };
}

static block recv_block(const wmpi_coll_args *a, int r)
{
    if (a->rdts)
        return (block){ (char *)a->rbuf + a->rdispls[r], a->rcounts[r], a->rdts[r] };
    if (a->rcounts)
        return (block){ wmpi_coll_at(a->rbuf, a->rdispls[r], a->rdt), a->rcounts[r],
                        a->rdt };
    return (block){ wmpi_coll_at(a->rbuf, (int64_t)r * a->rcount, a->rdt), a->rcount,
                    a->rdt };
}

/* How a send buffer goes: not at all, block r to remote rank r, or the
 * whole buffer (one block) to every remote rank. */
enum { NONE, BLOCKS, SAME };

/* Send to (as `send` says) and/or receive block r of a's receive buffer
 * (recv) from every remote rank r. */
static int with_each_remote(const wmpi_coll_call *k, const wmpi_coll_args *a,
                            int send, int recv)
{
    int rs = k->c->remote_size;
    wmpi_coll_reqs q;
    int err = wmpi_coll_reqs_init(&q, 2 * rs);

    if (err)
        return err;
    for (int r = 0; r < rs; r++) {
        if (recv) {
            block b = recv_block(a, r);
            wmpi_coll_irecv(&q, k, 0, b.p, b.n, b.dt, r);
        }
        if (send) {
            block b = send == SAME ? (block){ (char *)a->sbuf, a->scount, a->sdt }
                                   : send_block(a, r);
            wmpi_coll_isend(&q, k, 0, b.p, b.n, b.dt, r);
        }
    }
    return wmpi_coll_reqs_wait(&q);
}

int wmpi_coll_inter_gather(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    if (a->root == WMPI_ROOT)
        return with_each_remote(k, a, NONE, 1);
    if (a->root == WMPI_PROC_NULL)
        return 0;
    return wmpi_coll_send(k, 0, a->sbuf, a->scount, a->sdt, a->root);
}

int wmpi_coll_inter_scatter(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    if (a->root == WMPI_ROOT)
        return with_each_remote(k, a, BLOCKS, 0);
    if (a->root == WMPI_PROC_NULL)
        return 0;
    return wmpi_coll_recv(k, 0, a->rbuf, a->rcount, a->rdt, a->root);
}

int wmpi_coll_inter_allgather(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return with_each_remote(k, a, SAME, 1);
}

int wmpi_coll_inter_alltoall(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return with_each_remote(k, a, BLOCKS, 1);
}
