/* Communicator bindings: queries (MPI_Comm_rank, _size, _compare,
 * _test_inter, _remote_size, _group, _remote_group, names) and the
 * constructors and destructor (MPI_Comm_dup, _dup_with_info, _idup, _split,
 * _split_type, _create, _create_group, _free).
 *
 * Design: a communicator handle points at the engine's wmpi_comm; queries
 * read its read-only fields, constructors check their arguments and call
 * engine/objects/comm.h, and the new communicator inherits the parent's error
 * handler (binding/comm.h). Classes follow Open MPI: a null or freed
 * communicator is MPI_ERR_COMM, a null output pointer MPI_ERR_ARG, a bad
 * group MPI_ERR_GROUP. Dup, idup, split, split_type and create take an
 * intercommunicator too (MPI-2's forms); create_group takes only an
 * intracommunicator, as the standard says, and an intercommunicator is
 * MPI_ERR_COMM.
 *
 * Rejected: caching rank/size in the binding (the engine's object is the
 * one truth; reading it costs one load).
 * Invariants: every constructor either returns MPI_SUCCESS with *newcomm
 * set (maybe MPI_COMM_NULL) or goes through the error handler.
 * Locking: none here (the engine locks what it shares).
 */
#include <string.h>

#include "binding/comm.h"

_Static_assert(MPI_UNDEFINED == WMPI_UNDEFINED, "MPI_UNDEFINED");
_Static_assert(MPI_IDENT == WMPI_IDENT && MPI_CONGRUENT == WMPI_CONGRUENT &&
               MPI_SIMILAR == WMPI_SIMILAR && MPI_UNEQUAL == WMPI_UNEQUAL,
               "comparison results");
_Static_assert(MPI_MAX_OBJECT_NAME == WMPI_NAME_MAX, "MPI_MAX_OBJECT_NAME");

/* --------------------------------------------------------------- queries */

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    WMPI_NEED_INIT("MPI_Comm_rank");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_rank");
    if (!rank)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_rank");
    *rank = comm->rank;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    WMPI_NEED_INIT("MPI_Comm_size");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_size");
    if (!size)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_size");
    *size = comm->size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_size)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    WMPI_NEED_INIT("MPI_Comm_compare");
    if (!wmpi_comm_is_live(comm1) || !wmpi_comm_is_live(comm2))
        return wbind_fail(comm1, MPI_ERR_COMM, "MPI_Comm_compare");
    if (!result)
        return wbind_fail(comm1, MPI_ERR_ARG, "MPI_Comm_compare");
    *result = wmpi_comm_compare(comm1, comm2);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    WMPI_NEED_INIT("MPI_Comm_test_inter");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_test_inter");
    if (!flag)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_test_inter");
    *flag = comm->remote != NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_test_inter)

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    WMPI_NEED_INIT("MPI_Comm_remote_size");
    if (!wmpi_comm_is_live(comm) || !comm->remote)
        return wbind_fail(comm, MPI_ERR_COMM, "MPI_Comm_remote_size");
    if (!size)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_remote_size");
    *size = comm->remote_size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_remote_size)

static int group_out(MPI_Comm comm, wmpi_group *g, MPI_Group *group,
                     const char *fn)
{
    if (!group)
        return wbind_fail(comm, MPI_ERR_ARG, fn);
    wmpi_group_retain(g);
    *group = g;
    return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    WMPI_NEED_INIT("MPI_Comm_group");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_group");
    return group_out(comm, comm->group, group, "MPI_Comm_group");
}
WMPI_ALIAS(Comm_group)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    WMPI_NEED_INIT("MPI_Comm_remote_group");
    if (!wmpi_comm_is_live(comm) || !comm->remote)
        return wbind_fail(comm, MPI_ERR_COMM, "MPI_Comm_remote_group");
    return group_out(comm, comm->remote, group, "MPI_Comm_remote_group");
}
WMPI_ALIAS(Comm_remote_group)

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    WMPI_NEED_INIT("MPI_Comm_set_name");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_set_name");
    if (!comm_name)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_set_name");
    wmpi_comm_set_name(comm, comm_name);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    WMPI_NEED_INIT("MPI_Comm_get_name");
    if (!wmpi_comm_is_live(comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_get_name");
    if (!comm_name || !resultlen)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_get_name");
    wmpi_comm_get_name(comm, comm_name, resultlen);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_get_name)

/* ---------------------------------------------------------- constructors */

/* The engine's result of a constructor: the handle, or the error (nc is
 * passed by address: it is read after the engine call that fills it). */
static int made(MPI_Comm comm, int err, wmpi_comm *const *nc, MPI_Comm *newcomm,
                const char *fn)
{
    if (err)
        return wbind_return(comm, err, fn);
    wbind_comm_out(comm, *nc, newcomm);
    return MPI_SUCCESS;
}

/* What a constructor does with an intercommunicator: makes one, or
 * cannot yet (mpirun --list-unsupported names those). */
enum { INTER_OK, INTRA_ONLY };

/* The checks every constructor makes: 0 or the class. */
static int check_new(MPI_Comm comm, const MPI_Comm *newcomm, int inter)
{
    if (!wmpi_comm_is_live(comm))
        return MPI_ERR_COMM;
    if (!newcomm)
        return MPI_ERR_ARG;
    if (inter == INTRA_ONLY && comm->remote)
        return MPI_ERR_COMM;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls;

    WMPI_NEED_INIT("MPI_Comm_dup");
    if ((cls = check_new(comm, newcomm, INTER_OK)))
        return wbind_fail(comm, cls, "MPI_Comm_dup");
    return made(comm, wmpi_comm_dup(comm, &nc), &nc, newcomm, "MPI_Comm_dup");
}
WMPI_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls;

    WMPI_NEED_INIT("MPI_Comm_dup_with_info");
    if ((cls = check_new(comm, newcomm, INTER_OK)) || (cls = wbind_check_info(info)))
        return wbind_fail(comm, cls, "MPI_Comm_dup_with_info");
    return made(comm, wmpi_comm_dup_with_info(comm, info, &nc), &nc, newcomm,
                "MPI_Comm_dup_with_info");
}
WMPI_ALIAS(Comm_dup_with_info)

/* MPI_Comm_idup's hand-over, in the duplication's thread just before
 * its request completes: the handle is valid from completion on. */
static void idup_publish(wmpi_comm *parent, wmpi_comm *nc, void *slot)
{
    wbind_comm_out(parent, nc, slot);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    int cls;

    WMPI_NEED_INIT("MPI_Comm_idup");
    if (request)
        *request = MPI_REQUEST_NULL;
    if ((cls = check_new(comm, newcomm, INTER_OK)))
        return wbind_fail(comm, cls, "MPI_Comm_idup");
    if (!request)
        return wbind_fail(comm, MPI_ERR_REQUEST, "MPI_Comm_idup");
    return wbind_return(comm, wmpi_comm_idup(comm, idup_publish, newcomm, request),
                        "MPI_Comm_idup");
}
WMPI_ALIAS(Comm_idup)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls;

    WMPI_NEED_INIT("MPI_Comm_split");
    if ((cls = check_new(comm, newcomm, INTER_OK)))
        return wbind_fail(comm, cls, "MPI_Comm_split");
    if (color < 0 && color != MPI_UNDEFINED)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_split");
    return made(comm, wmpi_comm_split(comm, color, key, &nc), &nc, newcomm,
                "MPI_Comm_split");
}
WMPI_ALIAS(Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                         MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls;

    WMPI_NEED_INIT("MPI_Comm_split_type");
    /* no hint is used for the split yet, but a bad handle is still bad */
    if ((cls = check_new(comm, newcomm, INTER_OK)) || (cls = wbind_check_info(info)))
        return wbind_fail(comm, cls, "MPI_Comm_split_type");
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED)
        return wbind_fail(comm, MPI_ERR_ARG, "MPI_Comm_split_type");
    return made(comm,
                wmpi_comm_split_shared(comm, split_type == MPI_COMM_TYPE_SHARED,
                                       key, &nc),
                &nc, newcomm, "MPI_Comm_split_type");
}
WMPI_ALIAS(Comm_split_type)

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls, err;

    WMPI_NEED_INIT("MPI_Comm_create");
    if ((cls = check_new(comm, newcomm, INTER_OK)))
        return wbind_fail(comm, cls, "MPI_Comm_create");
    if (!wmpi_group_is_valid(group))
        return wbind_fail(comm, MPI_ERR_GROUP, "MPI_Comm_create");
    err = wmpi_comm_create(comm, group, &nc);
    if (err == WEFT_EINVAL) /* not a subgroup of comm's group */
        return wbind_fail(comm, MPI_ERR_GROUP, "MPI_Comm_create");
    return made(comm, err, &nc, newcomm, "MPI_Comm_create");
}
WMPI_ALIAS(Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag,
                           MPI_Comm *newcomm)
{
    wmpi_comm *nc = NULL;
    int cls, err;

    WMPI_NEED_INIT("MPI_Comm_create_group");
    if ((cls = check_new(comm, newcomm, INTRA_ONLY)))
        return wbind_fail(comm, cls, "MPI_Comm_create_group");
    if (!wmpi_group_is_valid(group))
        return wbind_fail(comm, MPI_ERR_GROUP, "MPI_Comm_create_group");
    if (tag < 0 || tag > WMPI_TAG_UB)
        return wbind_fail(comm, MPI_ERR_TAG, "MPI_Comm_create_group");
    err = wmpi_comm_create_group(comm, group, tag, &nc);
    if (err == WEFT_EINVAL) /* not a subgroup of comm's group */
        return wbind_fail(comm, MPI_ERR_GROUP, "MPI_Comm_create_group");
    return made(comm, err, &nc, newcomm, "MPI_Comm_create_group");
}
WMPI_ALIAS(Comm_create_group)

/* ----------------------------------------------------------------- free */

int PMPI_Comm_free(MPI_Comm *comm)
{
    MPI_Comm c;
    int err;

    WMPI_NEED_INIT("MPI_Comm_free");
    if (!comm || !wmpi_comm_is_live(*comm))
        return wbind_fail(NULL, MPI_ERR_COMM, "MPI_Comm_free");
    c = *comm;
    if (c->predefined)
        return wbind_fail(c, MPI_ERR_COMM, "MPI_Comm_free");
    err = wmpi_comm_free(c);
    if (err) /* a delete callback failed: the communicator stays */
        return wbind_return(c, err, "MPI_Comm_free");
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Comm_free)
