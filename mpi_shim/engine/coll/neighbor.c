/* Neighbourhood collectives (MPI-3.1 7.6): MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v/w) on Cartesian, graph and distributed-graph
 * communicators, and their nonblocking forms MPI_Ineighbor_*, which run
 * the same code in a thread of their own (coll.h's wmpi_coll_task) after
 * taking the sequence number in the caller, as the other nonblocking
 * collectives do.
 *
 * Design: each rank posts one receive per in-neighbour and one send per
 * out-neighbour on the collective context, then waits for all of them
 * (engine/coll/coll_impl.h's request sets). A call takes the communicator's
 * next collective sequence number like any collective, so its messages
 * carry tags no other collective on the communicator uses. Neighbour
 * order (7.6): Cartesian, for each dimension the source then the
 * destination of a shift by 1 (WMPI_PROC_NULL off a non-periodic edge:
 * that block is neither sent nor received); graph, the node's neighbours
 * for both directions; distributed graph, its sources in and its
 * destinations out. Within a Cartesian dimension the step of the tag says
 * which way a message goes (block 2d received from the source, 2d+1 from
 * the destination), so a periodic dimension of size 1 or 2, where both
 * neighbours are one process, still delivers each block to the right
 * slot; graphs rely on MPI's non-overtaking order for repeated edges.
 *
 * Rejected: building on the alltoallv schedule with zero counts for
 * non-neighbours (traffic and time grow with the communicator, not the
 * neighbourhood).
 * Invariants: the bindings have checked counts and datatypes; c->topo is
 * set. Locking: none of its own (the messages take the engine lock).
 */
#include <stdlib.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"
#include "engine/coll/neighbor.h"

/* The neighbour lists of c's topology, malloc'd in nb->in (nb->out points
 * into the same block). Errors: WEFT_ENOMEM. */
static int neighbors_get(const wmpi_comm *c, wmpi_neighbors *nb)
{
    const wmpi_topo *t = c->topo;
    const int *gl = NULL;
    int n = 0;

    if (t->kind == WMPI_TOPO_CART) {
        nb->nin = nb->nout = 2 * t->ndims;
    } else if (t->kind == WMPI_TOPO_GRAPH) {
        wmpi_graph_neighbors(t, c->rank, &gl, &n);
        nb->nin = nb->nout = n;
    } else {
        nb->nin = t->indegree;
        nb->nout = t->outdegree;
    }
    nb->in = malloc(((size_t)nb->nin + (size_t)nb->nout + 1) * sizeof(int));
    if (!nb->in)
        return WEFT_ENOMEM;
    nb->out = nb->in + nb->nin;
    for (int d = 0; t->kind == WMPI_TOPO_CART && d < t->ndims; d++)
        wmpi_cart_shift(t, c->rank, d, 1, &nb->in[2 * d], &nb->in[2 * d + 1]);
    for (int i = 0; t->kind == WMPI_TOPO_CART && i < nb->nout; i++)
        nb->out[i] = nb->in[i];
    for (int i = 0; t->kind == WMPI_TOPO_GRAPH && i < n; i++)
        nb->in[i] = nb->out[i] = gl[i];
    for (int i = 0; t->kind == WMPI_TOPO_DIST_GRAPH && i < nb->nin; i++)
        nb->in[i] = t->sources[i];
    for (int i = 0; t->kind == WMPI_TOPO_DIST_GRAPH && i < nb->nout; i++)
        nb->out[i] = t->dests[i];
    return 0;
}

int wmpi_neighbors_count(const wmpi_comm *c, int *nin, int *nout)
{
    wmpi_neighbors nb;
    int err = neighbors_get(c, &nb);

    if (err)
        return err;
    *nin = nb.nin;
    *nout = nb.nout;
    free(nb.in);
    return 0;
}

/* The step of the message to out-neighbour j (received in slot step):
 * Cartesian blocks swap direction, graphs use one step. */
static int send_step(const wmpi_comm *c, int j)
{
    return c->topo->kind == WMPI_TOPO_CART ? (j ^ 1) : 0;
}

static int recv_step(const wmpi_comm *c, int i)
{
    return c->topo->kind == WMPI_TOPO_CART ? i : 0;
}

/* Post the send of out-neighbour block j of collective `kind`. */
static void post_send(wmpi_coll_reqs *q, const wmpi_coll_call *k, int kind,
                      const wmpi_coll_args *a, const wmpi_neighbors *nb, int j)
{
    const void *buf = a->sbuf;
    int64_t count = a->scount;

    if (kind == WMPI_COLL_ALLTOALL) {
        buf = wmpi_coll_at(a->sbuf, (int64_t)j * a->scount, a->sdt);
    } else if (kind == WMPI_COLL_ALLTOALLV) {
        buf = wmpi_coll_at(a->sbuf, a->sdispls[j], a->sdt);
        count = a->scounts[j];
    }
    wmpi_coll_isend(q, k, send_step(k->c, j), buf, count, a->sdt, nb->out[j]);
}

/* Post the receive of in-neighbour slot i. */
static void post_recv(wmpi_coll_reqs *q, const wmpi_coll_call *k, int kind,
                      const wmpi_coll_args *a, const wmpi_neighbors *nb, int i)
{
    void *buf = wmpi_coll_at(a->rbuf, (int64_t)i * a->rcount, a->rdt);
    int64_t count = a->rcount;

    if (kind == WMPI_COLL_ALLGATHERV || kind == WMPI_COLL_ALLTOALLV) {
        buf = wmpi_coll_at(a->rbuf, a->rdispls[i], a->rdt);
        count = a->rcounts[i];
    }
    wmpi_coll_irecv(q, k, recv_step(k->c, i), buf, count, a->rdt, nb->in[i]);
}

/* The neighbour lists and room for the requests. */
static int prepare(const wmpi_comm *c, wmpi_neighbors *nb, wmpi_coll_reqs *q)
{
    int err = neighbors_get(c, nb);

    if (err)
        return err;
    err = wmpi_coll_reqs_init(q, nb->nin + nb->nout);
    if (err)
        free(nb->in);
    return err;
}

/* Post every receive and send of the collective, then wait for them; the
 * w-form when w is given, else `kind` with a. */
static int run(const wmpi_coll_call *k, int kind, const wmpi_coll_args *a,
               const wmpi_neighbor_w *w)
{
    wmpi_neighbors nb;
    wmpi_coll_reqs q;
    int err = prepare(k->c, &nb, &q);

    if (err)
        return err;
    for (int i = 0; w && i < nb.nin; i++)
        wmpi_coll_irecv(&q, k, recv_step(k->c, i), (char *)w->rbuf + w->rdispls[i],
                        w->rcounts[i], w->rdts[i], nb.in[i]);
    for (int j = 0; w && j < nb.nout; j++)
        wmpi_coll_isend(&q, k, send_step(k->c, j), (const char *)w->sbuf + w->sdispls[j],
                        w->scounts[j], w->sdts[j], nb.out[j]);
    for (int i = 0; !w && i < nb.nin; i++)
        post_recv(&q, k, kind, a, &nb, i);
    for (int j = 0; !w && j < nb.nout; j++)
        post_send(&q, k, kind, a, &nb, j);
    err = wmpi_coll_reqs_wait(&q);
    free(nb.in);
    return err;
}

int wmpi_neighbor_coll(int kind, const wmpi_coll_args *a, wmpi_comm *c)
{
    wmpi_coll_call k;

    wmpi_coll_begin(&k, c); /* first: it stays in step even on failure */
    return run(&k, kind, a, NULL);
}

int wmpi_neighbor_alltoallw(const wmpi_neighbor_w *w, wmpi_comm *c)
{
    wmpi_coll_call k;

    wmpi_coll_begin(&k, c);
    return run(&k, 0, NULL, w);
}

/* ------------------------------------------------------------ nonblocking */

/* A nonblocking neighbourhood collective's own copy of its arguments
 * (the arrays they point to stay the caller's, as MPI says). */
typedef struct neighbor_job {
    wmpi_coll_call k;
    int kind;
    wmpi_coll_args a;
    wmpi_neighbor_w w;
    int is_w;
} neighbor_job;

/* Hold the datatypes of a's form while the job runs (the w-form's type
 * arrays are the caller's to keep valid, as for MPI_Ialltoallw). */
static void hold_types(const neighbor_job *j, int hold)
{
    wmpi_datatype *dts[2] = { j->a.sdt, j->a.rdt };

    for (int i = 0; !j->is_w && i < 2; i++)
        if (hold)
            wmpi_datatype_retain(dts[i]);
        else
            wmpi_datatype_release(dts[i]);
}

static int job_run(void *arg)
{
    neighbor_job *j = arg;
    int err = run(&j->k, j->kind, &j->a, j->is_w ? &j->w : NULL);

    hold_types(j, 0);
    free(j);
    return err;
}

static int start_job(neighbor_job *j, wmpi_comm *c, wmpi_request **out)
{
    int err;

    hold_types(j, 1);
    wmpi_coll_begin(&j->k, c); /* in the caller: collectives start in order */
    err = wmpi_coll_task(c, job_run, j, out);
    if (err) {
        hold_types(j, 0);
        free(j);
    }
    return err;
}

int wmpi_ineighbor_coll(int kind, const wmpi_coll_args *a, wmpi_comm *c, wmpi_request **out)
{
    neighbor_job *j = calloc(1, sizeof *j);

    *out = NULL;
    if (!j)
        return WEFT_ENOMEM;
    j->kind = kind;
    j->a = *a;
    return start_job(j, c, out);
}

int wmpi_ineighbor_alltoallw(const wmpi_neighbor_w *w, wmpi_comm *c, wmpi_request **out)
{
    neighbor_job *j = calloc(1, sizeof *j);

    *out = NULL;
    if (!j)
        return WEFT_ENOMEM;
    j->w = *w;
    j->is_w = 1;
    return start_job(j, c, out);
}
