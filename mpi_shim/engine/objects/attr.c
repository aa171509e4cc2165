/* Attribute caching on communicators, datatypes and windows: keyvals,
 * MPI_Comm_/MPI_Type_/MPI_Win_set/get/delete_attr, copy callbacks on dup,
 * delete callbacks on free, and the predefined attributes of MPI_COMM_WORLD
 * (MPI_TAG_UB...).
 *
 * Design: a keyval is a small object (callbacks, extra state) found by
 * its number in one table; a communicator keeps a list of (keyval, value)
 * in the order they were set. Keyvals are reference counted: the user's
 * number is one reference, each attribute set with it another, so
 * MPI_Comm_free_keyval leaves existing attributes working (MPI-3.1 6.7.2:
 * they are deleted by MPI_Comm_delete_attr or the object's free, and
 * copied by a dup) and the number is reused only once nothing refers to
 * it, and then as late as possible (numbers are handed out round the
 * table). A number never created, freed with nothing left using it, or of
 * another object kind is an unknown keyval: WEFT_EINVAL, MPI_ERR_KEYVAL;
 * a freed one that attributes still use may be read and deleted, not set
 * (Open MPI and MPICH read it too). Predefined
 * keyvals (1..7) have fixed numbers, DUP copy callbacks (so dups of world
 * answer too, as in Open MPI) and cannot be set or deleted by the user;
 * user numbers start at WMPI_KEY_FIRST_USER.
 *
 * Object kinds: every keyval belongs to one kind of object (enum
 * wmpi_attr_kind) and holds that kind's callbacks; the code below works on
 * an `owner` (kind, object, its list) and only call_copy / call_delete
 * look at the kind, to call the callback with the right object type. A
 * keyval used on another kind of object is an unknown keyval (WEFT_EINVAL:
 * MPI_ERR_KEYVAL). The numbers of all kinds share one table.
 *
 * User callbacks may call MPI, even attribute functions on the same
 * communicator, so none runs with the lock held: an operation looks up
 * what it needs under the lock, drops it, calls back, and takes it again
 * to finish. A callback's error code travels as wmpi_err_from_mpi(code).
 *
 * Rejected: a hash table per communicator (programs cache a handful of
 * attributes; a list is smaller and keeps the setting order); one copy of
 * this file per object kind (the reference counting and unlocked
 * callbacks are the subtle part; one copy of them is enough).
 * Invariants: an entry holds a reference to its keyval; keyval numbers in
 * `table` are unique.
 * Locking: one lock for the table, the keyval counts and every
 * object's list; held for lookups and list edits only. It is a leaf: no
 * other lock is taken while it is held.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"
#include "engine/core/internal.h"
#include "engine/rma/rma.h"

typedef struct keyval {
    int id;
    int refs;                  /* under lock: the user's + attributes' */
    int predefined;
    int freed;                 /* under lock: the user freed the number */
    int kind;                  /* enum wmpi_attr_kind */
    union {                    /* by kind; NULL: do not copy */
        wmpi_copy_attr_fn *comm;
        wmpi_type_copy_attr_fn *type;
        wmpi_win_copy_attr_fn *win;
    } copy;
    union {                    /* by kind; NULL: nothing to do */
        wmpi_delete_attr_fn *comm;
        wmpi_type_delete_attr_fn *type;
        wmpi_win_delete_attr_fn *win;
    } del;
    void *extra;
} keyval;

/* An object that caches attributes. */
typedef struct owner {
    int kind;                  /* enum wmpi_attr_kind */
    void *obj;                 /* wmpi_comm *, wmpi_datatype * or wmpi_win * */
    struct wmpi_attr **list;
} owner;

struct wmpi_attr {
    struct wmpi_attr *next;
    keyval *kv;
    void *val;
};

static wmpi_lock lock = WMPI_LOCK_INITIALIZER;
static keyval **table; /* [cap], by number */
static int cap;
static int next_number = WMPI_KEY_FIRST_USER; /* where the next search starts */

/* -------------------------------------------------- predefined keyvals */

static int copy_value(wmpi_comm *old, int k, void *extra, void *in, void *out,
                      int *flag)
{
    (void)old, (void)k, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return 0;
}

static int tag_ub = WMPI_TAG_UB, host = WMPI_PROC_NULL, io = WMPI_ANY_SOURCE,
           wtime_is_global = 0, appnum = 0, universe_size = 1, lastusedcode = 0;

#define PREDEFINED_KV(id) \
    { id, 1, 1, 0, WMPI_ATTR_COMM, { .comm = copy_value }, { NULL }, NULL }
static keyval predefined_kv[] = {
    PREDEFINED_KV(WMPI_KEY_TAG_UB),
    PREDEFINED_KV(WMPI_KEY_HOST),
    PREDEFINED_KV(WMPI_KEY_IO),
    PREDEFINED_KV(WMPI_KEY_WTIME_IS_GLOBAL),
    PREDEFINED_KV(WMPI_KEY_APPNUM),
    PREDEFINED_KV(WMPI_KEY_UNIVERSE_SIZE),
    PREDEFINED_KV(WMPI_KEY_LASTUSEDCODE),
};

static owner comm_owner(wmpi_comm *c)
{
    return (owner){ WMPI_ATTR_COMM, c, &c->attrs };
}

static owner type_owner(wmpi_datatype *t)
{
    return (owner){ WMPI_ATTR_TYPE, t, &t->attrs };
}

static owner win_owner(wmpi_win *w)
{
    return (owner){ WMPI_ATTR_WIN, w, &w->attrs };
}

static int grow_locked(int need)
{
    int n = cap ? cap : 2 * WMPI_KEY_FIRST_USER;
    keyval **t;

    while (n <= need)
        n *= 2;
    t = realloc(table, (size_t)n * sizeof *t);
    if (!t)
        return WEFT_ENOMEM;
    memset(t + cap, 0, (size_t)(n - cap) * sizeof *t);
    table = t;
    cap = n;
    return 0;
}

static int add_locked(struct wmpi_attr **list, keyval *kv, void *val);

void wmpi_attr_init_world(wmpi_comm *world, int world_size, int app)
{
    int *vals[] = { &tag_ub, &host, &io, &wtime_is_global, &appnum,
                    &universe_size, &lastusedcode };
    int had;

    universe_size = world_size;
    appnum = app;
    wmpi_lock_take(&lock);
    had = world->attrs != NULL; /* MPI_Init runs once; be safe anyway */
    if (!table && grow_locked(WMPI_KEY_FIRST_USER))
        wmpi_fatal("out of memory for the attribute table");
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        table[predefined_kv[i].id] = &predefined_kv[i];
    for (size_t i = 0; !had && i < sizeof vals / sizeof vals[0]; i++)
        if (add_locked(&world->attrs, &predefined_kv[i], vals[i]))
            wmpi_fatal("out of memory for MPI_COMM_WORLD's attributes");
    wmpi_lock_release(&lock);
}

void wmpi_attr_set_lastusedcode(int code)
{
    __atomic_store_n(&lastusedcode, code, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ keyvals */

static void kv_release_locked(keyval *kv)
{
    if (!kv->predefined && --kv->refs == 0) {
        table[kv->id] = NULL;
        free(kv);
    }
}

/* The keyval numbered id if it belongs to objects of `kind`. */
static keyval *kv_find_locked(int kind, int id)
{
    keyval *kv = id > 0 && id < cap ? table[id] : NULL;

    return kv && kv->kind == kind ? kv : NULL;
}

/* A free user number, searched round the table from the one after the
 * last handed out, so a freed number comes back as late as possible (a
 * stale copy of it stays MPI_ERR_KEYVAL meanwhile); cap if none is free. */
static int free_number_locked(void)
{
    int span = cap - WMPI_KEY_FIRST_USER;

    for (int i = 0; i < span; i++) {
        int k = WMPI_KEY_FIRST_USER + (next_number - WMPI_KEY_FIRST_USER + i) % span;

        if (!table[k])
            return k;
    }
    return cap > WMPI_KEY_FIRST_USER ? cap : WMPI_KEY_FIRST_USER;
}

/* Number and register kv (filled in but for its id). */
static int keyval_add(keyval *kv, int *id)
{
    int k, err = 0;

    wmpi_lock_take(&lock);
    k = free_number_locked();
    if (k >= cap)
        err = grow_locked(k);
    if (!err) {
        kv->id = k;
        table[k] = kv;
        *id = k;
        next_number = k + 1;
    }
    wmpi_lock_release(&lock);
    if (err)
        free(kv);
    return err;
}

int wmpi_keyval_create(wmpi_copy_attr_fn *copy, wmpi_delete_attr_fn *del,
                       void *extra, int *id)
{
    keyval *kv = calloc(1, sizeof *kv);

    if (!kv)
        return WEFT_ENOMEM;
    *kv = (keyval){ 0, 1, 0, 0, WMPI_ATTR_COMM, { .comm = copy },
                    { .comm = del }, extra };
    return keyval_add(kv, id);
}

int wmpi_type_keyval_create(wmpi_type_copy_attr_fn *copy,
                            wmpi_type_delete_attr_fn *del, void *extra,
                            int *id)
{
    keyval *kv = calloc(1, sizeof *kv);

    if (!kv)
        return WEFT_ENOMEM;
    *kv = (keyval){ 0, 1, 0, 0, WMPI_ATTR_TYPE, { .type = copy },
                    { .type = del }, extra };
    return keyval_add(kv, id);
}

int wmpi_win_keyval_create(wmpi_win_copy_attr_fn *copy, wmpi_win_delete_attr_fn *del,
                           void *extra, int *id)
{
    keyval *kv = calloc(1, sizeof *kv);

    if (!kv)
        return WEFT_ENOMEM;
    *kv = (keyval){ 0, 1, 0, 0, WMPI_ATTR_WIN, { .win = copy }, { .win = del }, extra };
    return keyval_add(kv, id);
}

static int keyval_free(int kind, int id)
{
    keyval *kv;
    int err = WEFT_EINVAL;

    wmpi_lock_take(&lock);
    kv = kv_find_locked(kind, id);
    if (kv && !kv->predefined && !kv->freed) {
        kv->freed = 1;
        kv_release_locked(kv);
        err = 0;
    }
    wmpi_lock_release(&lock);
    return err;
}

int wmpi_keyval_free(int id)
{
    return keyval_free(WMPI_ATTR_COMM, id);
}

int wmpi_type_keyval_free(int id)
{
    return keyval_free(WMPI_ATTR_TYPE, id);
}

int wmpi_win_keyval_free(int id)
{
    return keyval_free(WMPI_ATTR_WIN, id);
}

/* -------------------------------------------------------- attributes */

static struct wmpi_attr *find_locked(struct wmpi_attr **list, keyval *kv)
{
    for (struct wmpi_attr *a = *list; a; a = a->next)
        if (a->kv == kv)
            return a;
    return NULL;
}

/* Append (keeps the setting order); takes a keyval reference. */
static int add_locked(struct wmpi_attr **list, keyval *kv, void *val)
{
    struct wmpi_attr *a = malloc(sizeof *a), **pp = list;

    if (!a)
        return WEFT_ENOMEM;
    a->next = NULL;
    a->kv = kv;
    a->val = val;
    while (*pp)
        pp = &(*pp)->next;
    *pp = a;
    if (!kv->predefined)
        kv->refs++;
    return 0;
}

static void remove_locked(struct wmpi_attr **list, struct wmpi_attr *a)
{
    for (struct wmpi_attr **pp = list; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            kv_release_locked(a->kv);
            free(a);
            return;
        }
    }
}

/* Call kv's delete callback on o's value val (no lock held). */
static int call_delete(const owner *o, const keyval *kv, void *val)
{
    int code = 0;

    if (kv->kind == WMPI_ATTR_COMM && kv->del.comm)
        code = kv->del.comm(o->obj, kv->id, val, kv->extra);
    else if (kv->kind == WMPI_ATTR_TYPE && kv->del.type)
        code = kv->del.type(o->obj, kv->id, val, kv->extra);
    else if (kv->kind == WMPI_ATTR_WIN && kv->del.win)
        code = kv->del.win(o->obj, kv->id, val, kv->extra);
    return wmpi_err_from_mpi(code);
}

/* Call kv's copy callback for old's value `in` (no lock held); *flag 0
 * when there is none. */
static int call_copy(const owner *old, const keyval *kv, void *in,
                     void *out, int *flag)
{
    int code = 0;

    *flag = 0;
    if (kv->kind == WMPI_ATTR_COMM && kv->copy.comm)
        code = kv->copy.comm(old->obj, kv->id, kv->extra, in, out, flag);
    else if (kv->kind == WMPI_ATTR_TYPE && kv->copy.type)
        code = kv->copy.type(old->obj, kv->id, kv->extra, in, out, flag);
    return wmpi_err_from_mpi(code);
}

/* Look up a user keyval and its entry on c, pinning the keyval (a
 * reference) so it survives while the lock is dropped. A freed keyval
 * may still delete the attributes made with it, not set new ones. */
static int pin(const owner *o, int id, int setting, keyval **kv,
               struct wmpi_attr **a, void **val)
{
    *kv = kv_find_locked(o->kind, id);
    if (!*kv || (*kv)->predefined || (setting && (*kv)->freed))
        return WEFT_EINVAL;
    (*kv)->refs++;
    *a = find_locked(o->list, *kv);
    *val = *a ? (*a)->val : NULL;
    return 0;
}

static int attr_set(const owner *o, int id, void *val)
{
    keyval *kv;
    struct wmpi_attr *a;
    void *old;
    int err;

    wmpi_lock_take(&lock);
    err = pin(o, id, 1, &kv, &a, &old);
    wmpi_lock_release(&lock);
    if (err)
        return err;
    if (a)
        err = call_delete(o, kv, old);
    wmpi_lock_take(&lock);
    if (!err) {
        a = find_locked(o->list, kv); /* the callback may have changed it */
        if (a)
            a->val = val;
        else
            err = add_locked(o->list, kv, val);
    }
    kv_release_locked(kv);
    wmpi_lock_release(&lock);
    return err;
}

static int attr_get(const owner *o, int id, void **val, int *flag)
{
    keyval *kv;
    struct wmpi_attr *a = NULL;

    wmpi_lock_take(&lock);
    kv = kv_find_locked(o->kind, id);
    if (kv)
        a = find_locked(o->list, kv);
    *flag = a != NULL;
    if (a)
        *val = a->val;
    wmpi_lock_release(&lock);
    return kv ? 0 : WEFT_EINVAL;
}

static int attr_delete(const owner *o, int id)
{
    keyval *kv;
    struct wmpi_attr *a;
    void *val;
    int err;

    wmpi_lock_take(&lock);
    err = pin(o, id, 0, &kv, &a, &val);
    if (!err && !a)
        kv_release_locked(kv);
    wmpi_lock_release(&lock);
    if (err)
        return err;
    if (!a)
        return -ENOENT;
    err = call_delete(o, kv, val);
    wmpi_lock_take(&lock);
    if (!err && (a = find_locked(o->list, kv)) != NULL)
        remove_locked(o->list, a);
    kv_release_locked(kv);
    wmpi_lock_release(&lock);
    return err;
}

/* ------------------------------------------------------ dup and free */

/* The first entry of c at or after position `skip` (its keyval pinned),
 * or NULL. Walking by position keeps the walk valid while callbacks run
 * unlocked. */
static struct wmpi_attr *nth_pinned(const owner *o, int skip, keyval **kv,
                                    void **val)
{
    struct wmpi_attr *a;

    wmpi_lock_take(&lock);
    for (a = *o->list; a && skip > 0; a = a->next)
        skip--;
    if (a) {
        *kv = a->kv;
        *val = a->val;
        if (!(*kv)->predefined)
            (*kv)->refs++;
    }
    wmpi_lock_release(&lock);
    return a;
}

static void unpin(keyval *kv)
{
    wmpi_lock_take(&lock);
    kv_release_locked(kv);
    wmpi_lock_release(&lock);
}

static int attr_copy_all(const owner *old, const owner *nc)
{
    keyval *kv;
    void *val, *out;
    int err = 0;

    for (int i = 0; !err && nth_pinned(old, i, &kv, &val); i++) {
        int flag;

        out = NULL;
        err = call_copy(old, kv, val, &out, &flag);
        if (!err && flag) {
            wmpi_lock_take(&lock);
            err = add_locked(nc->list, kv, out);
            wmpi_lock_release(&lock);
        }
        unpin(kv);
    }
    return err;
}

/* The last entry of c with its keyval pinned, or NULL. */
static struct wmpi_attr *last_pinned(const owner *o, keyval **kv, void **val)
{
    struct wmpi_attr *a;

    wmpi_lock_take(&lock);
    for (a = *o->list; a && a->next; a = a->next)
        ;
    if (a) {
        *kv = a->kv;
        *val = a->val;
        if (!(*kv)->predefined)
            (*kv)->refs++;
    }
    wmpi_lock_release(&lock);
    return a;
}

static int attr_delete_all(const owner *o)
{
    keyval *kv;
    void *val;
    int err = 0;

    /* from the end: what was cached last goes first */
    while (!err && last_pinned(o, &kv, &val)) {
        struct wmpi_attr *a;

        err = call_delete(o, kv, val);
        wmpi_lock_take(&lock);
        if (!err && (a = find_locked(o->list, kv)) != NULL)
            remove_locked(o->list, a);
        kv_release_locked(kv);
        wmpi_lock_release(&lock);
    }
    return err;
}

static void attr_discard(struct wmpi_attr **list)
{
    wmpi_lock_take(&lock);
    while (*list)
        remove_locked(list, *list);
    wmpi_lock_release(&lock);
}

/* ------------------------------------------------- by kind of object */

int wmpi_attr_set(wmpi_comm *c, int id, void *val)
{
    owner o = comm_owner(c);

    return attr_set(&o, id, val);
}

int wmpi_attr_get(wmpi_comm *c, int id, void **val, int *flag)
{
    owner o = comm_owner(c);

    return attr_get(&o, id, val, flag);
}

int wmpi_attr_delete(wmpi_comm *c, int id)
{
    owner o = comm_owner(c);

    return attr_delete(&o, id);
}

int wmpi_attr_copy_all(wmpi_comm *old, wmpi_comm *nc)
{
    owner o = comm_owner(old), n = comm_owner(nc);

    return attr_copy_all(&o, &n);
}

int wmpi_attr_delete_all(wmpi_comm *c)
{
    owner o = comm_owner(c);

    return attr_delete_all(&o);
}

void wmpi_attr_discard(wmpi_comm *c)
{
    attr_discard(&c->attrs);
}

int wmpi_type_attr_set(wmpi_datatype *t, int id, void *val)
{
    owner o = type_owner(t);

    return attr_set(&o, id, val);
}

int wmpi_type_attr_get(wmpi_datatype *t, int id, void **val, int *flag)
{
    owner o = type_owner(t);

    return attr_get(&o, id, val, flag);
}

int wmpi_type_attr_delete(wmpi_datatype *t, int id)
{
    owner o = type_owner(t);

    return attr_delete(&o, id);
}

int wmpi_type_attr_copy_all(wmpi_datatype *old, wmpi_datatype *nt)
{
    owner o = type_owner(old), n = type_owner(nt);

    return attr_copy_all(&o, &n);
}

int wmpi_type_attr_delete_all(wmpi_datatype *t)
{
    owner o = type_owner(t);

    return attr_delete_all(&o);
}

void wmpi_type_attr_discard(wmpi_datatype *t)
{
    attr_discard(&t->attrs);
}

int wmpi_win_attr_set(wmpi_win *w, int id, void *val)
{
    owner o = win_owner(w);

    return attr_set(&o, id, val);
}

int wmpi_win_attr_get(wmpi_win *w, int id, void **val, int *flag)
{
    owner o = win_owner(w);

    return attr_get(&o, id, val, flag);
}

int wmpi_win_attr_delete(wmpi_win *w, int id)
{
    owner o = win_owner(w);

    return attr_delete(&o, id);
}

int wmpi_win_attr_delete_all(wmpi_win *w)
{
    owner o = win_owner(w);

    return attr_delete_all(&o);
}
