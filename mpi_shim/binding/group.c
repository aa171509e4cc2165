/* Group bindings: MPI_Group_size, _rank, _translate_ranks, _compare,
 * _incl, _excl, _range_incl, _range_excl, _union, _intersection,
 * _difference and _free.
 *
 * Design: group handles point at the engine's wmpi_group
 * (engine/objects/comm.h); the bindings check handles and pointers, the engine
 * checks ranks. Classes follow Open MPI: a null group is MPI_ERR_GROUP, a bad
 * rank or range MPI_ERR_RANK, a bad count or null pointer MPI_ERR_ARG. Group
 * errors belong to no communicator: MPI_COMM_WORLD's handler reports them.
 * Freeing MPI_GROUP_EMPTY (which empty results are) only nulls the handle.
 *
 * Invariants: a new group has one reference, the caller's handle.
 * Locking: none (groups are immutable; counts are atomic).
 */
#include "binding/comm.h"

extern struct wmpi_group wmpi_pub_group_empty;

static int group_fail(int cls, const char *fn)
{
    return wbind_fail(NULL, cls, fn);
}

/* Engine result of a constructor: WEFT_EINVAL means a bad rank. g is
 * passed by address: it is read after the engine call that fills it. */
static int group_made(int err, wmpi_group *const *g, MPI_Group *out,
                      const char *fn)
{
    if (err == WEFT_EINVAL)
        return group_fail(MPI_ERR_RANK, fn);
    if (err)
        return wbind_return(NULL, err, fn);
    *out = *g;
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    WMPI_NEED_INIT("MPI_Group_size");
    if (!wmpi_group_is_valid(group))
        return group_fail(MPI_ERR_GROUP, "MPI_Group_size");
    if (!size)
        return group_fail(MPI_ERR_ARG, "MPI_Group_size");
    *size = group->size;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    WMPI_NEED_INIT("MPI_Group_rank");
    if (!wmpi_group_is_valid(group))
        return group_fail(MPI_ERR_GROUP, "MPI_Group_rank");
    if (!rank)
        return group_fail(MPI_ERR_ARG, "MPI_Group_rank");
    *rank = group->rank;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Group_rank)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                               MPI_Group group2, int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";

    WMPI_NEED_INIT("MPI_Group_translate_ranks");
    if (!wmpi_group_is_valid(group1) || !wmpi_group_is_valid(group2))
        return group_fail(MPI_ERR_GROUP, fn);
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return group_fail(MPI_ERR_ARG, fn);
    if (wmpi_group_translate(group1, n, ranks1, group2, ranks2))
        return group_fail(MPI_ERR_RANK, fn);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    WMPI_NEED_INIT("MPI_Group_compare");
    if (!wmpi_group_is_valid(group1) || !wmpi_group_is_valid(group2))
        return group_fail(MPI_ERR_GROUP, "MPI_Group_compare");
    if (!result)
        return group_fail(MPI_ERR_ARG, "MPI_Group_compare");
    *result = wmpi_group_compare(group1, group2);
    return MPI_SUCCESS;
}
WMPI_ALIAS(Group_compare)

/* ---------------------------------------------------------- selections */

static int check_select(MPI_Group group, int n, const void *list,
                        const MPI_Group *out)
{
    if (!wmpi_group_is_valid(group))
        return MPI_ERR_GROUP;
    if (n < 0 || (n > 0 && !list) || !out)
        return MPI_ERR_ARG;
    if (n > group->size)
        return MPI_ERR_RANK;
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    wmpi_group *g = NULL;
    int cls = check_select(group, n, ranks, newgroup);

    WMPI_NEED_INIT("MPI_Group_incl");
    if (cls)
        return group_fail(cls, "MPI_Group_incl");
    return group_made(wmpi_group_incl(group, n, ranks, &g), &g, newgroup,
                      "MPI_Group_incl");
}
WMPI_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    wmpi_group *g = NULL;
    int cls = check_select(group, n, ranks, newgroup);

    WMPI_NEED_INIT("MPI_Group_excl");
    if (cls)
        return group_fail(cls, "MPI_Group_excl");
    return group_made(wmpi_group_excl(group, n, ranks, &g), &g, newgroup,
                      "MPI_Group_excl");
}
WMPI_ALIAS(Group_excl)

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup)
{
    wmpi_group *g = NULL;
    int cls = check_select(group, n, ranges, newgroup);

    WMPI_NEED_INIT("MPI_Group_range_incl");
    if (cls)
        return group_fail(cls, "MPI_Group_range_incl");
    return group_made(wmpi_group_range_incl(group, n, ranges, &g), &g, newgroup,
                      "MPI_Group_range_incl");
}
WMPI_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                          MPI_Group *newgroup)
{
    wmpi_group *g = NULL;
    int cls = check_select(group, n, ranges, newgroup);

    WMPI_NEED_INIT("MPI_Group_range_excl");
    if (cls)
        return group_fail(cls, "MPI_Group_range_excl");
    return group_made(wmpi_group_range_excl(group, n, ranges, &g), &g, newgroup,
                      "MPI_Group_range_excl");
}
WMPI_ALIAS(Group_range_excl)

/* ---------------------------------------------------------------- sets */

typedef int set_fn(wmpi_group *, wmpi_group *, wmpi_group **);

static int set_op(set_fn *op, MPI_Group a, MPI_Group b, MPI_Group *out,
                  const char *fn)
{
    wmpi_group *g = NULL;

    WMPI_NEED_INIT(fn);
    if (!wmpi_group_is_valid(a) || !wmpi_group_is_valid(b))
        return group_fail(MPI_ERR_GROUP, fn);
    if (!out)
        return group_fail(MPI_ERR_ARG, fn);
    return group_made(op(a, b, &g), &g, out, fn);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(wmpi_group_union, group1, group2, newgroup, "MPI_Group_union");
}
WMPI_ALIAS(Group_union)

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(wmpi_group_intersection, group1, group2, newgroup,
                  "MPI_Group_intersection");
}
WMPI_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op(wmpi_group_difference, group1, group2, newgroup,
                  "MPI_Group_difference");
}
WMPI_ALIAS(Group_difference)

int PMPI_Group_free(MPI_Group *group)
{
    WMPI_NEED_INIT("MPI_Group_free");
    if (!group || !wmpi_group_is_valid(*group))
        return group_fail(MPI_ERR_GROUP, "MPI_Group_free");
    wmpi_group_release(*group);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
WMPI_ALIAS(Group_free)
