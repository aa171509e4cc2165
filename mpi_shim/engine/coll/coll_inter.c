/* Intercommunicator collectives: the schedules wmpi_coll and wmpi_icoll
 * run when the communicator is an intercommunicator. None yet: every kind
 * is NULL, so the engine refuses them (WEFT_EINVAL) and the bindings
 * report them unsupported before they get here.
 */
#include "engine/coll/coll_impl.h"

const wmpi_coll_fn wmpi_coll_inter_schedules[WMPI_COLL_NKINDS] = { 0 };
