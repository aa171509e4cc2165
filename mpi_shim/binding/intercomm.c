/* Intercommunicator bindings: MPI_Intercomm_create and
 * MPI_Intercomm_merge (MPI_Comm_dup, _free, _test_inter, _remote_size and
 * _remote_group of intercommunicators are in comm.c).
 *
 * Design: argument checks, then engine/create/intercomm.c. The peer
 * communicator and remote leader are significant only at the local leader
 * (MPI-3.1 6.6.2), so only the leader checks them. Classes: a null or
 * intercommunicator local_comm, or a bad peer at the leader, is MPI_ERR_COMM;
 * a leader out of range MPI_ERR_RANK; a bad tag MPI_ERR_TAG; overlapping
 * groups MPI_ERR_ARG. Merging an intracommunicator is MPI_ERR_COMM. Locking:
 * none here.
 */
#include "binding/comm.h"

static int check_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                        int remote_leader, int tag, const MPI_Comm *newcomm)
{
    if (!wmpi_comm_is_live(local_comm) || local_comm->remote)
        return MPI_ERR_COMM;
    if (!newcomm)
        return MPI_ERR_ARG;
    if (local_leader < 0 || local_leader >= local_comm->size)
        return MPI_ERR_RANK;
    if (tag < 0 || tag > WMPI_TAG_UB)
        return MPI_ERR_TAG;
    if (local_comm->rank != local_leader)
        return MPI_SUCCESS;
    if (!wmpi_comm_is_live(peer_comm) || peer_comm->remote)
        return MPI_ERR_COMM;
    if (remote_leader < 0 || remote_leader >= peer_comm->size ||
        remote_leader == peer_comm->rank)
        return MPI_ERR_RANK;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
                          MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm *newintercomm)
{
    wmpi_comm *nc = NULL;
    int cls = check_create(local_comm, local_leader, peer_comm, remote_leader,
                           tag, newintercomm);
    int err;

    WMPI_NEED_INIT("MPI_Intercomm_create");
    if (cls)
        return wbind_fail(local_comm, cls, "MPI_Intercomm_create");
    err = wmpi_intercomm_create(local_comm, local_leader,
                                local_comm->rank == local_leader ? peer_comm : NULL,
                                remote_leader, tag, &nc);
    if (err)
        return wbind_return(local_comm, err, "MPI_Intercomm_create");
    wbind_comm_out(local_comm, nc, newintercomm);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Intercomm_create)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    wmpi_comm *nc = NULL;
    int err;

    WMPI_NEED_INIT("MPI_Intercomm_merge");
    if (!wmpi_comm_is_live(intercomm) || !intercomm->remote)
        return wbind_fail(intercomm, MPI_ERR_COMM, "MPI_Intercomm_merge");
    if (!newintracomm)
        return wbind_fail(intercomm, MPI_ERR_ARG, "MPI_Intercomm_merge");
    err = wmpi_intercomm_merge(intercomm, high, &nc);
    if (err)
        return wbind_return(intercomm, err, "MPI_Intercomm_merge");
    wbind_comm_out(intercomm, nc, newintracomm);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Intercomm_merge)
