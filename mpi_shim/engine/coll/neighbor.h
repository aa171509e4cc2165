/* The engine's neighbourhood collectives (engine/coll/neighbor.c), for
 * binding/neighbor.c.
 *
 * Errors: those of coll.h (WEFT_ENOMEM, WEFT_EINVAL, the messages').
 * Threads: any thread; the blocking collectives block the caller.
 */
#ifndef WMPI_NEIGHBOR_H
#define WMPI_NEIGHBOR_H

#include <stdint.h>

#include "engine/coll/coll.h"

/* A communicator's neighbours in MPI-3.1 7.6 order: nin sources (receive
 * slots), nout destinations (send blocks); WMPI_PROC_NULL off the edge of
 * a non-periodic Cartesian dimension. */
typedef struct wmpi_neighbors {
    int nin, nout;
    int *in, *out;
} wmpi_neighbors;

/* How many in- and out-neighbours c's topology gives this rank (c must
 * have one). Errors: WEFT_ENOMEM. Blocks: no. */
int wmpi_neighbors_count(const wmpi_comm *c, int *nin, int *nout);

/* Run neighbourhood collective `kind` on c (which has a topology):
 * WMPI_COLL_ALLGATHER, _ALLGATHERV, _ALLTOALL or _ALLTOALLV, with a's
 * fields as for the plain collective but counted per neighbour.
 * Blocks: the caller. */
int wmpi_neighbor_coll(int kind, const wmpi_coll_args *a, wmpi_comm *c);

/* MPI_Neighbor_alltoallw's arguments: per neighbour a count, a
 * displacement in bytes and a datatype. */
typedef struct wmpi_neighbor_w {
    const void *sbuf;
    const int *scounts;
    const intptr_t *sdispls;
    wmpi_datatype *const *sdts;
    void *rbuf;
    const int *rcounts;
    const intptr_t *rdispls;
    wmpi_datatype *const *rdts;
} wmpi_neighbor_w;

/* Run MPI_Neighbor_alltoallw on c (which has a topology).
 * Blocks: the caller. */
int wmpi_neighbor_alltoallw(const wmpi_neighbor_w *w, wmpi_comm *c);

/* The nonblocking forms (MPI_Ineighbor_*): start the collective in a
 * thread of its own (coll.h's wmpi_coll_task); *out completes with its
 * error when this rank's part is done. The arrays a and w point to must
 * stay valid until then. Errors: WEFT_ENOMEM (*out NULL). Blocks: no. */
int wmpi_ineighbor_coll(int kind, const wmpi_coll_args *a, wmpi_comm *c, wmpi_request **out);
int wmpi_ineighbor_alltoallw(const wmpi_neighbor_w *w, wmpi_comm *c, wmpi_request **out);

#endif /* WMPI_NEIGHBOR_H */
