/* Communicators: the predefined ones (world, self) and the engine's own
 * closing-handshake communicator.
 *
 * Design: a communicator is a context id pair (ctx for point-to-point,
 * ctx + 1 for collectives), the caller's rank, the size, and a map from
 * its ranks to world ranks (NULL for the world itself, where they are the
 * same). Context ids 0..5 are fixed: world 0/1, self 2/3, and 4 for the
 * messages MPI_Finalize exchanges (wmpi_comm_final, a world-shaped
 * communicator no user can name, so its traffic never meets the user's).
 * MPI_Comm_dup/split (next issue) will allocate pairs from WMPI_CTX_FIRST
 * by agreeing on the lowest id free on every member (an allreduce over a
 * bitmap, as MPICH does); the matching queues already accept any id.
 *
 * Invariants: 0 <= rank < size; world[] has size entries when not NULL.
 * Rejected: context ids from a global counter bumped by every rank alike
 * (breaks as soon as two disjoint groups create communicators
 * concurrently).
 * Locking: set up once by MPI_Init before any other thread may use MPI;
 * read-only afterwards (errh is written by MPI_Comm_set_errhandler, a
 * pointer store).
 */
#include <string.h>

#include "engine/internal.h"

wmpi_comm wmpi_comm_world = { .ctx = WMPI_CTX_WORLD, .name = "MPI_COMM_WORLD" };
wmpi_comm wmpi_comm_self = { .ctx = WMPI_CTX_SELF, .name = "MPI_COMM_SELF" };
wmpi_comm wmpi_comm_final = { .ctx = WMPI_CTX_FINAL, .name = "(finalize)" };

static int self_map[1];

void wmpi_comms_init(int rank, int size)
{
    wmpi_comm_world.rank = rank;
    wmpi_comm_world.size = size;
    wmpi_comm_world.world = NULL;
    self_map[0] = rank;
    wmpi_comm_self.rank = 0;
    wmpi_comm_self.size = 1;
    wmpi_comm_self.world = self_map;
    wmpi_comm_final.rank = rank;
    wmpi_comm_final.size = size;
    wmpi_comm_final.world = NULL;
}
