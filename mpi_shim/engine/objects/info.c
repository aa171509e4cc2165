/* Info objects: ordered string pairs behind MPI_Info, and MPI_INFO_ENV.
 *
 * Design: an array of (key, value) pairs in the order keys were first set;
 * a lookup is a linear scan. Info objects hold a handful of hints (tens of
 * keys at most), so a scan of a few cache lines beats any index, and the
 * array gives MPI_Info_get_nthkey its order for free. Setting a present
 * key replaces its value in place (its position is kept, as Open MPI
 * does); deleting closes the gap, keeping the order of the others.
 *
 * MPI_INFO_ENV is a static object filled once, after MPI_Init, by the
 * first binding that touches it (wmpi_info_env_fill): the keys of MPI-3.1
 * section 8.6 that describe how this process was started, as far as a
 * process can tell about itself: command and argv (from
 * /proc/self/cmdline, so they are known even when MPI_Init got NULLs),
 * maxprocs (the world's size), host, arch, wdir and thread_level. `soft`
 * and `file` describe an mpiexec request this launcher never receives;
 * they are left out, as the standard allows.
 *
 * Rejected: a hash table (more code and memory than the scan it saves on
 * objects this small); reference-counted sharing between MPI_Info_dup
 * copies (copy-on-write bookkeeping for objects copied rarely).
 *
 * Released objects go to the quarantine (quarantine.c) with their live
 * mark cleared, so the bindings refuse a freed handle (MPI_ERR_INFO)
 * without reading freed memory.
 *
 * Invariants: ent[0..n) hold distinct keys, each a malloc'd string, as
 * are the values; MPI_INFO_ENV is never freed; magic is WMPI_INFO_LIVE
 * from creation to release.
 * Locking: each object's own lock guards n, cap and ent for one call;
 * env filling is serialised by the object's lock and published by
 * `filled` (release/acquire).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "engine/objects/info.h"
#include "engine/objects/quarantine.h"
#include "engine/engine.h"

wmpi_info wmpi_pub_info_env = { .lock = WMPI_LOCK_INITIALIZER, .predefined = 1,
                                .magic = WMPI_INFO_LIVE };

_Static_assert(offsetof(wmpi_info, magic) >= 16, "wmpi_info.magic past free()'s words");

/* ------------------------------------------------------------ storage */

static int find(const wmpi_info *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->ent[i].key, key) == 0)
            return i;
    return -1;
}

static int grow(wmpi_info *info)
{
    int cap = info->cap ? 2 * info->cap : 8;
    wmpi_info_entry *e;

    if (info->n < info->cap)
        return 0;
    e = realloc(info->ent, (size_t)cap * sizeof *e);
    if (!e)
        return WEFT_ENOMEM;
    info->ent = e;
    info->cap = cap;
    return 0;
}

static void clear(wmpi_info *info)
{
    for (int i = 0; i < info->n; i++) {
        free(info->ent[i].key);
        free(info->ent[i].val);
    }
    free(info->ent);
    info->ent = NULL;
    info->n = info->cap = 0;
}

/* Append (key, val) (key not present); caller holds the lock. */
static int append(wmpi_info *info, const char *key, const char *val)
{
    char *k, *v;

    if (grow(info) < 0)
        return WEFT_ENOMEM;
    k = strdup(key);
    v = strdup(val);
    if (!k || !v) {
        free(k);
        free(v);
        return WEFT_ENOMEM;
    }
    info->ent[info->n++] = (wmpi_info_entry){ k, v };
    return 0;
}

static int set_locked(wmpi_info *info, const char *key, const char *val)
{
    int i = find(info, key);
    char *v;

    if (i < 0)
        return append(info, key, val);
    v = strdup(val);
    if (!v)
        return WEFT_ENOMEM;
    free(info->ent[i].val);
    info->ent[i].val = v;
    return 0;
}

/* ------------------------------------------------------------ objects */

int wmpi_info_create(wmpi_info **out)
{
    wmpi_info *info = calloc(1, sizeof *info);

    if (info)
        info->magic = WMPI_INFO_LIVE;
    *out = info;
    return info ? 0 : WEFT_ENOMEM;
}

static int copy_pairs(wmpi_info *dst, wmpi_info *src)
{
    int err = 0;

    wmpi_lock_take(&src->lock);
    for (int i = 0; i < src->n && !err; i++)
        err = append(dst, src->ent[i].key, src->ent[i].val);
    wmpi_lock_release(&src->lock);
    return err;
}

int wmpi_info_dup(wmpi_info *src, wmpi_info **out)
{
    int err;

    *out = NULL;
    if (!src)
        return 0;
    err = wmpi_info_create(out);
    if (!err)
        err = copy_pairs(*out, src);
    if (err) {
        wmpi_info_release(*out);
        *out = NULL;
    }
    return err;
}

void wmpi_info_release(wmpi_info *info)
{
    if (!info || info->predefined)
        return;
    clear(info);
    /* a copy of the handle used later reads FREED in memory still ours */
    __atomic_store_n(&info->magic, WMPI_INFO_FREED, __ATOMIC_RELEASE);
    wmpi_quarantine_put(info);
}

/* ------------------------------------------------------------ pairs */

int wmpi_info_set(wmpi_info *info, const char *key, const char *val)
{
    int err;

    wmpi_lock_take(&info->lock);
    err = set_locked(info, key, val);
    wmpi_lock_release(&info->lock);
    return err;
}

int wmpi_info_delete(wmpi_info *info, const char *key)
{
    int i;

    wmpi_lock_take(&info->lock);
    i = find(info, key);
    if (i >= 0) {
        free(info->ent[i].key);
        free(info->ent[i].val);
        memmove(&info->ent[i], &info->ent[i + 1],
                (size_t)(info->n - i - 1) * sizeof *info->ent);
        info->n--;
    }
    wmpi_lock_release(&info->lock);
    return i >= 0 ? 0 : -ENOENT;
}

void wmpi_info_get(wmpi_info *info, const char *key, int valuelen, char *value,
                   int *flag)
{
    int i;
    size_t n;

    wmpi_lock_take(&info->lock);
    i = find(info, key);
    *flag = i >= 0;
    if (i >= 0) {
        n = strlen(info->ent[i].val);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, info->ent[i].val, n);
        value[n] = '\0';
    }
    wmpi_lock_release(&info->lock);
}

void wmpi_info_get_valuelen(wmpi_info *info, const char *key, int *len, int *flag)
{
    int i;

    wmpi_lock_take(&info->lock);
    i = find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *len = (int)strlen(info->ent[i].val);
    wmpi_lock_release(&info->lock);
}

int wmpi_info_nkeys(wmpi_info *info)
{
    int n;

    wmpi_lock_take(&info->lock);
    n = info->n;
    wmpi_lock_release(&info->lock);
    return n;
}

int wmpi_info_nthkey(wmpi_info *info, int n, char *key, int keylen)
{
    int err = WEFT_EINVAL;

    wmpi_lock_take(&info->lock);
    if (n >= 0 && n < info->n && keylen > 0) {
        snprintf(key, (size_t)keylen, "%s", info->ent[n].key);
        err = 0;
    }
    wmpi_lock_release(&info->lock);
    return err;
}

/* ------------------------------------------------------------ MPI_INFO_ENV */

/* The command line from /proc/self/cmdline: NUL-separated arguments. */
static void env_command(wmpi_info *info)
{
    char buf[4096], *args;
    size_t n = 0, len;
    FILE *f = fopen("/proc/self/cmdline", "r");

    if (f) {
        n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
    }
    if (n == 0)
        return;
    buf[n] = '\0';
    set_locked(info, "command", buf);
    len = strlen(buf) + 1;
    if (len >= n)
        return;
    args = buf + len;
    for (size_t i = len; i + 1 < n; i++) /* arguments joined by spaces */
        if (buf[i] == '\0')
            buf[i] = ' ';
    set_locked(info, "argv", args);
}

static const char *level_name(int level)
{
    static const char *const names[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };

    return level >= 0 && level <= 3 ? names[level] : "MPI_THREAD_MULTIPLE";
}

static void env_fill_locked(wmpi_info *info, int world_size, int thread_level)
{
    char buf[4096];
    struct utsname u;

    env_command(info);
    snprintf(buf, sizeof buf, "%d", world_size);
    set_locked(info, "maxprocs", buf);
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        set_locked(info, "host", buf);
    }
    if (uname(&u) == 0)
        set_locked(info, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        set_locked(info, "wdir", buf);
    set_locked(info, "thread_level", level_name(thread_level));
}

void wmpi_info_env_fill(int world_size, int thread_level)
{
    wmpi_info *info = &wmpi_pub_info_env;

    if (__atomic_load_n(&info->filled, __ATOMIC_ACQUIRE))
        return;
    wmpi_lock_take(&info->lock);
    if (!info->filled) {
        env_fill_locked(info, world_size, thread_level);
        __atomic_store_n(&info->filled, 1, __ATOMIC_RELEASE);
    }
    wmpi_lock_release(&info->lock);
}
