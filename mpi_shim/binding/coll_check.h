/* Argument checks and the call path shared by the collective bindings
 * (binding/coll_*.c).
 *
 * Each MPI collective binding fills a wmpi_coll_args (engine/coll/coll.h) with
 * the arguments that are significant on the calling rank (the others are
 * left NULL / 0, so the engine never reads a handle MPI lets the caller
 * pass uninitialised), checks them, and hands them to wbind_coll_go, which
 * runs the collective (blocking) or starts it (nonblocking).
 */
#ifndef WMPI_COLL_CHECK_H
#define WMPI_COLL_CHECK_H

#include "binding/binding.h"
#include "engine/coll/coll.h"

/* 0 or the MPI error class of a significant (buffer, count, datatype):
 * MPI_ERR_COUNT, MPI_ERR_TYPE (null or not committed), MPI_ERR_BUFFER. */
int wbind_check_coll_buf(const void *buf, int count, MPI_Datatype dt);

/* The same for a v form's per-rank counts (n of them; MPI_ERR_ARG if the
 * array is missing) over one datatype. */
int wbind_check_coll_bufv(const void *buf, const int counts[], const int displs[],
                         int n, MPI_Datatype dt);

/* The whole buffer of a collective over n ranks (a gather's or an
 * allgather's receive buffer, a scatter's send buffer): MPI_ERR_ARG if it
 * is MPI_IN_PLACE, else wbind_check_coll_bufv (v) or wbind_check_coll_buf
 * (count per rank; counts and displs unused). */
int wbind_check_coll_whole(const void *buf, int count, const int counts[],
                          const int displs[], int n, MPI_Datatype dt, int v);

/* MPI_ERR_ROOT unless 0 <= root < size of comm (of an intercomm: its
 * remote group's, or MPI_ROOT, or MPI_PROC_NULL). */
int wbind_check_root(int root, MPI_Comm comm);

/* This rank's part in a rooted collective over comm (root checked): the
 * root, a leaf (sends to or receives from the root), or idle (an
 * intercommunicator's root group but the root: MPI_PROC_NULL). */
enum { WBIND_ROOT, WBIND_LEAF, WBIND_IDLE };
int wbind_root_role(int root, MPI_Comm comm);

/* MPI_ERR_OP unless op is a valid op for dt (MPI_ERR_TYPE first). */
int wbind_check_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                      MPI_Op op);

/* Report class `cls` if nonzero (on an intercommunicator also
 * MPI_ERR_COMM for a scan, MPI_ERR_ARG for MPI_IN_PLACE); else run collective `kind` (req NULL) or
 * start it and store its request in *req (MPI_ERR_REQUEST if a
 * nonblocking call passed req == NULL: pass `nonblocking`). Errors go
 * through comm's handler with the name `fn`. */
int wbind_coll_go(MPI_Comm comm, int cls, int kind, const wmpi_coll_args *a,
                 int nonblocking, MPI_Request *req, const char *fn);

#endif /* WMPI_COLL_CHECK_H */
