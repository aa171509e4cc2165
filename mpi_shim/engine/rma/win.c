/* Window life: MPI_Win_create, MPI_Win_allocate, MPI_Win_allocate_shared
 * (its memory: shared.c), MPI_Win_create_dynamic and MPI_Win_free.
 *
 * Creation is collective over the user's communicator: the window takes a
 * duplicate of it (its own context id, so requests and answers never
 * match the user's messages, and its collectives - fence, free - never
 * interleave with the user's), trades every rank's window size and disp
 * unit (so an origin checks a displacement against the target's window
 * before sending anything, and reports MPI_ERR_RMA_RANGE to its caller
 * rather than to nobody at the target), then starts its service thread.
 *
 * Freeing runs the delete callbacks of the window's attributes (a
 * callback's error stops the free there: the window stays usable),
 * completes this rank's operations, waits for every rank on the window's
 * communicator - after that barrier no request to this rank is still on
 * its way, as every origin waited for its answers - and only then stops
 * the service thread.
 *
 * Locking: none here; a window is set up before its handle is returned
 * and torn down after every rank stopped using it.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll.h"
#include "engine/core/internal.h"
#include "engine/objects/comm.h"
#include "engine/objects/quarantine.h"
#include "engine/rma/rma.h"

static void win_release(wmpi_win *w)
{
    if (w->flavor == WMPI_WIN_ALLOCATE && !w->shared_map)
        free(w->base);
    wmpi_win_unshare(w);
    free(w->sizes);
    free(w->units);
    free(w->locked);
    weft_mutex_destroy(&w->flushing);
    free(w->started);
    free(w->regions);
    free(w->access);
    free(w->cma);
    __atomic_store_n(&w->magic, WMPI_WIN_FREED, __ATOMIC_RELEASE);
    wmpi_quarantine_put(w); /* a stale handle reads FREED in owned memory */
}

/* Every rank's window size and disp unit, in w->sizes / w->units. */
static int trade_shapes(wmpi_win *w)
{
    int n = w->comm->size;
    int64_t mine[2] = { w->size, w->disp_unit };
    int64_t *all = malloc((size_t)n * sizeof mine);
    int err;

    w->sizes = malloc((size_t)n * sizeof *w->sizes);
    w->units = malloc((size_t)n * sizeof *w->units);
    w->locked = calloc((size_t)n, 1);
    w->started = calloc((size_t)n, 1);
    if (!all || !w->sizes || !w->units || !w->locked || !w->started) {
        free(all);
        return WEFT_ENOMEM;
    }
    err = wmpi_allgather(mine, (int)sizeof mine, &wmpi_dt_byte, all,
                         (int)sizeof mine, &wmpi_dt_byte, w->comm);
    for (int r = 0; !err && r < n; r++) {
        /* dynamic: the target checks the attached regions itself */
        w->sizes[r] = w->flavor == WMPI_WIN_DYNAMIC ? INT64_MAX : all[2 * r];
        w->units[r] = (int)all[2 * r + 1];
    }
    free(all);
    return err;
}

/* MPI_Win_allocate's memory moves into a mapping every rank shares when
 * they can (ranks of one host), so puts and gets need no message
 * (direct.c); where they cannot, each keeps its own. */
static int share_allocated(wmpi_win *w)
{
    void *own = w->base;
    int err = wmpi_win_share(w, wmpi_rma_copies_wanted());

    if (err == -EXDEV || err == WEFT_ENOMEM)
        return 0;
    if (!err)
        free(own);
    return err;
}

static wmpi_win *win_new(void *base, int64_t size, int disp_unit,
                         int flavor)
{
    wmpi_win *w = calloc(1, sizeof *w);

    if (!w)
        return NULL;
    w->flavor = flavor;
    w->base = base;
    /* malloc(0) may give NULL: one byte keeps a valid, unique base */
    if (flavor == WMPI_WIN_ALLOCATE &&
        !(w->base = malloc(size ? (size_t)size : 1))) {
        free(w);
        return NULL;
    }
    w->size = size;
    w->disp_unit = disp_unit;
    w->model = WMPI_WIN_UNIFIED;
    w->lock = (wmpi_lock)WMPI_LOCK_INITIALIZER;
    weft_mutex_init(&w->flushing);
    w->next_tag = WMPI_RMA_TAG_FIRST;
    return w;
}

int wmpi_win_create(void *base, int64_t size, int disp_unit, int flavor,
                    wmpi_comm *c, wmpi_win **out)
{
    wmpi_win *w = win_new(base, size, disp_unit, flavor);
    int err;

    *out = NULL;
    if (!w)
        return WEFT_ENOMEM;
    err = wmpi_comm_dup(c, &w->comm);
    if (err)
        goto fail_dup;
    err = trade_shapes(w);
    if (!err && flavor == WMPI_WIN_SHARED)
        err = wmpi_win_share(w, 1);
    else if (!err && flavor == WMPI_WIN_ALLOCATE)
        err = share_allocated(w);
    else if (!err && flavor == WMPI_WIN_CREATE)
        err = wmpi_rma_cma_setup(w);
    if (!err)
        err = wmpi_rma_serve_start(w);
    if (err)
        goto fail_setup;
    __atomic_store_n(&w->magic, WMPI_WIN_LIVE, __ATOMIC_RELEASE);
    *out = w;
    return 0;

fail_setup:
    wmpi_comm_release(w->comm);
fail_dup:
    w->magic = 0;
    win_release(w);
    return err;
}

int wmpi_win_free(wmpi_win *w)
{
    int err;

    if (wmpi_win_passive(w) || wmpi_win_pscw_open(w))
        return -EBUSY;
    err = wmpi_win_attr_delete_all(w);
    if (!err)
        err = wmpi_rma_complete(w, -1);
    if (!err)
        err = wmpi_barrier(w->comm);
    if (err)
        return err;
    err = wmpi_rma_serve_stop(w);
    if (!err) /* runs the delete callbacks of attributes dup copied */
        err = wmpi_comm_free(w->comm);
    if (err)
        return err;
    win_release(w);
    return 0;
}

/* ------------------------------------------------------------ regions */

int wmpi_win_attach(wmpi_win *w, void *base, int64_t size)
{
    wmpi_rma_region *r;
    int err = 0;

    wmpi_lock_take(&w->lock);
    if (w->nregions == w->cap_regions) {
        int cap = w->cap_regions ? 2 * w->cap_regions : 4;
        if ((r = realloc(w->regions, (size_t)cap * sizeof *r))) {
            w->regions = r;
            w->cap_regions = cap;
        }
    }
    if (w->nregions < w->cap_regions)
        w->regions[w->nregions++] = (wmpi_rma_region){ (uintptr_t)base, size };
    else
        err = WEFT_ENOMEM;
    wmpi_lock_release(&w->lock);
    return err;
}

int wmpi_win_detach(wmpi_win *w, const void *base)
{
    int err = -ENOENT;

    wmpi_lock_take(&w->lock);
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].base == (uintptr_t)base) {
            w->regions[i] = w->regions[--w->nregions];
            err = 0;
            break;
        }
    wmpi_lock_release(&w->lock);
    return err;
}

int wmpi_win_attached(wmpi_win *w, uintptr_t addr, int64_t len)
{
    int ok = 0;

    wmpi_lock_take(&w->lock);
    for (int i = 0; i < w->nregions && !ok; i++)
        ok = addr >= w->regions[i].base &&
             addr + (uintptr_t)len <= w->regions[i].base +
                                      (uintptr_t)w->regions[i].size;
    wmpi_lock_release(&w->lock);
    return ok;
}
