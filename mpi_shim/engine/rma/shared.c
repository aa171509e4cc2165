/* The memory of a shared window (MPI_Win_allocate_shared): every rank's
 * part in one segment that every rank maps, so a rank reaches its
 * neighbours' parts with plain loads and stores (MPI_Win_shared_query).
 *
 * Design. The window's rank 0 makes the segment (a memfd: no name, so a
 * job killed with SIGKILL leaves nothing behind) as long as a header page
 * plus the sum of the ranks' sizes, writes a random nonce into the
 * header, and broadcasts a card on the window's communicator: its host
 * identity, pid, the memfd's number, the nonce and the length. Each other
 * rank on the same host takes the fd with pidfd_getfd (the kernel allows
 * it to a process that may ptrace rank 0: the same user, no Yama
 * restriction, as the shared-memory transport needs), maps it and checks
 * the nonce, which proves the segment is rank 0's and not another
 * process's under a reused pid. An all-reduce then tells every rank
 * whether all of them mapped it; if one could not (another host, another
 * user, a refused pidfd_getfd), every rank unmaps and the call fails with
 * -EXDEV (MPI_ERR_RMA_SHARED) on every rank alike. Only after that
 * all-reduce does rank 0 close the memfd, as every rank has taken it.
 *
 * The parts are contiguous in rank order with no padding (the standard's
 * default; the alloc_shared_noncontig hint only allows otherwise), so
 * rank r's part starts after the parts of ranks 0..r-1; the data starts
 * one page into the segment, so rank 0's part is page aligned.
 *
 * MPI_Win_allocate tries the same (a rank that does not want it,
 * WEFT_MPI_RMA_SHM=0, takes part and answers no), and keeps its own
 * memory where the ranks cannot share: puts and gets to a shared part are
 * then the origin's copies (direct.c).
 *
 * Locking: none (collective set-up, single-threaded per window).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create */
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/coll/coll.h"
#include "engine/core/internal.h"
#include "engine/rma/rma.h"
#include "transport/transport.h"

typedef struct share_card {
    uint8_t host[16];
    int32_t pid; /* 0: rank 0 could not make the segment */
    int32_t fd;
    int32_t err; /* rank 0's error then */
    int32_t pad_;
    uint64_t nonce;
    uint64_t len;
} share_card;

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);

    return p > 0 ? (size_t)p : 4096;
}

static int64_t total_bytes(const wmpi_win *w)
{
    int64_t sum = 0;

    for (int r = 0; r < w->comm->size; r++)
        sum += w->sizes[r];
    return sum;
}

/* Rank 0: make, size and map the segment; fill in the card. */
static int make_segment(wmpi_win *w, share_card *card, int *fd)
{
    void *map;

    *fd = memfd_create("weft-win", MFD_CLOEXEC);
    if (*fd < 0)
        return -errno;
    if (ftruncate(*fd, (off_t)card->len) < 0)
        return errno == EFBIG || errno == EINVAL ? WEFT_ENOMEM : -errno;
    map = mmap(NULL, (size_t)card->len, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (map == MAP_FAILED)
        return WEFT_ENOMEM;
    if (getrandom(&card->nonce, sizeof card->nonce, 0) != sizeof card->nonce)
        card->nonce = (uint64_t)(uintptr_t)map ^ (uint64_t)getpid() << 32;
    memcpy(map, &card->nonce, sizeof card->nonce);
    w->shared_map = map;
    w->shared_len = (size_t)card->len;
    card->pid = (int32_t)getpid();
    card->fd = *fd;
    return 0;
}

/* Other ranks: take rank 0's segment and check it is the one announced;
 * 0 if this rank cannot (it is then left unmapped). */
static int map_segment(wmpi_win *w, const share_card *card)
{
    uint8_t host[16];
    int pidfd, fd, ok = 0;
    struct stat st;

    wmpi_host_identity(host);
    if (!card->pid || memcmp(host, card->host, sizeof host) != 0)
        return 0;
    if ((pidfd = wmpi_pidfd_open((pid_t)card->pid)) < 0)
        return 0;
    fd = wmpi_pidfd_getfd(pidfd, card->fd);
    close(pidfd);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_size == card->len) {
        void *map = mmap(NULL, (size_t)card->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED && !memcmp(map, &card->nonce, sizeof card->nonce)) {
            w->shared_map = map;
            w->shared_len = (size_t)card->len;
            ok = 1;
        } else if (map != MAP_FAILED) {
            munmap(map, (size_t)card->len);
        }
    }
    close(fd);
    return ok;
}

int wmpi_win_share(wmpi_win *w, int want)
{
    size_t page = page_size();
    int64_t total = total_bytes(w);
    share_card card;
    uint64_t all_ok, ok;
    int fd = -1, err = 0;

    memset(&card, 0, sizeof card);
    card.len = (uint64_t)page + (((uint64_t)(total ? total : 1) + page - 1) & ~(uint64_t)(page - 1));
    if (w->comm->rank == 0 && want) {
        wmpi_host_identity(card.host);
        err = make_segment(w, &card, &fd);
        if (err) {
            card.pid = 0;
            card.err = err;
        }
    }
    err = wmpi_bcast(&card, (int)sizeof card, &wmpi_dt_byte, 0, w->comm);
    if (err)
        goto out;
    ok = !want ? 0 : w->comm->rank == 0 ? card.pid != 0 : map_segment(w, &card);
    err = wmpi_allreduce(&ok, &all_ok, 1, &wmpi_dt_uint64, &wmpi_op_band, w->comm);
    if (!err && !all_ok)
        err = card.err ? card.err : -EXDEV;
    if (!err && !(w->shared_off = malloc((size_t)w->comm->size * sizeof *w->shared_off)))
        err = WEFT_ENOMEM;
    if (!err) {
        int64_t at = (int64_t)page;
        for (int r = 0; r < w->comm->size; r++) {
            w->shared_off[r] = at;
            at += w->sizes[r];
        }
        w->base = w->shared_map + w->shared_off[w->comm->rank];
    }
out:
    if (fd >= 0)
        close(fd); /* every rank holds its own reference by now */
    if (err)
        wmpi_win_unshare(w);
    return err;
}

void wmpi_win_unshare(wmpi_win *w)
{
    if (w->shared_map)
        munmap(w->shared_map, w->shared_len);
    free(w->shared_off);
    w->shared_map = NULL;
    w->shared_off = NULL;
    w->shared_len = 0;
}

void *wmpi_win_shared_base(const wmpi_win *w, int rank)
{
    return w->shared_map + w->shared_off[rank];
}
