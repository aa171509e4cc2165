/* Shared-memory wire-up: every pair of ranks on one host gets a ring each
 * way and each other's doorbell, at MPI_Init.
 *
 * Design. Each rank makes its segment (a memfd: it has no name, so a job
 * killed with SIGKILL leaves nothing behind; the kernel frees it with the
 * last mapping) and its doorbell (an eventfd), and publishes a card
 * through the launcher (wmpi_boot_allgather): host identity, pid, the two
 * fd numbers, and the address and value of a word for the CMA check.
 * After a barrier (every segment is sized and initialised), each rank
 * takes its local peers' fds with pidfd_getfd - the kernel allows it only
 * to a process that may ptrace the peer, the same permission CMA needs:
 * the same user, and no Yama restriction - maps their segments and reads
 * their word with process_vm_readv. A second all-gather tells every rank
 * which peers succeeded (a segment must carry its rank's tag, derived
 * from the job's secret); a pair uses shared memory only if both sides
 * did, and any other pair is left to TCP (route.c), so the two ends
 * always agree. The segments' fds are closed once every peer mapped them;
 * the pidfds stay, in the transport's poll set: a peer that dies wakes it.
 * Each rank maps the segments (its own too) into one reserved range of
 * addresses, at their local index, so that one munmap undoes them all:
 * a munmap per segment costs a TLB shoot-down on every CPU the rank's
 * threads ran on, N of them per rank and N^2 per job, where N ranks share
 * a host (figures: docs/performance-notes.md).
 *
 * The cards come from the launcher, which only job members reach (they
 * prove the job's secret); a stranger cannot hand a rank a segment.
 *
 * Locking: none (single-threaded, inside MPI_Init).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/shm.h"

typedef struct shm_card {
    uint8_t host[16];
    int32_t pid;   /* 0: this rank offers no shared memory */
    int32_t memfd;
    int32_t bell;
    int32_t nlocal;
    uint64_t probe_addr;
    uint64_t probe_value;
} shm_card;

/* The word peers read to check that CMA works between us. */
static uint64_t probe_word;


/* ---------------------------------------------------------- our own side */

static int make_own(struct wmpi_transport *t, shm_card *me)
{
    t->bell = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    t->memfd = memfd_create("weft-mpi-shm", MFD_CLOEXEC);
    if (t->bell < 0 || t->memfd < 0)
        return -errno;
    me->pid = (int32_t)getpid();
    me->memfd = t->memfd;
    me->bell = t->bell;
    for (int i = 0; i < 8; i++)
        probe_word = probe_word << 8 | t->boot->secret[i];
    probe_word ^= (uint64_t)me->pid * 0x9e3779b97f4a7c15u;
    me->probe_addr = (uint64_t)(uintptr_t)&probe_word;
    me->probe_value = probe_word;
    return 0;
}

/* The tag a segment of `rank` carries: mapping a peer's segment checks
 * that it is that rank's of this job, not our own (two pid namespaces'
 * pids alike) nor another process's that reused the pid. */
static uint64_t owner_tag(const struct wmpi_transport *t, int rank)
{
    uint64_t h = wmpi_hash64(WMPI_HASH64_SEED, t->boot->secret, WMPI_SECRET_LEN);

    return wmpi_hash64(h, &rank, sizeof rank);
}

/* Map `len` bytes of fd at local index `slot` of the area; NULL if it
 * fails. */
static void *map_at(struct wmpi_transport *t, int slot, int fd, size_t len)
{
    void *m = mmap(t->area + (size_t)slot * t->seg_stride, len, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED, fd, 0);

    return m == MAP_FAILED ? NULL : m;
}

/* Give a segment's addresses back to the reservation. */
static void unmap_at(void *at, size_t len)
{
    if (mmap(at, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
             0) == MAP_FAILED)
        munmap(at, len); /* no room for the reservation: the addresses go */
}

/* Reserve the area, then size, map and initialise our segment for
 * `nslots` local ranks. */
static int map_own(struct wmpi_transport *t)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    t->seg_len = wmpi_shm_segment_bytes(t->nlocal, t->ring_bytes);
    t->seg_stride = (t->seg_len + page - 1) / page * page;
    t->area_len = (size_t)t->nlocal * t->seg_stride;
    void *a = mmap(NULL, t->area_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (a == MAP_FAILED)
        return -errno;
    t->area = a;
    if (ftruncate(t->memfd, (off_t)t->seg_len) < 0)
        return -errno;
    void *m = map_at(t, t->me, t->memfd, t->seg_len);
    if (!m)
        return -errno;
    t->ctl = m;
    t->ctl->nslots = (uint32_t)t->nlocal;
    t->ctl->ring_bytes = t->ring_bytes;
    t->ctl->owner = owner_tag(t, t->rank);
    __atomic_store_n(&t->ctl->magic, SHM_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

/* This host's ranks, ascending; t->me is ours. */
static int find_local(struct wmpi_transport *t, const shm_card *cards)
{
    t->local = calloc((size_t)t->size, sizeof *t->local);
    if (!t->local)
        return WEFT_ENOMEM;
    for (int r = 0; r < t->size; r++) {
        if (memcmp(cards[r].host, cards[t->rank].host, 16) != 0)
            continue;
        if (r == t->rank)
            t->me = t->nlocal;
        t->local[t->nlocal++] = r;
    }
    return 0;
}

/* ------------------------------------------------------------ a peer */

/* Close p's fds and forget its segment; `unmap`: give its addresses back
 * now (teardown unmaps the whole area at once instead). */
static void detach(shm_peer *p, int unmap)
{
    if (p->peer_ctl && unmap)
        unmap_at(p->peer_ctl, p->peer_len);
    if (p->bell >= 0)
        close(p->bell);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->peer_ctl = NULL;
    p->out = p->in = NULL;
    p->bell = p->pidfd = -1;
}

void wmpi_shm_cma_probe(shm_peer *p)
{
    uint64_t v = 0;
    struct iovec l = { &v, sizeof v };
    struct iovec r = { (void *)(uintptr_t)p->probe_addr, sizeof v };

    p->cma_probed = 1;
    if (process_vm_readv(p->pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof v && v == p->probe_value)
        __atomic_store_n(&p->in->cma_ok, 1, __ATOMIC_RELEASE);
}

/* Map the peer of local index `slot`; 1 on success. */
static int attach(struct wmpi_transport *t, shm_peer *p, const shm_card *c, int slot)
{
    struct stat st;
    int fd = -1;

    p->pid = (pid_t)c->pid;
    p->pidfd = wmpi_pidfd_open(p->pid);
    if (p->pidfd >= 0)
        fd = wmpi_pidfd_getfd(p->pidfd, c->memfd);
    if (fd >= 0)
        p->bell = wmpi_pidfd_getfd(p->pidfd, c->bell);
    if (fd >= 0 && p->bell >= 0 && fstat(fd, &st) == 0 &&
        (size_t)st.st_size == wmpi_shm_segment_bytes(t->nlocal, t->ring_bytes)) {
        void *m = map_at(t, slot, fd, (size_t)st.st_size);
        if (m) {
            p->peer_ctl = m;
            p->peer_len = (size_t)st.st_size;
        }
    }
    if (fd >= 0)
        close(fd);
    if (!p->peer_ctl || __atomic_load_n(&p->peer_ctl->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC ||
        p->peer_ctl->nslots != (uint32_t)t->nlocal || p->peer_ctl->ring_bytes != t->ring_bytes ||
        p->peer_ctl->owner != owner_tag(t, p->rank)) {
        detach(p, 1);
        return 0;
    }
    p->out = wmpi_shm_ring(p->peer_ctl, t->me);
    p->in = wmpi_shm_ring(t->ctl, slot);
    p->probe_addr = c->probe_addr;
    p->probe_value = c->probe_value;
    if (t->cma_min != SIZE_MAX)
        wmpi_shm_cma_probe(p);
    return 1;
}

static void attach_all(struct wmpi_transport *t, const shm_card *cards, const uint8_t *want,
                       uint8_t *ok)
{
    for (int i = 0; i < t->nlocal; i++) {
        int r = t->local[i];
        if (r != t->rank && want[r] && cards[r].pid && attach(t, &t->peers[r], &cards[r], i))
            ok[r / 8] |= (uint8_t)(1u << (r % 8));
    }
}

/* Keep the pairs both sides attached; detach the others. */
static int agree(struct wmpi_transport *t, const uint8_t *oks, size_t len)
{
    int n = 0;

    for (int r = 0; r < t->size; r++) {
        shm_peer *p = &t->peers[r];
        int mine = p->peer_ctl != NULL;
        int theirs = (oks[(size_t)r * len + (size_t)t->rank / 8] >> (t->rank % 8)) & 1;

        p->on = mine && theirs;
        if (mine && !p->on)
            detach(p, 1);
        n += p->on;
    }
    return n;
}

static int watch(struct wmpi_transport *t)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

    t->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (t->epfd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->bell, &ev) < 0)
        return -errno;
    for (int r = 0; r < t->size; r++) {
        shm_peer *p = &t->peers[r];
        ev.data.ptr = p;
        if (p->on && epoll_ctl(t->epfd, EPOLL_CTL_ADD, p->pidfd, &ev) < 0)
            return -errno;
    }
    return 0;
}

/* ------------------------------------------------------------- together */

/* The second round; `offer`: we have a segment peers may write to. */
static int trade(struct wmpi_transport *t, const shm_card *cards, const uint8_t *want, int offer)
{
    size_t len = ((size_t)t->size + 7) / 8;
    uint8_t *ok = calloc(len, 1), *oks = calloc(len, (size_t)t->size);
    int err = ok && oks ? 0 : WEFT_ENOMEM;

    if (!err) {
        if (offer)
            attach_all(t, cards, want, ok);
        err = wmpi_boot_allgather(t->boot, ok, len, oks);
    }
    if (!err && agree(t, oks, len) > 0)
        err = watch(t);
    free(ok);
    free(oks);
    return err;
}

int wmpi_shm_setup(struct wmpi_transport *t, const uint8_t *want)
{
    shm_card me = { .pid = 0 }, *cards = calloc((size_t)t->size, sizeof *cards);
    int err;

    if (!cards)
        return WEFT_ENOMEM;
    wmpi_host_identity(me.host);
    if (make_own(t, &me) < 0)
        me.pid = 0; /* no shared memory here: every pair goes to TCP */
    err = wmpi_boot_allgather(t->boot, &me, sizeof me, cards);
    if (!err)
        err = find_local(t, cards);
    /* Without a segment we offer nothing; peers learn it in the second
     * round (they may map ours, but we never acknowledge them). */
    int offer = !err && me.pid && t->nlocal > 1 && map_own(t) == 0;
    if (!err)
        err = wmpi_boot_barrier(t->boot);
    if (!err)
        err = trade(t, cards, want, offer);
    if (t->memfd >= 0)
        close(t->memfd);
    t->memfd = -1;
    free(cards);
    return err;
}

void wmpi_shm_teardown(struct wmpi_transport *t)
{
    for (int r = 0; t->peers && r < t->size; r++)
        detach(&t->peers[r], 0);
    if (t->area)
        munmap(t->area, t->area_len);
    t->area = NULL;
    if (t->memfd >= 0)
        close(t->memfd);
    if (t->bell >= 0)
        close(t->bell);
    if (t->epfd >= 0)
        close(t->epfd);
    free(t->local);
    t->ctl = NULL;
    t->local = NULL;
    t->memfd = t->bell = t->epfd = -1;
}
