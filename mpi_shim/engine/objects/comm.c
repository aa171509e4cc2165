/* Communicators: the predefined ones (world, self, the engine's closing
 * one), the life of the others (build, reference counts, MPI_Comm_free,
 * destruction), comparison and names.
 *
 * Design: a communicator is a context id pair (ctx for point-to-point,
 * ctx + 1 for collectives), the caller's rank, the size, its group, and a
 * map from its ranks to world ranks (the group's array; NULL for the world
 * itself, where they are the same). Context ids 0..5 are fixed: world 0/1,
 * self 2/3, and 4 for the messages MPI_Finalize exchanges (wmpi_comm_final,
 * a world-shaped communicator no user can name, so its traffic never
 * meets the user's). Others come from comm_ctx.c, agreed by the members.
 *
 * Lifetime: reference counted. The user's handle is one reference, each
 * request started on the communicator another (start.c takes it,
 * request.c drops it), so MPI_Comm_free with operations pending is safe:
 * MPI_Comm_free runs the attribute delete callbacks (MPI wants them
 * there) and drops the handle; the object, its groups, topology and
 * context ids go with the last reference, possibly inside the engine's
 * progress (so destruction takes no engine lock and calls no user code).
 *
 * The memory of a destroyed communicator goes to the quarantine
 * (quarantine.c), not to malloc: a copy of its handle used afterwards
 * then reads the FREED mark in memory still ours and fails with
 * MPI_ERR_COMM, instead of reading freed memory.
 *
 * Rejected: freeing at MPI_Comm_free (a pending receive would then read
 * freed memory, and its context id could be reused under it).
 * Invariants: 0 <= rank < size; world[] has wmpi_comm_peers() entries
 * when not NULL; a communicator's group holds its members in rank order.
 * Locking: fields are written before the handle is returned and read-only
 * afterwards, except errh (a pointer store), refs (atomic) and the name
 * (name_lock).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll.h"
#include "engine/objects/comm.h"
#include "engine/objects/info.h"
#include "engine/objects/quarantine.h"
#include "engine/core/internal.h"

wmpi_comm wmpi_comm_world = { .ctx = WMPI_CTX_WORLD, .name = "MPI_COMM_WORLD",
                              .predefined = 1, .magic = WMPI_COMM_LIVE };
wmpi_comm wmpi_comm_self = { .ctx = WMPI_CTX_SELF, .name = "MPI_COMM_SELF",
                             .predefined = 1, .magic = WMPI_COMM_LIVE };
wmpi_comm wmpi_comm_final = { .ctx = WMPI_CTX_FINAL, .name = "(finalize)",
                              .predefined = 1, .magic = WMPI_COMM_LIVE };

static wmpi_lock name_lock = WMPI_LOCK_INITIALIZER;
static void (*destroy_hook)(wmpi_comm *c);

static wmpi_group *identity_group(int size)
{
    int *w = malloc((size_t)size * sizeof *w);
    wmpi_group *g = NULL;

    if (w) {
        for (int i = 0; i < size; i++)
            w[i] = i;
        wmpi_group_new(size, w, &g);
        free(w);
    }
    if (!g)
        wmpi_fatal("out of memory creating MPI_COMM_WORLD's group");
    return g;
}

void wmpi_comms_init(int rank, int size)
{
    wmpi_comm_world.rank = rank;
    wmpi_comm_world.size = size;
    wmpi_comm_world.world = NULL;
    if (!wmpi_comm_world.group)
        wmpi_comm_world.group = identity_group(size);
    if (!wmpi_comm_self.group && wmpi_group_new(1, &rank, &wmpi_comm_self.group))
        wmpi_fatal("out of memory creating MPI_COMM_SELF's group");
    wmpi_comm_self.rank = 0;
    wmpi_comm_self.size = 1;
    wmpi_comm_self.world = wmpi_comm_self.group->world;
    wmpi_comm_final.rank = rank;
    wmpi_comm_final.size = size;
    wmpi_comm_final.world = NULL;
    wmpi_attr_init_world(&wmpi_comm_world, size, wmpi_eng.boot.appnum);
}

/* ------------------------------------------------------------- life */

int wmpi_comm_build(wmpi_group *g, uint32_t ctx, int npairs, wmpi_comm **out)
{
    wmpi_comm *c = calloc(1, sizeof *c);

    *out = NULL;
    if (!c)
        return WEFT_ENOMEM;
    wmpi_group_retain(g);
    c->group = g;
    c->ctx = ctx;
    c->npairs = npairs;
    c->rank = g->rank;
    c->size = g->size;
    c->world = g->world;
    c->refs = 1;
    c->magic = WMPI_COMM_LIVE;
    *out = c;
    return 0;
}

void wmpi_comm_set_destroy_hook(void (*fn)(wmpi_comm *c))
{
    __atomic_store_n(&destroy_hook, fn, __ATOMIC_RELEASE);
}

void wmpi_comm_retain(wmpi_comm *c)
{
    if (c && !c->predefined)
        __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

static void destroy(wmpi_comm *c)
{
    void (*hook)(wmpi_comm *) = __atomic_load_n(&destroy_hook, __ATOMIC_ACQUIRE);

    if (hook)
        hook(c);
    wmpi_coll_shm_forget(c);
    wmpi_info_release(c->info);
    wmpi_attr_discard(c);
    wmpi_topo_free(c->topo);
    if (c->local)
        wmpi_comm_release(c->local);
    wmpi_group_release(c->group);
    wmpi_group_release(c->remote);
    wmpi_ctx_free(c->ctx, c->npairs);
    /* an internal communicator (a window's, an intercomm's local one) dies
     * here, not in MPI_Comm_free: its handle goes dead now */
    __atomic_store_n(&c->magic, WMPI_COMM_FREED, __ATOMIC_RELEASE);
    wmpi_quarantine_put(c);
}

void wmpi_comm_release(wmpi_comm *c)
{
    if (c && !c->predefined &&
        __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0)
        destroy(c);
}

int wmpi_comm_free(wmpi_comm *c)
{
    int err;

    if (c->predefined)
        return WEFT_EINVAL;
    err = wmpi_attr_delete_all(c);
    if (err)
        return err;
    /* the handle dies now, though pending requests keep c alive: a later
     * call through a copy of it fails instead of waiting forever */
    __atomic_store_n(&c->magic, WMPI_COMM_FREED, __ATOMIC_RELEASE);
    wmpi_comm_release(c);
    return 0;
}

/* ------------------------------------------------------------ queries */

static int worst(int a, int b)
{
    return a > b ? a : b;
}

int wmpi_comm_compare(const wmpi_comm *a, const wmpi_comm *b)
{
    int r;

    if (a == b)
        return WMPI_IDENT;
    if ((a->remote != NULL) != (b->remote != NULL))
        return WMPI_UNEQUAL;
    r = wmpi_group_compare(a->group, b->group);
    if (a->remote)
        r = worst(r, wmpi_group_compare(a->remote, b->remote));
    return r == WMPI_IDENT ? WMPI_CONGRUENT : r;
}

void wmpi_comm_set_name(wmpi_comm *c, const char *name)
{
    wmpi_lock_take(&name_lock);
    strncpy(c->name, name, sizeof c->name - 1);
    c->name[sizeof c->name - 1] = '\0';
    wmpi_lock_release(&name_lock);
}

void wmpi_comm_get_name(wmpi_comm *c, char *name, int *len)
{
    wmpi_lock_take(&name_lock);
    strcpy(name, c->name);
    wmpi_lock_release(&name_lock);
    *len = (int)strlen(name);
}
