/* Puts and gets as the origin's own copies, on windows whose memory every
 * rank maps (shared.c: MPI_Win_allocate_shared, and MPI_Win_allocate on
 * ranks of one host).
 *
 * Design. The target's part is in this process's address space, so a
 * put packs the origin's data straight into the target's bytes and a get
 * unpacks them straight into the result buffer: no message, no answer,
 * no service thread, and the target's threads need not run at all. A
 * dense target (its bytes one run) is one pack or unpack; other layouts
 * go through a packed copy, scattered to or gathered from the runs.
 * Accumulates, compare-and-swap and the request-based forms stay
 * messages to the service thread, which alone makes accumulates atomic
 * per element; MPI leaves a put or get that overlaps an accumulate in the
 * same epoch undefined, so they need no ordering between them.
 *
 * The copy is done when the call returns; the epoch's end (flush,
 * unlock, fence, complete) fences memory before it tells the target
 * anything (wmpi_rma_complete), which is all the unified model asks.
 * WEFT_MPI_RMA_SHM=0 turns the shared mapping of MPI_Win_allocate off
 * (shared.c), and with it this path, for comparisons.
 *
 * Locking: none: the epoch's rules keep conflicting accesses apart.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/objects/datatype.h"
#include "engine/rma/rma.h"

/* The target's bytes, relative to its displacement, from a packed copy
 * (put) or into one (get). */
static void scatter(char *at, const int64_t *run, int64_t nruns, const char *packed)
{
    for (int64_t i = 0; i < nruns; i++) {
        memcpy(at + run[2 * i], packed, (size_t)run[2 * i + 1]);
        packed += run[2 * i + 1];
    }
}

static void gather(const char *at, const int64_t *run, int64_t nruns, char *packed)
{
    for (int64_t i = 0; i < nruns; i++) {
        memcpy(packed, at + run[2 * i], (size_t)run[2 * i + 1]);
        packed += run[2 * i + 1];
    }
}

int wmpi_rma_direct(wmpi_win *w, const wmpi_rma_args *a, const int64_t *run, int64_t nruns,
                    int64_t tbytes)
{
    char *at, *tmp;

    if (!w->shared_map || a->ureq || (a->kind != WMPI_RMA_PUT && a->kind != WMPI_RMA_GET))
        return 0;
    at = (char *)wmpi_win_shared_base(w, a->target) + a->tdisp * w->units[a->target];
    if (nruns == 0)
        return 1;
    if (nruns == 1 && a->kind == WMPI_RMA_PUT) {
        wmpi_datatype_pack(a->odt, a->ocount, a->obuf, at + run[0]);
        return 1;
    }
    if (nruns == 1) {
        wmpi_datatype_unpack(a->rdt, a->rcount, at + run[0], a->rbuf);
        return 1;
    }
    if (!(tmp = malloc((size_t)tbytes)))
        return WEFT_ENOMEM;
    if (a->kind == WMPI_RMA_PUT) {
        wmpi_datatype_pack(a->odt, a->ocount, a->obuf, tmp);
        scatter(at, run, nruns, tmp);
    } else {
        gather(at, run, nruns, tmp);
        wmpi_datatype_unpack(a->rdt, a->rcount, tmp, a->rbuf);
    }
    free(tmp);
    return 1;
}
