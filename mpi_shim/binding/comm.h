/* What the communicator bindings (comm.c, group.c, attr.c, topo.c,
 * intercomm.c) share: error handler inheritance and the checks every one
 * of them makes.
 *
 * A communicator the engine creates starts with its parent's error
 * handler (MPI-3.1 8.3: "the error handler is inherited"); the reference
 * it holds is dropped when the engine destroys the communicator, through
 * the destroy hook that wbind_comm_inherit_errh installs.
 */
#ifndef WMPI_BINDING_COMM_H
#define WMPI_BINDING_COMM_H

#include "binding/binding.h"
#include "engine/objects/comm.h"

/* nc (fresh from the engine) takes parent's error handler (a reference);
 * installs the engine's destroy hook that drops it again (errors.c).
 * Context: any thread. */
void wbind_comm_inherit_errh(MPI_Comm nc, MPI_Comm parent);

/* Common tail of the constructors: NULL -> MPI_COMM_NULL, else inherit
 * parent's handler; stores the handle. */
static inline void wbind_comm_out(MPI_Comm parent, wmpi_comm *nc, MPI_Comm *out)
{
    if (nc)
        wbind_comm_inherit_errh(nc, parent);
    *out = nc ? nc : MPI_COMM_NULL;
}

#endif /* WMPI_BINDING_COMM_H */
