/* Which transport carries frames to each peer: shared memory to the ranks
 * of this host, TCP to the others (MPICH's ch4 branches the same way on
 * "is this address local").
 *
 * Design. At MPI_Init the shared-memory transport is offered every peer
 * and takes those it can map (same host, same user, the kernel lets it
 * reach their memory); TCP is then asked for the rest, so a pair of ranks
 * uses exactly one transport and both sides agree. WEFT_MPI_TRANSPORT
 * forces a choice: "tcp" (every peer over TCP, as across hosts), "shm"
 * (every peer over shared memory, or MPI_Init fails naming the first that
 * cannot be), "auto" (the default). The engine then sees one transport:
 * send goes to the peer's, progress runs each, and the I/O server watches
 * one fd (an epoll set of the transports' fds when there are two).
 *
 * Invariants: route[] is fixed from MPI_Init to MPI_Finalize.
 * Locking: send and progress run under the engine lock; sleeping() and
 * the pollfd are read without it (fixed after init).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "engine/core/internal.h"

enum { NO_ROUTE = 0xff };

static const char *transport_choice(void)
{
    const char *v = getenv("WEFT_MPI_TRANSPORT");

    if (!v || !*v || strcmp(v, "auto") == 0)
        return "auto";
    if (strcmp(v, "shm") == 0 || strcmp(v, "tcp") == 0)
        return v;
    return NULL;
}

static int add_transport(const struct wmpi_transport_ops *ops, uint8_t *want)
{
    wmpi_route *rt = &wmpi_eng.route;
    int i = rt->n, taken = 0;
    int err = ops->create(&rt->tr[i].tp, &wmpi_eng.boot, &wmpi_upcalls_engine, want);
    if (err < 0)
        return err;
    for (int r = 0; r < wmpi_eng.size; r++)
        if (want[r] && ops->reaches(rt->tr[i].tp, r)) {
            rt->peer[r] = (uint8_t)i;
            want[r] = 0;
            taken++;
        }
    if (!taken) { /* nobody to carry frames to: not worth a poll */
        ops->destroy(rt->tr[i].tp);
        rt->tr[i].tp = NULL;
        return 0;
    }
    rt->tr[i].ops = ops;
    rt->n++;
    return 0;
}

/* WEFT_MPI_TRANSPORT=shm: every peer must be on shared memory. */
static int all_taken(const uint8_t *want)
{
    for (int r = 0; r < wmpi_eng.size; r++)
        if (want[r]) {
            fprintf(stderr,
                    "weft-mpi: rank %d: WEFT_MPI_TRANSPORT=shm, but rank %d is not reachable "
                    "through shared memory (another host, another user, or the kernel refused "
                    "access to its memory); use auto or tcp\n",
                    wmpi_eng.rank, r);
            return WEFT_EINVAL;
        }
    return 0;
}

/* One fd for the I/O server: the transport's own, or an epoll set of
 * every transport's. */
static int join_pollfds(void)
{
    wmpi_route *rt = &wmpi_eng.route;

    if (rt->n <= 1) {
        rt->pollfd = rt->n ? rt->tr[0].ops->pollfd(rt->tr[0].tp) : -1;
        return 0;
    }
    rt->own_epfd = epoll_create1(EPOLL_CLOEXEC);
    if (rt->own_epfd < 0)
        return -errno;
    for (int i = 0; i < rt->n; i++) {
        struct epoll_event ev = { .events = EPOLLIN };
        int fd = rt->tr[i].ops->pollfd(rt->tr[i].tp);
        if (fd >= 0 && epoll_ctl(rt->own_epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
            return -errno;
    }
    rt->pollfd = rt->own_epfd;
    return 0;
}

int wmpi_route_create(void)
{
    wmpi_route *rt = &wmpi_eng.route;
    const char *choice = transport_choice();
    int size = wmpi_eng.size, err = 0;
    uint8_t *want;

    if (!choice) {
        fprintf(stderr, "weft-mpi: WEFT_MPI_TRANSPORT=%s: expected auto, shm or tcp\n",
                getenv("WEFT_MPI_TRANSPORT"));
        return WEFT_EINVAL;
    }
    rt->own_epfd = -1;
    rt->peer = malloc((size_t)size);
    want = malloc((size_t)size);
    if (!rt->peer || !want) {
        free(want);
        return WEFT_ENOMEM;
    }
    memset(rt->peer, NO_ROUTE, (size_t)size);
    for (int r = 0; r < size; r++)
        want[r] = r != wmpi_eng.rank;
    if (strcmp(choice, "tcp") != 0)
        err = add_transport(&wmpi_shm_ops, want);
    if (!err && strcmp(choice, "shm") == 0)
        err = all_taken(want);
    if (!err)
        err = add_transport(&wmpi_tcp_ops, want);
    free(want);
    return err ? err : join_pollfds();
}

void wmpi_route_destroy(void)
{
    wmpi_route *rt = &wmpi_eng.route;

    for (int i = 0; i < rt->n; i++)
        rt->tr[i].ops->destroy(rt->tr[i].tp);
    if (rt->own_epfd >= 0)
        close(rt->own_epfd);
    free(rt->peer);
    memset(rt, 0, sizeof *rt);
    rt->own_epfd = rt->pollfd = -1;
}

int wmpi_frame_send_locked(int peer, wmpi_frame *f)
{
    wmpi_route *rt = &wmpi_eng.route;
    int i = rt->peer ? rt->peer[peer] : NO_ROUTE;

    if (i == NO_ROUTE) {
        f->done(f, WEFT_EINVAL);
        return WEFT_EINVAL;
    }
    return rt->tr[i].ops->send(rt->tr[i].tp, peer, f);
}

void wmpi_progress_locked(size_t budget)
{
    wmpi_route *rt = &wmpi_eng.route;

    for (int i = 0; i < rt->n; i++)
        rt->tr[i].ops->progress(rt->tr[i].tp, budget);
}

int wmpi_route_pollfd(void)
{
    return wmpi_eng.route.n ? wmpi_eng.route.pollfd : -1;
}

int wmpi_route_sleeping(int asleep)
{
    wmpi_route *rt = &wmpi_eng.route;
    int busy = 0;

    for (int i = 0; i < rt->n; i++)
        if (rt->tr[i].ops->sleeping)
            busy |= rt->tr[i].ops->sleeping(rt->tr[i].tp, asleep);
    return busy;
}

const char *wmpi_route_name(int peer)
{
    wmpi_route *rt = &wmpi_eng.route;
    int i = rt->peer && peer >= 0 && peer < wmpi_eng.size ? rt->peer[peer] : NO_ROUTE;

    return i == NO_ROUTE ? "self" : rt->tr[i].ops->name;
}

void wmpi_route_finishing(void)
{
    wmpi_route *rt = &wmpi_eng.route;

    for (int i = 0; i < rt->n; i++)
        if (rt->tr[i].ops->finishing)
            rt->tr[i].ops->finishing(rt->tr[i].tp);
}

int wmpi_route_linked(int peer)
{
    wmpi_route *rt = &wmpi_eng.route;
    int i = rt->peer && peer >= 0 && peer < wmpi_eng.size ? rt->peer[peer] : NO_ROUTE;

    if (i == NO_ROUTE)
        return 0;
    return !rt->tr[i].ops->linked || rt->tr[i].ops->linked(rt->tr[i].tp, peer);
}

const char *wmpi_route_where(int peer)
{
    wmpi_route *rt = &wmpi_eng.route;
    int i = rt->peer && peer >= 0 && peer < wmpi_eng.size ? rt->peer[peer] : NO_ROUTE;

    return i == NO_ROUTE || !rt->tr[i].ops->where ? NULL : rt->tr[i].ops->where(rt->tr[i].tp, peer);
}

wmpi_transport *wmpi_route_shm(void)
{
    wmpi_route *rt = &wmpi_eng.route;

    for (int i = 0; i < rt->n; i++)
        if (rt->tr[i].ops == &wmpi_shm_ops)
            return rt->tr[i].tp;
    return NULL;
}
