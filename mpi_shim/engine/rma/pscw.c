/* Generalized active target synchronisation: MPI_Win_post, start,
 * complete, wait and test.
 *
 * Empty messages on the window's private context carry the handshake:
 *   post      the target sends POST to each origin of its group and posts
 *             a receive for each origin's DONE (returns at once);
 *   start     the origin waits for POST from each target of its group,
 *             then has access to them (MPI allows start to return before
 *             the posts; waiting here keeps operations from reaching a
 *             target before its exposure epoch, with no queue of them);
 *   complete  the origin completes its operations at those targets
 *             (their answers came back), then sends each DONE;
 *   wait/test the target waits for / tests the DONE receives.
 * Each pair trades one POST and one DONE per epoch and messages of a pair
 * stay in order, so an epoch's POST never satisfies a later start.
 * DONE follows the answers of every operation it closes, so when wait
 * returns the window holds every origin's updates.
 *
 * Locking: the access group is read by operations of other threads
 * (wmpi_win_has_access), so it changes under the window's lock; the
 * exposure epoch belongs to the thread that posts and waits.
 */
#include <stdlib.h>

#include "engine/core/internal.h"
#include "engine/rma/rma.h"

/* Send an empty message with `tag` to each of the n ranks; wait until
 * sent (empty messages are eager: at once, unless a socket is full). */
static int notify(wmpi_win *w, const int *ranks, int n, int tag)
{
    wmpi_request **r = calloc((size_t)n + 1, sizeof *r);
    int err = r ? 0 : WEFT_ENOMEM;
    int i;

    for (i = 0; i < n && !err; i++)
        err = wmpi_isend(NULL, 0, &wmpi_dt_byte, ranks[i], tag, w->comm,
                         WMPI_MODE_STANDARD, &r[i]);
    if (err)
        n = i - 1; /* wait for the ones sent */
    if (n > 0 && wmpi_wait_requests(r, n, n))
        wmpi_fatal("window: cannot complete a synchronisation message");
    for (i = 0; i < n; i++)
        wmpi_request_finish(r[i], NULL);
    free(r);
    return err;
}

/* Post an empty receive with `tag` from each of the n ranks into r[]. */
static int expect(wmpi_win *w, const int *ranks, int n, int tag,
                  wmpi_request **r)
{
    for (int i = 0; i < n; i++) {
        int err = wmpi_irecv(NULL, 0, &wmpi_dt_byte, ranks[i], tag, w->comm,
                             &r[i]);
        if (err)
            wmpi_fatal("window: cannot post a synchronisation receive");
    }
    return 0;
}

static void finish_all(wmpi_request **r, int n)
{
    for (int i = 0; i < n; i++)
        wmpi_request_finish(r[i], NULL);
}

int wmpi_win_post(wmpi_win *w, const int *ranks, int n)
{
    wmpi_request **r;

    if (w->nexposed)
        return -EPROTO;
    if (!(r = calloc((size_t)n + 1, sizeof *r)))
        return WEFT_ENOMEM;
    expect(w, ranks, n, WMPI_RMA_TAG_DONE, r);
    w->exposed = r;
    w->nexposed = n ? n : -1; /* -1: open, with nobody to wait for */
    return notify(w, ranks, n, WMPI_RMA_TAG_POST);
}

static void set_access(wmpi_win *w, int *ranks, int n)
{
    wmpi_lock_take(&w->lock);
    for (int i = 0; i < w->naccess; i++)
        w->started[w->access[i]] = 0;
    free(w->access);
    w->access = ranks;
    w->naccess = n;
    for (int i = 0; i < n; i++)
        w->started[ranks[i]] = 1;
    wmpi_lock_release(&w->lock);
}

int wmpi_win_start(wmpi_win *w, const int *ranks, int n)
{
    wmpi_request **r;
    int *copy;

    if (w->naccess)
        return -EPROTO;
    r = calloc((size_t)n + 1, sizeof *r);
    copy = malloc(((size_t)n + 1) * sizeof *copy);
    if (!r || !copy) {
        free(r);
        free(copy);
        return WEFT_ENOMEM;
    }
    expect(w, ranks, n, WMPI_RMA_TAG_POST, r);
    if (n && wmpi_wait_requests(r, n, n))
        wmpi_fatal("window: cannot wait for the targets' posts");
    finish_all(r, n);
    free(r);
    for (int i = 0; i < n; i++)
        copy[i] = ranks[i];
    set_access(w, copy, n ? n : -1);
    return 0;
}

int wmpi_win_complete(wmpi_win *w)
{
    int err = 0, e;

    if (!w->naccess)
        return -EPROTO;
    for (int i = 0; i < w->naccess; i++) {
        e = wmpi_rma_complete(w, w->access[i]);
        err = err ? err : e;
    }
    e = notify(w, w->access, w->naccess > 0 ? w->naccess : 0,
               WMPI_RMA_TAG_DONE);
    set_access(w, NULL, 0);
    return err ? err : e;
}

static void close_exposure(wmpi_win *w)
{
    finish_all(w->exposed, w->nexposed > 0 ? w->nexposed : 0);
    free(w->exposed);
    w->exposed = NULL;
    w->nexposed = 0;
}

int wmpi_win_wait(wmpi_win *w)
{
    int n = w->nexposed > 0 ? w->nexposed : 0;

    if (!w->nexposed)
        return -EPROTO;
    if (n && wmpi_wait_requests(w->exposed, n, n))
        wmpi_fatal("window: cannot wait for the origins' completion");
    close_exposure(w);
    return 0;
}

int wmpi_win_test(wmpi_win *w, int *flag)
{
    int n = w->nexposed > 0 ? w->nexposed : 0;

    *flag = 0;
    if (!w->nexposed)
        return -EPROTO;
    wmpi_progress_poke();
    for (int i = 0; i < n; i++)
        if (!wmpi_request_done(w->exposed[i])) {
            wmpi_progress_yield();
            return 0;
        }
    close_exposure(w);
    *flag = 1;
    return 0;
}

int wmpi_win_pscw_open(wmpi_win *w)
{
    int open;

    wmpi_lock_take(&w->lock);
    open = w->naccess != 0;
    wmpi_lock_release(&w->lock);
    return open || w->nexposed;
}
