/* MPI_Barrier opens few connections, however many ranks share a CPU.
 * Where ranks share CPUs the barrier gathers each CPU's ranks to one
 * leader; over TCP every pair that trades a message holds a connection,
 * so a leader that heard from each of its ranks directly would hold one
 * per rank. Each rank runs BARRIERS barriers (all of its traffic), then
 * counts its connections to other ranks: under Weft over TCP
 * (WEFT_MPI_TRANSPORT=tcp) at most MAX_PEERS, the bound the barrier's
 * tree keeps (7 children, a parent or another CPU's leader). The ranks
 * count between two barriers, so no rank closes a connection before all
 * have counted. Elsewhere (shared memory, another MPI) only the barriers
 * run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup, strtok_r */
#endif
#include "mpi_test_util.h"
#include "tcp_peers.h"

#define BARRIERS 20
#define MAX_PEERS 8

int main(int argc, char **argv)
{
    int rank, size, mine, most;
    const char *tr = getenv("WEFT_MPI_TRANSPORT");
    int counting = getenv("WEFT_MPI_CONTROL") && tr && strcmp(tr, "tcp") == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < BARRIERS; i++)
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    mine = counting ? tcp_peer_connections() : 0;
    MPI_OK(MPI_Reduce(&mine, &most, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
    CHECK(mine <= MAX_PEERS, "%d connections to other ranks after %d barriers of %d ranks, "
          "expected at most %d", mine, BARRIERS, size, MAX_PEERS);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("p2p_barrier_peers: ok (%d ranks, at most %d connections a rank)\n", size, most);
    MPI_Finalize();
    return 0;
}
