/* Graph and distributed-graph topologies, the constructors:
 * MPI_Graph_create, MPI_Dist_graph_create_adjacent and
 * MPI_Dist_graph_create (the topology objects and their neighbour lists:
 * engine/objects/topo.c).
 *
 * Design: like MPI_Cart_create, no constructor reorders (reorder is a hint
 * Open MPI ignores as well): each is a split of the parent in rank order,
 * a graph keeping the first nnodes ranks, a distributed graph all of them.
 * MPI_Dist_graph_create learns each rank's edges with two collectives on
 * the parent: an alltoall of counts, then an alltoallv of the records
 * (kind, peer, weight) each rank owes every other; a rank's neighbours
 * come in the order of the rank that named the edge, then of its
 * arguments.
 *
 * Rejected: keeping the whole edge list of MPI_Dist_graph_create on every
 * rank (memory grows with the job, which is what the distributed
 * interface exists to avoid); point-to-point exchange of just the
 * non-empty lists (needs a termination protocol; two collectives suffice).
 * Locking: none (a topology is immutable once attached).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll.h"
#include "engine/objects/comm.h"
#include "engine/core/internal.h"

extern wmpi_datatype wmpi_dt_int;

/* Hang t on the communicator a split gave (err, *out); on failure drop
 * both, so every rank still took part in the split. */
static int attach(int err, wmpi_topo *t, wmpi_comm **out)
{
    if (err || !*out) {
        free(t);
        return err;
    }
    if (!t) {
        wmpi_comm_release(*out);
        *out = NULL;
        return WEFT_ENOMEM;
    }
    (*out)->topo = t;
    return 0;
}

/* ------------------------------------------------------------- graph */

int wmpi_graph_create(wmpi_comm *c, int nnodes, const int *index,
                      const int *edges, wmpi_comm **out)
{
    wmpi_topo *t = wmpi_topo_graph_new(nnodes, index, edges);
    int member = c->rank < nnodes ? 0 : WMPI_UNDEFINED;

    *out = NULL;
    return attach(wmpi_comm_split(c, member, c->rank, out), t, out);
}

/* -------------------------------------------------------- dist graph */

int wmpi_dist_graph_create_adjacent(wmpi_comm *c, int indegree,
                                    const int *sources, const int *srcw,
                                    int outdegree, const int *dests,
                                    const int *dstw, wmpi_comm **out)
{
    wmpi_topo *t = wmpi_topo_dist_new(indegree, sources, srcw, outdegree,
                                      dests, dstw);

    *out = NULL;
    return attach(wmpi_comm_split(c, 0, c->rank, out), t, out);
}

/* What a rank owes another about one edge: an in-edge from `peer`, or an
 * out-edge to it; three ints on the wire. */
enum { REC_IN = 0, REC_OUT = 1, REC_INTS = 3 };

/* The records this rank's arguments give every rank, grouped by the
 * receiving rank: counts[r] ints from displs[r] in *recs. */
typedef struct edge_msgs {
    int *counts, *displs, *recs;
} edge_msgs;

static void put(edge_msgs *m, int *fill, int to, int kind, int peer, int w)
{
    int *r = m->recs + m->displs[to] + fill[to];

    r[0] = kind;
    r[1] = peer;
    r[2] = w;
    fill[to] += REC_INTS;
}

/* Fill m from the arguments (m->counts zeroed, size c->size each). */
static int edge_msgs_build(edge_msgs *m, int size, int n, const int *sources,
                           const int *degrees, const int *dests,
                           const int *weights)
{
    int total = 0, k = 0;
    int *fill = calloc((size_t)size, sizeof *fill);

    if (!fill)
        return WEFT_ENOMEM;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            m->counts[dests[k]] += REC_INTS;
            m->counts[sources[i]] += REC_INTS;
        }
    for (int r = 0; r < size; r++) {
        m->displs[r] = total;
        total += m->counts[r];
    }
    m->recs = malloc((size_t)(total ? total : 1) * sizeof *m->recs);
    if (!m->recs) {
        free(fill);
        return WEFT_ENOMEM;
    }
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int w = weights ? weights[k] : 1;

            put(m, fill, dests[k], REC_IN, sources[i], w);
            put(m, fill, sources[i], REC_OUT, dests[k], w);
        }
    free(fill);
    return 0;
}

/* Sort the received records into this rank's in- and out-lists (arrays
 * of `nrec` ints each, at most) and build the topology. */
static wmpi_topo *topo_from_records(const int *recs, int nints, int weighted)
{
    int nrec = nints / REC_INTS, in = 0, out = 0;
    int *a = malloc(4 * (size_t)(nrec ? nrec : 1) * sizeof *a);
    int *src = a, *srcw = a + nrec, *dst = a + 2 * nrec, *dstw = a + 3 * nrec;
    wmpi_topo *t;

    if (!a)
        return NULL;
    for (int i = 0; i < nrec; i++, recs += REC_INTS) {
        if (recs[0] == REC_IN) {
            src[in] = recs[1];
            srcw[in++] = recs[2];
        } else {
            dst[out] = recs[1];
            dstw[out++] = recs[2];
        }
    }
    t = wmpi_topo_dist_new(in, src, weighted ? srcw : NULL, out, dst,
                           weighted ? dstw : NULL);
    free(a);
    return t;
}

/* The two collectives: counts, then the records. *got: the records this
 * rank receives (malloc'd), *ngot their ints. */
static int edge_msgs_exchange(edge_msgs *m, wmpi_comm *c, int **got,
                              int *ngot)
{
    int size = c->size, total = 0, err;
    int *rc = calloc(2 * (size_t)size, sizeof *rc), *rd = rc + size;
    wmpi_coll_args a = { 0 };

    if (!rc)
        return WEFT_ENOMEM;
    a.sbuf = m->counts;
    a.scount = a.rcount = 1;
    a.sdt = a.rdt = &wmpi_dt_int;
    a.rbuf = rc;
    err = wmpi_coll(WMPI_COLL_ALLTOALL, &a, c);
    for (int r = 0; !err && r < size; r++) {
        rd[r] = total;
        total += rc[r];
    }
    *got = err ? NULL : malloc((size_t)(total ? total : 1) * sizeof **got);
    if (!err && !*got)
        err = WEFT_ENOMEM; /* the others fail in the alltoallv: rare */
    if (!err) {
        memset(&a, 0, sizeof a);
        a.sbuf = m->recs;
        a.scounts = m->counts;
        a.sdispls = m->displs;
        a.sdt = a.rdt = &wmpi_dt_int;
        a.rbuf = *got;
        a.rcounts = rc;
        a.rdispls = rd;
        err = wmpi_coll(WMPI_COLL_ALLTOALLV, &a, c);
    }
    *ngot = total;
    free(rc);
    return err;
}

int wmpi_dist_graph_create(wmpi_comm *c, int n, const int *sources,
                           const int *degrees, const int *dests,
                           const int *weights, wmpi_comm **out)
{
    edge_msgs m = { 0 };
    int *got = NULL, ngot = 0, err = WEFT_ENOMEM;
    wmpi_topo *t = NULL;

    *out = NULL;
    m.counts = calloc(2 * (size_t)c->size, sizeof *m.counts);
    if (m.counts) {
        m.displs = m.counts + c->size;
        err = edge_msgs_build(&m, c->size, n, sources, degrees, dests, weights);
    }
    if (!err)
        err = edge_msgs_exchange(&m, c, &got, &ngot);
    if (!err && !(t = topo_from_records(got, ngot, weights != NULL)))
        err = WEFT_ENOMEM;
    free(got);
    free(m.recs);
    free(m.counts);
    if (err)
        return err;
    return attach(wmpi_comm_split(c, 0, c->rank, out), t, out);
}
