/* Making intracommunicators from one: MPI_Comm_dup (and _with_info),
 * MPI_Comm_split, MPI_Comm_split_type(MPI_COMM_TYPE_SHARED),
 * MPI_Comm_create and MPI_Comm_create_group (of an intercommunicator,
 * dup, split and create hand over to intercomm.c and intercomm_split.c).
 *
 * Design: every constructor is "decide the members, agree on a context
 * id, build": the members come from data every rank already has (dup,
 * create: the parent's or the given group) or gather (split: an allgather
 * of (colour, key); split_type: of host names), then the whole parent
 * votes on a context id (comm_ctx.c), members and non-members alike, since
 * the vote is a collective over the parent; non-members give their id
 * back at once. A split's new ranks are ordered by key, ties by parent
 * rank (MPI-3.1 6.4.2), with a stable sort of the gathered pairs.
 *
 * Rejected: one allgather per colour, or a sort at a root followed by a
 * scatter (an allgather of two ints a rank is cheaper at our sizes and
 * lets every rank sort locally).
 * Invariants: on success *out has one reference and a group in rank order.
 * Locking: none of their own; the collectives block the caller only.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/coll/coll.h"
#include "engine/objects/comm.h"
#include "engine/objects/info.h"
#include "engine/core/internal.h"

extern wmpi_datatype wmpi_dt_int, wmpi_dt_char;

/* Agree on a context id over c, then build the communicator of group g
 * (shared, not copied; NULL: this rank is not a member, *out NULL). */
static int create_over(wmpi_comm *c, wmpi_group *g, wmpi_comm **out)
{
    uint32_t ctx;
    int err;

    *out = NULL;
    err = wmpi_ctx_alloc(c, 1, NULL, &ctx);
    if (err)
        return err;
    if (g)
        err = wmpi_comm_build(g, ctx, 1, out);
    if (!*out) /* not a member, or no memory: give the id back */
        wmpi_ctx_free(ctx, 1);
    return err;
}

/* --------------------------------------------------------------- dup */

static int dup_with(wmpi_comm *c, struct wmpi_info *info, wmpi_comm **out)
{
    wmpi_comm *nc;
    int err;

    *out = NULL;
    if (c->remote)
        return wmpi_intercomm_dup(c, info, out);
    err = create_over(c, c->group, &nc);
    if (err)
        return err;
    if (c->topo && !(nc->topo = wmpi_topo_dup(c->topo)))
        err = WEFT_ENOMEM;
    if (!err && info)
        err = wmpi_info_dup(info, &nc->info);
    if (!err)
        err = wmpi_attr_copy_all(c, nc);
    if (err) {
        wmpi_attr_delete_all(nc);
        wmpi_comm_release(nc);
        return err;
    }
    *out = nc;
    return 0;
}

int wmpi_comm_dup(wmpi_comm *c, wmpi_comm **out)
{
    return dup_with(c, c->info, out);
}

int wmpi_comm_dup_with_info(wmpi_comm *c, struct wmpi_info *info,
                            wmpi_comm **out)
{
    return dup_with(c, info, out);
}

/* ------------------------------------------------------------- split */

typedef struct member {
    int key, rank;
} member;

static int by_key_then_rank(const void *a, const void *b)
{
    const member *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int wmpi_split_members(const int *table, int n, int color, const int *world, int *out)
{
    member *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
    int k = 0;

    if (!m)
        return WEFT_ENOMEM;
    for (int r = 0; r < n; r++)
        if (table[2 * r] == color)
            m[k++] = (member){ table[2 * r + 1], r };
    qsort(m, (size_t)k, sizeof *m, by_key_then_rank);
    for (int i = 0; i < k; i++)
        out[i] = world ? world[m[i].rank] : m[i].rank;
    free(m);
    return k;
}

/* The world ranks of colour `color` in new-rank order; *n = 0 for
 * WMPI_UNDEFINED. `all` holds every rank's (colour, key). */
static int members_of(const wmpi_comm *c, const int *all, int color,
                      int **world, int *n)
{
    *n = 0;
    *world = malloc((size_t)c->size * sizeof **world);
    if (!*world)
        return WEFT_ENOMEM;
    if (color == WMPI_UNDEFINED)
        return 0;
    int k = wmpi_split_members(all, c->size, color, c->world, *world);
    if (k < 0)
        return k;
    *n = k;
    return 0;
}

int wmpi_comm_split(wmpi_comm *c, int color, int key, wmpi_comm **out)
{
    int mine[2] = { color, key }, *all, *world = NULL, n = 0, err;
    wmpi_group *g = NULL;

    *out = NULL;
    if (c->remote)
        return wmpi_intercomm_split(c, color, key, out);
    all = malloc((size_t)c->size * 2 * sizeof *all);
    if (!all)
        return WEFT_ENOMEM;
    err = wmpi_allgather(mine, 2, &wmpi_dt_int, all, 2, &wmpi_dt_int, c);
    if (!err)
        err = members_of(c, all, color, &world, &n);
    if (!err && n > 0)
        err = wmpi_group_new(n, world, &g);
    /* every rank votes, even after a local failure, or the others hang */
    if (!err)
        err = create_over(c, g, out);
    wmpi_group_release(g);
    free(all);
    free(world);
    return err;
}

/* -------------------------------------------------------- split_type */

#define HOST_MAX 256

static void host_name(char *buf)
{
    const char *env = getenv("WEFT_MPI_HOST");

    memset(buf, 0, HOST_MAX);
    if (env && *env)
        strncpy(buf, env, HOST_MAX - 1);
    else if (gethostname(buf, HOST_MAX - 1) != 0)
        strcpy(buf, "localhost");
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* An intercommunicator's colour for this rank's host, the same in both
 * groups: the host's place among the distinct hosts of both groups,
 * sorted by name. */
static int inter_host_color(wmpi_comm *c, const char *mine, int *color)
{
    size_t n = (size_t)c->size + (size_t)c->remote_size;
    char *all = malloc(n * HOST_MAX);
    int err;

    if (!all)
        return WEFT_ENOMEM;
    err = wmpi_allgather(mine, HOST_MAX, &wmpi_dt_char, all, HOST_MAX, &wmpi_dt_char,
                         c->local);
    if (!err) /* on an intercommunicator: the remote group's names */
        err = wmpi_allgather(mine, HOST_MAX, &wmpi_dt_char, all + (size_t)c->size * HOST_MAX,
                             HOST_MAX, &wmpi_dt_char, c);
    if (!err) {
        qsort(all, n, HOST_MAX, by_name);
        *color = 0;
        for (size_t i = 1; i < n && strcmp(all + (i - 1) * HOST_MAX, mine) != 0; i++)
            *color += strcmp(all + i * HOST_MAX, all + (i - 1) * HOST_MAX) != 0;
    }
    free(all);
    return err;
}

/* An intracommunicator's colour for this rank's host: the lowest rank on
 * it. */
static int intra_host_color(wmpi_comm *c, const char *mine, int *color)
{
    char *all = malloc((size_t)c->size * HOST_MAX);
    int err;

    if (!all)
        return WEFT_ENOMEM;
    err = wmpi_allgather(mine, HOST_MAX, &wmpi_dt_char, all, HOST_MAX, &wmpi_dt_char, c);
    *color = 0;
    while (!err && strcmp(all + (size_t)*color * HOST_MAX, mine) != 0)
        (*color)++;
    free(all);
    return err;
}

int wmpi_comm_split_shared(wmpi_comm *c, int member, int key, wmpi_comm **out)
{
    char mine[HOST_MAX];
    int color, err;

    *out = NULL;
    host_name(mine);
    err = c->remote ? inter_host_color(c, mine, &color) : intra_host_color(c, mine, &color);
    if (err)
        return err;
    return wmpi_comm_split(c, member ? color : WMPI_UNDEFINED, key, out);
}

/* ------------------------------------------------------------ create */

int wmpi_comm_create(wmpi_comm *c, wmpi_group *g, wmpi_comm **out)
{
    *out = NULL;
    if (c->remote)
        return wmpi_intercomm_create_from(c, g, out);
    for (int i = 0; i < g->size; i++)
        if (wmpi_group_rank_of(c->group, g->world[i]) == WMPI_UNDEFINED)
            return WEFT_EINVAL;
    return create_over(c, g->rank == WMPI_UNDEFINED ? NULL : g, out);
}

/* MPI_Comm_create_group: only g's members call it, so the vote runs on a
 * stand-in communicator of g (never handed out, not counted) sending on
 * c's collective context under a tag made from the user's (comm_ctx.c). */
int wmpi_comm_create_group(wmpi_comm *c, wmpi_group *g, int tag,
                           wmpi_comm **out)
{
    wmpi_comm voters = { 0 };
    uint32_t ctx;
    int err;

    *out = NULL;
    if (c->remote)
        return WEFT_EINVAL;
    for (int i = 0; i < g->size; i++)
        if (wmpi_group_rank_of(c->group, g->world[i]) == WMPI_UNDEFINED)
            return WEFT_EINVAL;
    if (g->rank == WMPI_UNDEFINED)
        return 0; /* not a member: MPI_COMM_NULL */
    voters.ctx = c->ctx;
    voters.rank = g->rank;
    voters.size = g->size;
    voters.world = g->world;
    voters.group = g;
    voters.predefined = 1; /* requests need not count it */
    err = wmpi_ctx_alloc_tagged(&voters, tag, &ctx);
    if (err)
        return err;
    err = wmpi_comm_build(g, ctx, 1, out);
    if (err)
        wmpi_ctx_free(ctx, 1);
    return err;
}
