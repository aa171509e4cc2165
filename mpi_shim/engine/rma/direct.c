/* Puts and gets as the origin's own copies, on windows whose memory every
 * rank maps (shared.c: MPI_Win_allocate_shared, and MPI_Win_allocate on
 * ranks of one host), and as single copies into or out of another
 * process (process_vm_writev / readv, "CMA") on windows of
 * MPI_Win_create between ranks of one host.
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
 * Windows of MPI_Win_create are the user's memory, which no other
 * process maps; at creation the ranks trade their pid, base and host
 * identity (wmpi_rma_cma_setup), and a put or get to a rank of this host
 * moves its bytes with one system call, the target untouched. CMA needs
 * the permission to ptrace the target (the same user, no Yama
 * restriction): the first refusal turns it off for that target, whose
 * operations then go as messages.
 *
 * The copy is done when the call returns; the epoch's end (flush,
 * unlock, fence, complete) fences memory before it tells the target
 * anything (wmpi_rma_complete), which is all the unified model asks.
 * WEFT_MPI_RMA_SHM=0 turns both off (the shared mapping of
 * MPI_Win_allocate, shared.c, and CMA), for comparisons.
 *
 * Locking: none: the epoch's rules keep conflicting accesses apart.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine/coll/coll.h"
#include "engine/core/internal.h"
#include "engine/objects/datatype.h"
#include "engine/rma/rma.h"
#include "transport/transport.h"

/* Where a rank keeps its window, as traded at creation. */
typedef struct wmpi_rma_cma {
    uint8_t host[16];
    int32_t pid;     /* 0: not reachable by CMA (another host, refused) */
    int32_t pad_;
    uint64_t base;
} wmpi_rma_cma;

int wmpi_rma_copies_wanted(void)
{
    const char *v = getenv("WEFT_MPI_RMA_SHM");

    return !v || strcmp(v, "0") != 0;
}

int wmpi_rma_cma_setup(wmpi_win *w)
{
    int n = w->comm->size, err;
    wmpi_rma_cma mine = { .pid = (int32_t)getpid(), .base = (uint64_t)(uintptr_t)w->base };

    wmpi_host_identity(mine.host);
    if (!(w->cma = calloc((size_t)n, sizeof *w->cma)))
        return WEFT_ENOMEM;
    err = wmpi_allgather(&mine, (int)sizeof mine, &wmpi_dt_byte, w->cma, (int)sizeof mine,
                         &wmpi_dt_byte, w->comm);
    for (int r = 0; !err && r < n; r++)
        if (memcmp(w->cma[r].host, mine.host, sizeof mine.host) != 0)
            w->cma[r].pid = 0;
    if (!wmpi_rma_copies_wanted()) { /* the exchange is collective all the same */
        free(w->cma);
        w->cma = NULL;
    }
    return err;
}

/* One system call moves the packed bytes to or from the target's runs
 * (remote: room for nruns iovecs); 0, or -errno. */
static int cma_copy(wmpi_rma_cma *c, int put, char *packed, uint64_t at, const int64_t *run,
                    int64_t nruns, int64_t tbytes, struct iovec *remote)
{
    struct iovec local = { packed, (size_t)tbytes };
    ssize_t done;

    for (int64_t i = 0; i < nruns; i++)
        remote[i] = (struct iovec){ (void *)(uintptr_t)(at + (uint64_t)run[2 * i]),
                                    (size_t)run[2 * i + 1] };
    done = put ? process_vm_writev(c->pid, &local, 1, remote, (unsigned long)nruns, 0)
               : process_vm_readv(c->pid, &local, 1, remote, (unsigned long)nruns, 0);
    if (done == tbytes)
        return 0;
    return done < 0 ? -errno : -EIO;
}

/* A put or get to another process of this host by CMA: 1 if done, 0 if
 * it must go as a message (more runs than one call takes; CMA refused,
 * after which it is never tried again for that target), WEFT_ENOMEM. */
static int by_cma(wmpi_win *w, const wmpi_rma_args *a, const int64_t *run, int64_t nruns,
                  int64_t tbytes)
{
    wmpi_rma_cma *c = &w->cma[a->target];
    uint64_t at = c->base + (uint64_t)(a->tdisp * w->units[a->target]);
    int put = a->kind == WMPI_RMA_PUT, err;
    struct iovec *remote;
    char *local, *tmp = NULL;
    int64_t off;

    if (nruns == 0)
        return 1;
    if (!__atomic_load_n(&c->pid, __ATOMIC_RELAXED) || nruns > IOV_MAX)
        return 0;
    /* an origin buffer that is its own packed form is moved as it is */
    if (wmpi_datatype_dense(put ? a->odt : a->rdt, put ? a->ocount : a->rcount, &off))
        local = wmpi_dt_at(put ? a->obuf : a->rbuf, off);
    else
        local = tmp = malloc((size_t)tbytes);
    remote = malloc((size_t)nruns * sizeof *remote);
    if (!local || !remote) {
        free(tmp);
        free(remote);
        return WEFT_ENOMEM;
    }
    if (put && tmp)
        wmpi_datatype_pack(a->odt, a->ocount, a->obuf, tmp);
    err = cma_copy(c, put, local, at, run, nruns, tbytes, remote);
    if (!err && !put && tmp)
        wmpi_datatype_unpack(a->rdt, a->rcount, tmp, a->rbuf);
    free(tmp);
    free(remote);
    if (err)
        __atomic_store_n(&c->pid, 0, __ATOMIC_RELAXED);
    return !err;
}

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

    if (a->ureq || (a->kind != WMPI_RMA_PUT && a->kind != WMPI_RMA_GET))
        return 0;
    if (!w->shared_map)
        return w->cma ? by_cma(w, a, run, nruns, tbytes) : 0;
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
