/* Attribute caching on communicators: keyvals, MPI_Comm_set/get/delete_
 * attr, copy callbacks on dup, delete callbacks on free, and the
 * predefined attributes of MPI_COMM_WORLD (MPI_TAG_UB...).
 *
 * Design: a keyval is a small object (callbacks, extra state) found by
 * its number in one table; a communicator keeps a list of (keyval, value)
 * in the order they were set. Keyvals are reference counted: the user's
 * number is one reference, each attribute set with it another, so
 * MPI_Comm_free_keyval leaves existing attributes working (MPI-3.1 6.7.2)
 * and the number is reused only once nothing refers to it. Predefined
 * keyvals (1..7) have fixed numbers, DUP copy callbacks (so dups of world
 * answer too, as in Open MPI) and cannot be set or deleted by the user;
 * user numbers start at WMPI_KEY_FIRST_USER.
 *
 * User callbacks may call MPI, even attribute functions on the same
 * communicator, so none runs with the lock held: an operation looks up
 * what it needs under the lock, drops it, calls back, and takes it again
 * to finish. A callback's error code travels as wmpi_err_from_mpi(code).
 *
 * Rejected: a hash table per communicator (programs cache a handful of
 * attributes; a list is smaller and keeps the setting order).
 * Invariants: an entry holds a reference to its keyval; keyval numbers in
 * `table` are unique.
 * Locking: one lock for the table, the keyval counts and every
 * communicator's list; held for lookups and list edits only.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/comm.h"
#include "engine/internal.h"

typedef struct keyval {
    int id;
    int refs;                  /* under lock: the user's + attributes' */
    int predefined;
    int freed;                 /* under lock: the user freed the number */
    wmpi_copy_attr_fn *copy;   /* NULL: do not copy */
    wmpi_delete_attr_fn *del;  /* NULL: nothing to do */
    void *extra;
} keyval;

struct wmpi_attr {
    struct wmpi_attr *next;
    keyval *kv;
    void *val;
};

static wmpi_lock lock = WMPI_LOCK_INITIALIZER;
static keyval **table; /* [cap], by number */
static int cap;

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

static keyval predefined_kv[] = {
    { WMPI_KEY_TAG_UB, 1, 1, 0, copy_value, NULL, NULL },
    { WMPI_KEY_HOST, 1, 1, 0, copy_value, NULL, NULL },
    { WMPI_KEY_IO, 1, 1, 0, copy_value, NULL, NULL },
    { WMPI_KEY_WTIME_IS_GLOBAL, 1, 1, 0, copy_value, NULL, NULL },
    { WMPI_KEY_APPNUM, 1, 1, 0, copy_value, NULL, NULL },
    { WMPI_KEY_UNIVERSE_SIZE, 1, 1, 0, copy_value, NULL, NULL },
    { WMPI_KEY_LASTUSEDCODE, 1, 1, 0, copy_value, NULL, NULL },
};

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

static int add_locked(wmpi_comm *c, keyval *kv, void *val);

void wmpi_attr_init_world(wmpi_comm *world, int world_size)
{
    int *vals[] = { &tag_ub, &host, &io, &wtime_is_global, &appnum,
                    &universe_size, &lastusedcode };
    int had;

    universe_size = world_size;
    wmpi_lock_take(&lock);
    had = world->attrs != NULL; /* MPI_Init runs once; be safe anyway */
    if (!table && grow_locked(WMPI_KEY_FIRST_USER))
        wmpi_fatal("out of memory for the attribute table");
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        table[predefined_kv[i].id] = &predefined_kv[i];
    for (size_t i = 0; !had && i < sizeof vals / sizeof vals[0]; i++)
        if (add_locked(world, &predefined_kv[i], vals[i]))
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

static keyval *kv_find_locked(int id)
{
    return id > 0 && id < cap ? table[id] : NULL;
}

int wmpi_keyval_create(wmpi_copy_attr_fn *copy, wmpi_delete_attr_fn *del,
                       void *extra, int *id)
{
    keyval *kv = calloc(1, sizeof *kv);
    int k = WMPI_KEY_FIRST_USER, err = 0;

    if (!kv)
        return WEFT_ENOMEM;
    wmpi_lock_take(&lock);
    while (k < cap && table[k])
        k++;
    if (k >= cap)
        err = grow_locked(k);
    if (!err) {
        *kv = (keyval){ k, 1, 0, 0, copy, del, extra };
        table[k] = kv;
        *id = k;
    }
    wmpi_lock_release(&lock);
    if (err)
        free(kv);
    return err;
}

int wmpi_keyval_free(int id)
{
    keyval *kv;
    int err = WEFT_EINVAL;

    wmpi_lock_take(&lock);
    kv = kv_find_locked(id);
    if (kv && !kv->predefined && !kv->freed) {
        kv->freed = 1;
        kv_release_locked(kv);
        err = 0;
    }
    wmpi_lock_release(&lock);
    return err;
}

/* -------------------------------------------------------- attributes */

static struct wmpi_attr *find_locked(wmpi_comm *c, keyval *kv)
{
    for (struct wmpi_attr *a = c->attrs; a; a = a->next)
        if (a->kv == kv)
            return a;
    return NULL;
}

/* Append (keeps the setting order); takes a keyval reference. */
static int add_locked(wmpi_comm *c, keyval *kv, void *val)
{
    struct wmpi_attr *a = malloc(sizeof *a), **pp = &c->attrs;

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

static void remove_locked(wmpi_comm *c, struct wmpi_attr *a)
{
    for (struct wmpi_attr **pp = &c->attrs; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            kv_release_locked(a->kv);
            free(a);
            return;
        }
    }
}

/* Call kv's delete callback on val (no lock held). */
static int call_delete(wmpi_comm *c, const keyval *kv, int id, void *val)
{
    int code = kv->del ? kv->del(c, id, val, kv->extra) : 0;

    return wmpi_err_from_mpi(code);
}

/* Look up a user keyval and its entry on c, pinning the keyval (a
 * reference) so it survives while the lock is dropped. A freed keyval
 * may still delete the attributes made with it, not set new ones. */
static int pin(wmpi_comm *c, int id, int setting, keyval **kv,
               struct wmpi_attr **a, void **val)
{
    *kv = kv_find_locked(id);
    if (!*kv || (*kv)->predefined || (setting && (*kv)->freed))
        return WEFT_EINVAL;
    (*kv)->refs++;
    *a = find_locked(c, *kv);
    *val = *a ? (*a)->val : NULL;
    return 0;
}

int wmpi_attr_set(wmpi_comm *c, int id, void *val)
{
    keyval *kv;
    struct wmpi_attr *a;
    void *old;
    int err;

    wmpi_lock_take(&lock);
    err = pin(c, id, 1, &kv, &a, &old);
    wmpi_lock_release(&lock);
    if (err)
        return err;
    if (a)
        err = call_delete(c, kv, id, old);
    wmpi_lock_take(&lock);
    if (!err) {
        a = find_locked(c, kv); /* the callback may have changed the list */
        if (a)
            a->val = val;
        else
            err = add_locked(c, kv, val);
    }
    kv_release_locked(kv);
    wmpi_lock_release(&lock);
    return err;
}

int wmpi_attr_get(wmpi_comm *c, int id, void **val, int *flag)
{
    keyval *kv;
    struct wmpi_attr *a = NULL;

    wmpi_lock_take(&lock);
    kv = kv_find_locked(id);
    if (kv)
        a = find_locked(c, kv);
    *flag = a != NULL;
    if (a)
        *val = a->val;
    wmpi_lock_release(&lock);
    return kv ? 0 : WEFT_EINVAL;
}

int wmpi_attr_delete(wmpi_comm *c, int id)
{
    keyval *kv;
    struct wmpi_attr *a;
    void *val;
    int err;

    wmpi_lock_take(&lock);
    err = pin(c, id, 0, &kv, &a, &val);
    if (!err && !a)
        kv_release_locked(kv);
    wmpi_lock_release(&lock);
    if (err)
        return err;
    if (!a)
        return -ENOENT;
    err = call_delete(c, kv, id, val);
    wmpi_lock_take(&lock);
    if (!err && (a = find_locked(c, kv)) != NULL)
        remove_locked(c, a);
    kv_release_locked(kv);
    wmpi_lock_release(&lock);
    return err;
}

/* ------------------------------------------------------ dup and free */

/* The first entry of c at or after position `skip` (its keyval pinned),
 * or NULL. Walking by position keeps the walk valid while callbacks run
 * unlocked. */
static struct wmpi_attr *nth_pinned(wmpi_comm *c, int skip, keyval **kv,
                                    void **val)
{
    struct wmpi_attr *a;

    wmpi_lock_take(&lock);
    for (a = c->attrs; a && skip > 0; a = a->next)
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

int wmpi_attr_copy_all(wmpi_comm *old, wmpi_comm *nc)
{
    keyval *kv;
    void *val, *out;
    int err = 0;

    for (int i = 0; !err && nth_pinned(old, i, &kv, &val); i++) {
        int flag = 0, code = 0;

        out = NULL;
        if (kv->copy)
            code = kv->copy(old, kv->id, kv->extra, val, &out, &flag);
        err = wmpi_err_from_mpi(code);
        if (!err && flag) {
            wmpi_lock_take(&lock);
            err = add_locked(nc, kv, out);
            wmpi_lock_release(&lock);
        }
        unpin(kv);
    }
    return err;
}

/* The last entry of c with its keyval pinned, or NULL. */
static struct wmpi_attr *last_pinned(wmpi_comm *c, keyval **kv, void **val)
{
    struct wmpi_attr *a;

    wmpi_lock_take(&lock);
    for (a = c->attrs; a && a->next; a = a->next)
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

int wmpi_attr_delete_all(wmpi_comm *c)
{
    keyval *kv;
    void *val;
    int err = 0;

    /* from the end: what was cached last goes first */
    while (!err && last_pinned(c, &kv, &val)) {
        struct wmpi_attr *a;

        err = call_delete(c, kv, kv->id, val);
        wmpi_lock_take(&lock);
        if (!err && (a = find_locked(c, kv)) != NULL)
            remove_locked(c, a);
        kv_release_locked(kv);
        wmpi_lock_release(&lock);
    }
    return err;
}

void wmpi_attr_discard(wmpi_comm *c)
{
    wmpi_lock_take(&lock);
    while (c->attrs)
        remove_locked(c, c->attrs);
    wmpi_lock_release(&lock);
}
