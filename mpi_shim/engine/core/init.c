/* The engine's life: MPI_Init and MPI_Finalize (MPI_Abort: fatal.c).
 *
 * Init, in order: start Weft's runtime if the program did not (main then
 * becomes a user-level thread, so MPI calls block only it), after binding
 * the process to its local rank's share of the CPUs (bind.c); bootstrap
 * (rank, size, job secret: boot.h); arm the report of a fatal signal,
 * which names the rank; create the transport, which trades
 * addresses through the launcher and connects every pair of ranks; set up
 * world and self; register the engine with the I/O server. MPI_THREAD_
 * MULTIPLE is always provided internally (the engine lock guards all
 * state); the level reported is the one requested.
 *
 * Finalize, in order: wait for engine-owned sends (freed requests,
 * buffered sends) to finish; exchange an empty closing message with every
 * peer on the reserved context WMPI_CTX_FINAL (each rank's last frame to
 * each peer, so the peer can tell a clean close from a crash, and nobody
 * closes a socket with data still unread: closing then sends FIN, not
 * RST); unregister from the I/O server; close the transport; tell the
 * launcher. If MPI_Init started Weft, MPI_Finalize stops it again.
 *
 * Rejected: tearing connections down without the closing exchange (an
 * unread byte in a socket makes close() send RST, and the peer's kernel may
 * then discard data it had not yet delivered to it).
 *
 * Invariants: the engine's objects exist exactly between a successful
 * wmpi_init and wmpi_finalize.
 * Locking: init and finalize run on one thread while no other thread may
 * call MPI (the MPI standard's rule); the state they publish is read-only
 * in between.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll_impl.h"
#include "engine/core/internal.h"

static int started_weft; /* MPI_Init called weft_init() */

int wmpi_world_rank(void)
{
    return wmpi_eng.rank;
}

static size_t eager_limit(void)
{
    const char *s = getenv("WEFT_EAGER_LIMIT");
    char *end;
    unsigned long long v;

    if (!s || !*s)
        return WMPI_EAGER_DEFAULT;
    v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end || v > ((size_t)1 << 40)) {
        fprintf(stderr, "weft-mpi: ignoring malformed WEFT_EAGER_LIMIT=%s\n", s);
        return WMPI_EAGER_DEFAULT;
    }
    return (size_t)v;
}

static int start_runtime(void)
{
    int err;

    /* Ranks sharing CPUs take turns (a spinning worker yields between
     * polls). (Binding is skipped, but the answer still given, if Weft
     * already runs.) */
    weft_set_cpus_shared(wmpi_bind_local_rank());
    if (weft_is_initialized())
        return 0;
    err = weft_init();
    started_weft = err == 0;
    return err;
}

/* A rank that dies of a fault says which rank it was and where it died
 * (weft_fatal_report_start), unless WEFT_MPI_BACKTRACE=0. */
static void arm_fatal_report(int rank)
{
    const char *s = getenv("WEFT_MPI_BACKTRACE");
    char who[32];

    if (s && !strcmp(s, "0"))
        return;
    snprintf(who, sizeof who, "rank %d", rank);
    weft_fatal_report_start(who);
}

static int start_engine(void)
{
    int err;

    wmpi_eng.rank = wmpi_eng.boot.rank;
    wmpi_eng.size = wmpi_eng.boot.size;
    wmpi_eng.eager_limit = eager_limit();
    wmpi_eng.peers = calloc((size_t)wmpi_eng.size, sizeof *wmpi_eng.peers);
    if (!wmpi_eng.peers)
        return WEFT_ENOMEM;
    wmpi_comms_init(wmpi_eng.rank, wmpi_eng.size);
    err = wmpi_placement_init(&wmpi_eng.boot);
    if (err < 0)
        return err;
    err = wmpi_route_create();
    if (err < 0)
        return err;
    return wmpi_io_start();
}

int wmpi_init(int required, int *provided)
{
    int err = start_runtime();

    if (err < 0)
        return err;
    err = wmpi_boot_init(&wmpi_eng.boot);
    if (err < 0)
        return err;
    wmpi_abort_set_boot(&wmpi_eng.boot);
    arm_fatal_report(wmpi_eng.boot.rank);
    err = start_engine();
    if (err < 0)
        return err;
    wmpi_state.thread_level = required;
    wmpi_state.main_thread = weft_thread_self();
    wmpi_state.initialized = 1;
    *provided = required;
    return 0;
}

/* ------------------------------------------------------------- finalize */

static int no_orphans(void *arg)
{
    (void)arg;
    return __atomic_load_n(&wmpi_eng.orphans, __ATOMIC_ACQUIRE) == 0;
}

/* A peer this rank never exchanged a frame with (TCP connects lazily)
 * needs no closing message, and sending one would open a connection. */
static int talked_with(int peer)
{
    int linked;

    wmpi_lock_engine();
    linked = wmpi_route_linked(peer);
    wmpi_unlock_engine();
    return linked;
}

static int post_goodbyes(wmpi_request **rq)
{
    int n = 0, err = 0;

    for (int p = 0; p < wmpi_eng.size && !err; p++) {
        if (p == wmpi_eng.rank || wmpi_eng.peers[p].lost || !talked_with(p))
            continue;
        err = wmpi_irecv(NULL, 0, &wmpi_dt_byte, p, 0, &wmpi_comm_final, &rq[n]);
        if (!err)
            n++;
        if (!err)
            err = wmpi_isend(NULL, 0, &wmpi_dt_byte, p, 0, &wmpi_comm_final,
                             WMPI_MODE_STANDARD, &rq[n]);
        if (!err)
            n++;
    }
    return err < 0 ? err : n;
}

/* Trade closing messages with every live peer. */
static int say_goodbye(void)
{
    wmpi_request **rq = calloc(2 * (size_t)wmpi_eng.size, sizeof *rq);
    wmpi_status st;
    int n, err;

    if (!rq)
        return WEFT_ENOMEM;
    n = post_goodbyes(rq);
    err = n < 0 ? n : wmpi_wait_requests(rq, n, n);
    for (int i = 0; i < 2 * wmpi_eng.size && rq[i]; i++) {
        if (!wmpi_request_done(rq[i])) {
            wmpi_request_free(rq[i]);
            continue;
        }
        wmpi_request_finish(rq[i], &st);
        if (!err && st.error)
            err = st.error;
    }
    free(rq);
    return err;
}

/* Unmatched messages go; so do receives the user freed (the others are
 * the user's: still pending at MPI_Finalize, they are never completed). */
static void free_queue(wmpi_mq *mq)
{
    wmpi_unexp *u;
    wmpi_request *r, *next;

    while ((u = mq->unexp.head) != NULL) {
        wmpi_list_unlink(&mq->unexp, u);
        wmpi_unexp_free(u);
    }
    for (r = mq->posted.head; r; r = next) {
        next = r->next;
        if (r->freed) {
            wmpi_list_unlink(&mq->posted, r);
            free(r);
        }
    }
    free(mq);
}

static void free_queues(void)
{
    for (uint32_t c = 0; c < wmpi_eng.nmq; c++)
        if (wmpi_eng.mq[c])
            free_queue(wmpi_eng.mq[c]);
    free(wmpi_eng.mq);
    wmpi_eng.mq = NULL;
    wmpi_eng.nmq = 0;
}

int wmpi_finalize(void)
{
    wmpi_waiter w = { .kind = WMPI_WAIT_COND, .cond = no_orphans };
    int err = wmpi_block(&w);

    if (!err) {
        wmpi_lock_engine();
        wmpi_route_finishing();
        wmpi_unlock_engine();
        err = say_goodbye();
    }
    wmpi_io_stop();
    wmpi_coll_shm_fini();
    wmpi_route_destroy();
    wmpi_abort_set_boot(NULL);
    wmpi_boot_finalize(&wmpi_eng.boot);
    free_queues();
    free(wmpi_eng.peers);
    wmpi_eng.peers = NULL;
    wmpi_scratch_drain();
    wmpi_request_spares_drain();
    wmpi_unexp_spares_drain();
    wmpi_placement_fini();
    wmpi_state.finalized = 1;
    if (started_weft && weft_fini() == 0)
        started_weft = 0;
    return err;
}
