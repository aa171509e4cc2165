/* The engine's communicator interface beyond point-to-point: groups,
 * communicator creation and destruction, attribute caching, names,
 * topologies and intercommunicators (for the bindings: binding/comm.c,
 * group.c, attr.c, topo.c, topo_graph.c, intercomm.c).
 *
 * Objects: a group is an ordered list of world ranks; a communicator
 * (engine.h) holds its group, a context id pair, its attributes and
 * optionally a topology or a remote group (intercommunicator).
 * Both are reference counted: a user handle is one reference; a
 * communicator holds its groups; every request on a communicator holds
 * it, so MPI_Comm_free with operations pending is safe (the object goes
 * when the last of them completes).
 *
 * Errors: 0 or a negative WEFT_E* code; functions that run user attribute
 * callbacks may also return the MPI error code a callback returned, as
 * wmpi_err_from_mpi(code) (engine.h), for the binding to report.
 *
 * Threads: everything may be called from any thread; none holds the
 * engine lock while it runs user code. Functions marked "collective"
 * block the caller until the members have taken part.
 */
#ifndef WMPI_COMM_H
#define WMPI_COMM_H

#include <stdint.h>

#include "engine/engine.h"

struct wmpi_info;

#define WMPI_UNDEFINED (-32766) /* MPI_UNDEFINED */

/* Comparison results (MPI_IDENT...). */
enum { WMPI_IDENT = 0, WMPI_CONGRUENT = 1, WMPI_SIMILAR = 2, WMPI_UNEQUAL = 3 };

/* ----------------------------------------------------------------- groups */

typedef struct wmpi_group {
    int refs;           /* private, atomic: handles + communicators */
    int predefined;     /* read-only: MPI_GROUP_EMPTY, never freed */
    int size;           /* read-only */
    int rank;           /* read-only: the caller's rank, or WMPI_UNDEFINED */
    int world[];        /* read-only: [size] world rank of each member */
} wmpi_group;

extern wmpi_group wmpi_pub_group_empty; /* MPI_GROUP_EMPTY */

/* 1 if g looks like a group handle: not NULL, not a small integer or
 * misaligned pointer, and predefined or still referenced (zeroed memory
 * is neither). Like wmpi_comm_is_live, it cannot vouch for a wild or
 * freed pointer whose memory was reused. */
static inline int wmpi_group_is_valid(const wmpi_group *g)
{
    uintptr_t p = (uintptr_t)g;

    return p >= 4096 && p % _Alignof(wmpi_group) == 0 &&
           (g->predefined || __atomic_load_n(&g->refs, __ATOMIC_ACQUIRE) > 0);
}

/* A group of the `n` world ranks in `world` (in that order), one
 * reference; n == 0 gives MPI_GROUP_EMPTY. Errors: WEFT_ENOMEM. */
int wmpi_group_new(int n, const int *world, wmpi_group **out);
void wmpi_group_retain(wmpi_group *g);
/* Drop a reference (predefined groups and NULL are left alone). */
void wmpi_group_release(wmpi_group *g);

/* The group algebra of MPI-3.1 section 6.3.2; each makes a new group (or
 * MPI_GROUP_EMPTY) in *out. Errors: WEFT_EINVAL (a rank out of range or
 * named twice, a bad range triplet: MPI_ERR_RANK), WEFT_ENOMEM. */
int wmpi_group_incl(wmpi_group *g, int n, const int *ranks, wmpi_group **out);
int wmpi_group_excl(wmpi_group *g, int n, const int *ranks, wmpi_group **out);
int wmpi_group_range_incl(wmpi_group *g, int n, int ranges[][3], wmpi_group **out);
int wmpi_group_range_excl(wmpi_group *g, int n, int ranges[][3], wmpi_group **out);
int wmpi_group_union(wmpi_group *a, wmpi_group *b, wmpi_group **out);
int wmpi_group_intersection(wmpi_group *a, wmpi_group *b, wmpi_group **out);
int wmpi_group_difference(wmpi_group *a, wmpi_group *b, wmpi_group **out);

/* out[i] = the rank in b of rank ranks[i] of a (WMPI_UNDEFINED if not a
 * member; WMPI_PROC_NULL stays). Errors: WEFT_EINVAL (a rank out of a's
 * range: nothing written). */
int wmpi_group_translate(wmpi_group *a, int n, const int *ranks,
                         wmpi_group *b, int *out);
/* WMPI_IDENT (same members, same order), WMPI_SIMILAR or WMPI_UNEQUAL. */
int wmpi_group_compare(const wmpi_group *a, const wmpi_group *b);
/* The rank in g of world rank `w`, or WMPI_UNDEFINED. */
int wmpi_group_rank_of(const wmpi_group *g, int w);

/* ---------------------------------------------------- communicator life */

void wmpi_comm_retain(wmpi_comm *c);
/* Drop a reference; the last one destroys c (its groups, topology, the
 * context ids, the bindings' hook). Predefined communicators are never
 * destroyed. Blocks: no; may run under the engine lock. */
void wmpi_comm_release(wmpi_comm *c);

/* What the bindings attached to a communicator (its error handler's
 * reference) is dropped by this hook when the communicator is destroyed;
 * set by the bindings before they create one (an idempotent store). */
void wmpi_comm_set_destroy_hook(void (*fn)(wmpi_comm *c));

/* MPI_Comm_free: run the delete callbacks of c's attributes, then drop
 * the handle's reference. Errors: a callback's code (c is then
 * left alive, as MPI says), WEFT_EINVAL (a predefined communicator). */
int wmpi_comm_free(wmpi_comm *c);

/* MPI_Comm_compare: WMPI_IDENT, CONGRUENT, SIMILAR or UNEQUAL. */
int wmpi_comm_compare(const wmpi_comm *a, const wmpi_comm *b);

/* MPI_Comm_set_name / get_name (name holds WMPI_NAME_MAX bytes). */
#define WMPI_NAME_MAX 64
void wmpi_comm_set_name(wmpi_comm *c, const char *name);
void wmpi_comm_get_name(wmpi_comm *c, char *name, int *len);

/* ------------------------------------------------- creation (collective) */

/* Each gives the new communicator in *out (NULL where MPI gives
 * MPI_COMM_NULL) with one reference; collective over c (create_group: over
 * g's members only, using `tag` on c). The new communicator has no name,
 * no error handler (the binding copies c's), and, for dup, c's attributes
 * (through their copy callbacks), topology and info hints.
 * Errors: those of the messages, WEFT_ENOMEM, -ENOSPC (no context id free
 * on every member), WEFT_EINVAL (g not a subgroup of c), a copy
 * callback's code. Blocks: the caller. */
int wmpi_comm_dup(wmpi_comm *c, wmpi_comm **out);
/* As dup, with a copy of `info`'s hints (NULL: none) instead of c's. */
int wmpi_comm_dup_with_info(wmpi_comm *c, struct wmpi_info *info,
                            wmpi_comm **out);
int wmpi_comm_split(wmpi_comm *c, int color, int key, wmpi_comm **out);
/* MPI_COMM_TYPE_SHARED: the ranks on this rank's host (WEFT_MPI_HOST as
 * the launcher set it, else gethostname); member 0: MPI_UNDEFINED (this
 * rank takes part and gets no communicator). On an intercommunicator: the
 * intercommunicator between each host's ranks of the two groups (none
 * where one group has no rank on that host), as MPI_Comm_split makes. */
int wmpi_comm_split_shared(wmpi_comm *c, int member, int key, wmpi_comm **out);
int wmpi_comm_create(wmpi_comm *c, wmpi_group *g, wmpi_comm **out);
int wmpi_comm_create_group(wmpi_comm *c, wmpi_group *g, int tag,
                           wmpi_comm **out);

/* ------------------------ context ids (create/comm_ctx.c, objects/ctx.c) */

/* Agree with every member of intracommunicator c on `npairs` consecutive
 * context id pairs free on all of them; the first context id in *ctx.
 * `bridge` (may be NULL) joins another group's vote in (intercommuni-
 * cators): its fn runs on c's rank `root` between the members' vote and
 * the result, ANDs the other group's vote (`nwords` words) into mask and
 * returns 0 or an error; root then broadcasts the result.
 * Collective over c. Errors: those of the messages, -ENOSPC. */
typedef struct wmpi_ctx_bridge {
    int (*fn)(void *arg, uint64_t *mask, int nwords);
    void *arg;
    int root;
} wmpi_ctx_bridge;
int wmpi_ctx_alloc(wmpi_comm *c, int npairs, const wmpi_ctx_bridge *bridge,
                   uint32_t *ctx);
/* wmpi_ctx_alloc(c, 1, NULL, ctx) for MPI_Comm_create_group: c is a
 * communicator of the group's members only, which vote by point-to-point
 * messages on c's collective context (c->ctx + 1), tagged from `tag`
 * (>= 0) apart from the collectives' own, instead of a collective. */
int wmpi_ctx_alloc_tagged(wmpi_comm *c, int tag, uint32_t *ctx);
/* wmpi_ctx_alloc for a nonblocking creation: over k->c (an intra-
 * communicator), every round's messages under the collective identity k
 * its call took (engine/coll/coll_impl.h), ordered among this rank's
 * allocations by `key` (wmpi_ctx_key_nonblocking, or a blocking one's
 * parent ctx << 32). Runs in the creation's own thread. */
struct wmpi_coll_call;
int wmpi_ctx_alloc_in(const struct wmpi_coll_call *k, int npairs,
                      const wmpi_ctx_bridge *bridge, uint64_t key, uint32_t *ctx);
/* The key of a nonblocking creation over `parent` whose call took
 * sequence number seq: distinct from every other creation's. */
uint64_t wmpi_ctx_key_nonblocking(const wmpi_comm *parent, uint32_t seq);
/* Give back what wmpi_ctx_alloc returned (local: no messages). */
void wmpi_ctx_free(uint32_t ctx, int npairs);
/* Context ids still allocated on this rank (for leak tests). */
int wmpi_ctx_in_use(void);

/* A new communicator over group g (retained) with context `ctx`; the
 * caller must be a member. Errors: WEFT_ENOMEM. Internal to the creation
 * files and intercomm.c. */
int wmpi_comm_build(wmpi_group *g, uint32_t ctx, int npairs, wmpi_comm **out);

/* -------------------------------------------------- attributes (attr.c) */

/* Callbacks, with the MPI types of MPI_Comm_copy_attr_function and
 * MPI_Comm_delete_attr_function (MPI_Comm is wmpi_comm *). */
typedef int wmpi_copy_attr_fn(wmpi_comm *old, int keyval, void *extra,
                              void *val_in, void *val_out, int *flag);
typedef int wmpi_delete_attr_fn(wmpi_comm *c, int keyval, void *val,
                                void *extra);

/* Predefined keyvals (MPI_TAG_UB... as mpi.h numbers them) and the first
 * user one. */
enum {
    WMPI_KEY_TAG_UB = 1, WMPI_KEY_HOST, WMPI_KEY_IO, WMPI_KEY_WTIME_IS_GLOBAL,
    WMPI_KEY_APPNUM, WMPI_KEY_UNIVERSE_SIZE, WMPI_KEY_LASTUSEDCODE,
    WMPI_KEY_FIRST_USER = 64
};

/* MPI_Comm_create_keyval (copy/del NULL: the null functions).
 * Errors: WEFT_ENOMEM. */
int wmpi_keyval_create(wmpi_copy_attr_fn *copy, wmpi_delete_attr_fn *del,
                       void *extra, int *keyval);
/* MPI_Comm_free_keyval: attributes set with it stay until deleted.
 * Errors: WEFT_EINVAL (not a user keyval: MPI_ERR_KEYVAL). */
int wmpi_keyval_free(int keyval);

/* Set, get, delete. Errors: WEFT_EINVAL (no such keyval, or a predefined
 * one for set/delete: MPI_ERR_KEYVAL), -ENOENT (delete: not set; Open MPI
 * reports MPI_ERR_OTHER),
 * WEFT_ENOMEM, a delete callback's code. */
int wmpi_attr_set(wmpi_comm *c, int keyval, void *val);
int wmpi_attr_get(wmpi_comm *c, int keyval, void **val, int *flag);
int wmpi_attr_delete(wmpi_comm *c, int keyval);
/* Copy old's attributes to fresh communicator nc through their copy
 * callbacks (MPI_Comm_dup). Errors: WEFT_ENOMEM, a callback's code. */
int wmpi_attr_copy_all(wmpi_comm *old, wmpi_comm *nc);
/* Delete every attribute of c (MPI_Comm_free), calling the delete
 * callbacks. Errors: the first callback error. */
int wmpi_attr_delete_all(wmpi_comm *c);
/* Free c's remaining entries without callbacks (destruction). */
void wmpi_attr_discard(wmpi_comm *c);
/* Attach the predefined attributes to world (MPI_Init); appnum is the
 * index of this rank's program in an MPMD launch (MPI_APPNUM). */
void wmpi_attr_init_world(wmpi_comm *world, int world_size, int appnum);
/* MPI_LASTUSEDCODE's value (the bindings own the error codes). */
void wmpi_attr_set_lastusedcode(int code);

/* Datatype attributes (MPI_Type_create_keyval...): the same engine and
 * the same errors as the communicator functions above. A keyval belongs
 * to the kind of object it was created for; used on another kind it is
 * unknown (WEFT_EINVAL: MPI_ERR_KEYVAL). */
enum wmpi_attr_kind { WMPI_ATTR_COMM = 0, WMPI_ATTR_TYPE = 1, WMPI_ATTR_WIN = 2 };
typedef int wmpi_type_copy_attr_fn(wmpi_datatype *old, int keyval,
                                   void *extra, void *val_in, void *val_out,
                                   int *flag);
typedef int wmpi_type_delete_attr_fn(wmpi_datatype *t, int keyval, void *val,
                                     void *extra);
int wmpi_type_keyval_create(wmpi_type_copy_attr_fn *copy,
                            wmpi_type_delete_attr_fn *del, void *extra,
                            int *keyval);
int wmpi_type_keyval_free(int keyval);
int wmpi_type_attr_set(wmpi_datatype *t, int keyval, void *val);
int wmpi_type_attr_get(wmpi_datatype *t, int keyval, void **val, int *flag);
int wmpi_type_attr_delete(wmpi_datatype *t, int keyval);
/* MPI_Type_dup: copy through the copy callbacks to fresh type nt. */
int wmpi_type_attr_copy_all(wmpi_datatype *old, wmpi_datatype *nt);
/* MPI_Type_free: delete every attribute through the delete callbacks. */
int wmpi_type_attr_delete_all(wmpi_datatype *t);
/* Free t's remaining entries without callbacks (destruction; takes the
 * attribute lock, a leaf lock, so it may run under the engine lock). */
void wmpi_type_attr_discard(wmpi_datatype *t);

/* Window attributes (MPI_Win_create_keyval...): the same again. Windows
 * are never duplicated, so a copy callback is kept but never called. */
struct wmpi_win;
typedef int wmpi_win_copy_attr_fn(struct wmpi_win *old, int keyval, void *extra, void *val_in,
                                  void *val_out, int *flag);
typedef int wmpi_win_delete_attr_fn(struct wmpi_win *w, int keyval, void *val, void *extra);
int wmpi_win_keyval_create(wmpi_win_copy_attr_fn *copy, wmpi_win_delete_attr_fn *del,
                           void *extra, int *keyval);
int wmpi_win_keyval_free(int keyval);
int wmpi_win_attr_set(struct wmpi_win *w, int keyval, void *val);
int wmpi_win_attr_get(struct wmpi_win *w, int keyval, void **val, int *flag);
int wmpi_win_attr_delete(struct wmpi_win *w, int keyval);
/* MPI_Win_free: delete every attribute through the delete callbacks. */
int wmpi_win_attr_delete_all(struct wmpi_win *w);

/* ------------------------------------------------------------ topologies */

/* MPI_Topo_test's answers (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH). */
enum wmpi_topo_kind { WMPI_TOPO_CART = 102, WMPI_TOPO_GRAPH = 101,
                      WMPI_TOPO_DIST_GRAPH = 103 };

/* One malloc'd block (wmpi_topo_free frees it); only the kind's fields
 * are set. The objects: engine/objects/topo.c; the communicators made for
 * them: engine/create/topo.c, topo_graph.c. */
typedef struct wmpi_topo {
    int kind;            /* enum wmpi_topo_kind */
    int ndims;           /* Cartesian: */
    int *dims, *periods; /* [ndims] */
    int *coords;         /* [ndims] the caller's coordinates */
    int nnodes, nedges;  /* graph: the whole graph as MPI_Graph_create got */
    int *index, *edges;  /* [nnodes], [nedges] */
    int indegree, outdegree; /* dist graph: the caller's own edges */
    int weighted;            /* 0: created with MPI_UNWEIGHTED */
    int *sources, *srcw;     /* [indegree] ranks, weights */
    int *dests, *dstw;       /* [outdegree] */
} wmpi_topo;

/* MPI_Cart_create: collective over c. *out NULL on ranks beyond the grid.
 * Errors: WEFT_EINVAL (grid larger than c: MPI_ERR_ARG), those of split. */
int wmpi_cart_create(wmpi_comm *c, int ndims, const int *dims,
                     const int *periods, wmpi_comm **out);
/* MPI_Cart_sub: collective over c (a Cartesian communicator). */
int wmpi_cart_sub(wmpi_comm *c, const int *remain, wmpi_comm **out);
/* Rank <-> coordinates in topology t. wmpi_cart_rank: WEFT_EINVAL for a
 * coordinate out of range in a non-periodic dimension. */
void wmpi_cart_coords(const wmpi_topo *t, int rank, int *coords);
int wmpi_cart_rank(const wmpi_topo *t, const int *coords, int *rank);
/* MPI_Cart_shift: source and destination (WMPI_PROC_NULL off an edge). */
void wmpi_cart_shift(const wmpi_topo *t, int rank, int dim, int disp,
                     int *src, int *dst);
/* The topology objects (engine/objects/topo.c), one malloc'd block each;
 * NULL: no memory. Cartesian: the caller (rank) gets its coordinates.
 * Graph: index/edges as MPI_Graph_create. Dist graph: the caller's own
 * edges; srcw, dstw NULL: unweighted. */
wmpi_topo *wmpi_topo_cart_new(int ndims, const int *dims, const int *periods,
                              int rank);
wmpi_topo *wmpi_topo_graph_new(int nnodes, const int *index, const int *edges);
wmpi_topo *wmpi_topo_dist_new(int indeg, const int *src, const int *srcw,
                              int outdeg, const int *dst, const int *dstw);
/* A copy of t (dup); NULL: no memory. */
wmpi_topo *wmpi_topo_dup(const wmpi_topo *t);
void wmpi_topo_free(wmpi_topo *t);

/* MPI_Graph_create: collective over c; ranks >= nnodes get *out NULL.
 * index/edges as MPI-3.1 7.5.3 (index cumulative); the binding has
 * checked them. Errors: those of split, WEFT_ENOMEM. */
int wmpi_graph_create(wmpi_comm *c, int nnodes, const int *index,
                      const int *edges, wmpi_comm **out);
/* The neighbours of `rank` in graph topology t: *n of them from *list. */
void wmpi_graph_neighbors(const wmpi_topo *t, int rank, const int **list,
                          int *n);
/* MPI_Dist_graph_create_adjacent: collective over c (all of it); weights
 * NULL: unweighted. Errors: those of split, WEFT_ENOMEM. */
int wmpi_dist_graph_create_adjacent(wmpi_comm *c, int indegree,
                                    const int *sources, const int *srcw,
                                    int outdegree, const int *dests,
                                    const int *dstw, wmpi_comm **out);
/* MPI_Dist_graph_create: collective over c; this rank's n sources, each
 * with degrees[i] destinations in dests (weights alike, NULL:
 * unweighted). Exchanges the edges so each rank learns its own.
 * Errors: those of the collectives and split, WEFT_ENOMEM. */
int wmpi_dist_graph_create(wmpi_comm *c, int n, const int *sources,
                           const int *degrees, const int *dests,
                           const int *weights, wmpi_comm **out);

/* --------------------------------------------------- intercommunicators */

/* MPI_Intercomm_create: collective over local and (through the leaders,
 * over peer with `tag`) the remote group. Errors: those of the messages,
 * WEFT_EINVAL (the groups overlap), -ENOSPC, WEFT_ENOMEM. */
int wmpi_intercomm_create(wmpi_comm *local, int local_leader, wmpi_comm *peer,
                          int remote_leader, int tag, wmpi_comm **out);
/* MPI_Comm_dup of an intercommunicator: collective over both groups. */
int wmpi_intercomm_dup(wmpi_comm *inter, struct wmpi_info *info,
                       wmpi_comm **out);
/* A new intercommunicator of groups lg (ours) and rg over k->c's
 * members: all of both groups vote on its ids, under the call k took on
 * k->c; a rank passing lg or rg NULL takes part and gets *out NULL.
 * `key` as wmpi_ctx_alloc_in's, over the local group. */
int wmpi_intercomm_make(const struct wmpi_coll_call *k, uint64_t key,
                        struct wmpi_group *lg, struct wmpi_group *rg,
                        wmpi_comm **out);
/* The split order (create/comm_create.c): the ranks r < n whose
 * table[2r] is `color`, ordered by their key table[2r + 1], then by r,
 * written to out[] as world[r] (r if world is NULL). Returns how many, or
 * WEFT_ENOMEM. Never blocks. */
int wmpi_split_members(const int *table, int n, int color, const int *world, int *out);
/* MPI_Comm_split (and MPI_Comm_create, as a split by membership) of an
 * intercommunicator (create/intercomm_split.c): collective over both
 * groups; *out NULL where MPI gives MPI_COMM_NULL (colour undefined, or
 * no rank of that colour in the other group). */
int wmpi_intercomm_split(wmpi_comm *inter, int color, int key, wmpi_comm **out);
int wmpi_intercomm_create_from(wmpi_comm *inter, wmpi_group *g, wmpi_comm **out);
/* The bare new intercommunicator of a dup of k->c (no attributes, no
 * info), under the call k took on it (coll_impl.h); `key` as
 * wmpi_ctx_alloc_in's, over the local group. Collective over both groups. */
int wmpi_intercomm_dup_bare(const struct wmpi_coll_call *k, uint64_t key,
                            wmpi_comm **out);
/* MPI_Comm_idup (create/comm_idup.c): start duplicating c (either kind)
 * now, as MPI_Comm_dup would (attributes copied now, through their copy
 * callbacks; c's topology and info); *req completes when the new
 * communicator is made, and just before, publish(c, nc, slot) hands it
 * over (nc NULL on failure). Errors: WEFT_ENOMEM, a copy callback's code
 * (nothing started). Blocks: no. */
int wmpi_comm_idup(wmpi_comm *c,
                   void (*publish)(wmpi_comm *c, wmpi_comm *nc, void *slot),
                   void *slot, wmpi_request **req);
/* MPI_Intercomm_merge: collective over both groups of inter. */
int wmpi_intercomm_merge(wmpi_comm *inter, int high, wmpi_comm **out);

#endif /* WMPI_COMM_H */
