/* The shared-memory transport: frames between the ranks of one host
 * through a ring per ordered pair (segments and wire-up: shm_setup.c).
 *
 * Design. A frame becomes a record in the receiver's ring from us: one
 * cache line (its kind, its header, and for CMA the payload's address),
 * followed for an inline frame by the payload, copied into the ring as it
 * has room while the receiver copies out what is there: two copies, on
 * two CPUs at once for a large payload. A payload sent by CMA, when the
 * receiver can read our memory, stays where it is: the receiver copies it
 * once with process_vm_readv straight into its destination, and moves the
 * ring's head past the record only once the copy is done, which is how we
 * learn the frame is finished. Which payloads go by CMA: by default
 * (WEFT_MPI_CMA unset or "auto"), one of at least a ring's size that
 * joins a stream, i.e. frames wait behind it or CMA reads are
 * outstanding. A lone message arrives sooner through the rings, whose two
 * copies overlap on two CPUs; a stream keeps both CPUs busy anyway (both
 * ways at once in a bi-directional exchange), and there one copy instead
 * of two moves more (figures: docs/performance-notes.md).
 * WEFT_MPI_CMA=<bytes> sends every payload that size or larger by CMA; 0,
 * none. Records and payloads are written as the ring has room; what
 * does not fit stays queued (sending never waits for receiving: two ranks
 * streaming large messages at each other cannot deadlock). Positions are
 * byte counts that only grow; the producer publishes `tail` and the
 * consumer `head`, each with a plain seq_cst store, so no atomic
 * read-modify-write is on the path of a message (Open MPI's fast boxes
 * and MPICH's POSIX eager queues make the same choice). A record's stamp
 * (shm.h) announces it before `tail` does, and a payload of up to
 * SHM_SMALL bytes rides in its record: a small message is one cache line
 * from sender to receiver.
 *
 * Waiting without a system call. A receiver finds its messages by
 * polling the rings, which the I/O server does while a thread waits and a
 * worker spins. Before a thread sleeps on our pollfd, sleeping(1) sets
 * `asleep` in our segment, then looks at the rings once more; a sender
 * that published something then reads `asleep` and, if it is set, rings
 * our doorbell (an eventfd in the pollfd); collective slots announce
 * their stores the same way (shm_slots.c). All four accesses are seq_cst
 * (a Dekker pair; no fences, which ThreadSanitizer cannot follow). One
 * of the two always sees the other, so no message is left unnoticed
 * beside a sleeper, and while nobody sleeps a message costs no system
 * call. The same handshake runs the other way for a producer that waits
 * for room or for a CMA copy (`waiting`): the consumer rings its doorbell
 * after moving `head`. While bytes flow through the rings (a large
 * message in passage), sleeping() turns the sleep into a check: a worker
 * that stopped spinning mid-message keeps copying instead of waiting for
 * a doorbell per ring-full.
 *
 * A peer that dies is noticed through its pidfd (in the pollfd): what it
 * wrote before is still delivered, then its frames fail and the engine
 * is told (lost), like a broken TCP connection.
 *
 * Invariants: a frame is in at most one of a peer's send queue or its CMA
 * list; records are written whole before `tail` covers them.
 * Locking: everything but sleeping() runs under the engine lock;
 * sleeping() reads positions and flags (atomics) and alone keeps
 * moved_told (its calls are serialised).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "transport/shm.h"

#define REC sizeof(shm_rec)
#define RING_BYTES ((size_t)256 * 1024) /* per ordered pair of ranks */
#define REAP_PASSES 4096                /* progress passes between looks for dead peers */
/* A CMA payload is read in calls of at least this many bytes, whatever
 * the pass's budget: each call pins the pages it copies, and 4 MiB
 * messages moved 15 GB/s in one call against 11-13 in four. */
#define CMA_READ ((size_t)4 * 1024 * 1024)

/* ------------------------------------------------------------ ring bytes */

/* Records start on a cache line: the producer skips to the next one
 * before it writes a record, the consumer before it reads one. */
static uint64_t align_rec(uint64_t pos)
{
    return (pos + REC - 1) & ~(uint64_t)(REC - 1);
}

static void copy_in(struct wmpi_transport *t, shm_ring *r, uint64_t pos, const void *src,
                    size_t n)
{
    size_t at = (size_t)(pos & (t->ring_bytes - 1)), first = t->ring_bytes - at;

    if (n == 0) /* src may be NULL */
        return;
    if (n <= first) {
        memcpy(r->data + at, src, n);
        return;
    }
    memcpy(r->data + at, src, first);
    memcpy(r->data, (const char *)src + first, n - first);
}

static void copy_out(struct wmpi_transport *t, const shm_ring *r, uint64_t pos, void *dst,
                     size_t n)
{
    size_t at = (size_t)(pos & (t->ring_bytes - 1)), first = t->ring_bytes - at;

    if (n == 0) /* dst may be NULL */
        return;
    if (n <= first) {
        memcpy(dst, r->data + at, n);
        return;
    }
    memcpy(dst, r->data + at, first);
    memcpy((char *)dst + first, r->data, n - first);
}

/* After publishing (a seq_cst store of tail or head): wake the other side
 * if it sleeps and wants to know (the head comment's handshake). `asleep`
 * first: it lives on a line that changes only when the peer sleeps or
 * wakes, while `waiting` shares `tail`'s line, and a consumer that read
 * that line after every frame would pull it from the producer's CPU each
 * time. Either order keeps the handshake: the sleeper stores `waiting`
 * before `asleep`. */
static void wake_if_asleep(shm_peer *p, const int *wants)
{
    if (__atomic_load_n(&p->peer_ctl->asleep, __ATOMIC_SEQ_CST) &&
        (!wants || __atomic_load_n(wants, __ATOMIC_SEQ_CST)))
        wmpi_shm_ring_bell(p->bell);
}

/* Bytes went through a ring: a transfer is flowing (see shm_sleeping). */
static void note_moved(struct wmpi_transport *t, uint64_t n)
{
    __atomic_store_n(&t->moved, __atomic_load_n(&t->moved, __ATOMIC_RELAXED) + n,
                     __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ loss */

static wmpi_frame *pop(wmpi_frame **head, wmpi_frame **tail)
{
    wmpi_frame *f = *head;

    *head = f->next;
    if (!*head)
        *tail = NULL;
    f->next = NULL;
    f->queued = 0;
    return f;
}

static void push(wmpi_frame **head, wmpi_frame **tail, wmpi_frame *f)
{
    f->next = NULL;
    if (*tail)
        (*tail)->next = f;
    else
        *head = f;
    *tail = f;
}

/* The peer is gone: no more frames to or from it. */
static void forget(struct wmpi_transport *t, shm_peer *p)
{
    __atomic_store_n(&p->dead, 1, __ATOMIC_RELAXED); /* has_work reads it unlocked */
    if (p->pidfd >= 0)
        epoll_ctl(t->epfd, EPOLL_CTL_DEL, p->pidfd, NULL);
}

/* The peer is gone: finish everything in flight with `err`. */
static void lose(struct wmpi_transport *t, shm_peer *p, int err)
{
    if (p->dead)
        return;
    forget(t, p);
    if (p->in_payload) {
        p->in_payload = 0;
        t->up->payload(p->rank, &p->rrec.hdr, &p->rx, err);
    }
    while (p->sq_head) {
        wmpi_frame *f = pop(&p->sq_head, &p->sq_tail);
        f->done(f, err);
    }
    while (p->cma_head) {
        wmpi_frame *f = pop(&p->cma_head, &p->cma_tail);
        f->done(f, err);
    }
    t->up->lost(p->rank, err);
}

/* ---------------------------------------------------------------- sending */

/* Free bytes in p's ring, reading the consumer's head again only when the
 * last value read leaves less than `need`. */
static size_t room(struct wmpi_transport *t, shm_peer *p, uint64_t tail, size_t need)
{
    uint64_t head = __atomic_load_n(&p->head_seen, __ATOMIC_RELAXED);

    if (t->ring_bytes - (size_t)(tail - head) < need) {
        head = __atomic_load_n(&p->out->head, __ATOMIC_ACQUIRE);
        __atomic_store_n(&p->head_seen, head, __ATOMIC_RELAXED);
    }
    return t->ring_bytes - (size_t)(tail - head);
}

/* 1 if f's payload goes by CMA (the head comment says which do). */
static int by_cma(struct wmpi_transport *t, shm_peer *p, const wmpi_frame *f)
{
    int streaming = f->next || p->cma_head;

    if (f->hdr.plen < t->cma_min && (f->hdr.plen < t->cma_stream || !streaming))
        return 0;
    return __atomic_load_n(&p->out->cma_ok, __ATOMIC_ACQUIRE);
}

/* The stamp word of the record line at ring position `at`. */
static uint64_t *stamp_word(struct wmpi_transport *t, shm_ring *r, uint64_t at)
{
    return (uint64_t *)(void *)(r->data + (at & (t->ring_bytes - 1)));
}

/* How f goes: whole (its payload in its record, or following it and
 * written before the record's stamp) when it is small enough and the ring
 * has room for all of it now; by CMA if allowed; else streamed. */
static int frame_kind(struct wmpi_transport *t, shm_peer *p, const wmpi_frame *f, uint64_t tail)
{
    if (by_cma(t, p, f))
        return SHM_CMA;
    if (f->hdr.plen <= SHM_SMALL)
        return SHM_WHOLE;
    uint64_t at = align_rec(tail), end = at + REC + f->hdr.plen;
    size_t need = (size_t)(align_rec(end) - tail) + sizeof(uint64_t);
    return f->hdr.plen <= SHM_WHOLE_MAX && room(t, p, tail, need) >= need ? SHM_WHOLE : SHM_INLINE;
}

/* Clear the stamp word at `pos`, unless the last record did (shm.h). */
static void clear_stamp(struct wmpi_transport *t, shm_peer *p, uint64_t pos)
{
    if (p->cleared != pos)
        __atomic_store_n(stamp_word(t, p->out, pos), 0, __ATOMIC_RELAXED);
}

/* Write f's record, its stamp last; 0 if the ring has no room for it. A
 * record that completes its frame (SHM_WHOLE, SHM_CMA) first clears the
 * stamp word where the next record goes, so that what an earlier lap left
 * there cannot pass for that record's stamp (shm.h); after its own stamp
 * it clears the line after that too, if it has room, which takes that
 * store off the next small message's path. */
static int put_record(struct wmpi_transport *t, shm_peer *p, wmpi_frame *f, uint64_t *tail)
{
    shm_rec rec = { .stamp = 0, .hdr = f->hdr };
    int kind = frame_kind(t, p, f, *tail);
    int inside = kind == SHM_WHOLE && f->hdr.plen <= SHM_SMALL;
    size_t after = kind == SHM_WHOLE && !inside ? (size_t)f->hdr.plen : 0;

    uint64_t at = align_rec(*tail), next = align_rec(at + REC + after);
    size_t need = (size_t)(next - *tail) + (kind != SHM_INLINE ? sizeof rec.stamp : 0);

    if (room(t, p, *tail, need) < need)
        return 0;
    if (inside && f->hdr.plen)
        memcpy(rec.u.small, f->payload, (size_t)f->hdr.plen);
    else
        rec.u.addr = (uint64_t)(uintptr_t)f->payload;
    copy_in(t, p->out, at + REC, f->payload, after);
    copy_in(t, p->out, at + sizeof rec.stamp, (const char *)&rec + sizeof rec.stamp,
            REC - sizeof rec.stamp);
    if (kind != SHM_INLINE)
        clear_stamp(t, p, next);
    __atomic_store_n(stamp_word(t, p->out, at), at | (uint64_t)kind, __ATOMIC_RELEASE);
    p->cleared = 1; /* no position */
    if (kind != SHM_INLINE && room(t, p, *tail, need + REC) >= need + REC) {
        __atomic_store_n(stamp_word(t, p->out, next + REC), 0, __ATOMIC_RELAXED);
        p->cleared = next + REC;
    }
    *tail = at + REC + after;
    f->sent = REC + (kind == SHM_WHOLE ? (size_t)f->hdr.plen : 0);
    return kind;
}

/* Write as much of f's inline payload as fits; 1 when all of it is in. */
static int put_payload(struct wmpi_transport *t, shm_peer *p, wmpi_frame *f, uint64_t *tail)
{
    size_t off = f->sent - REC, left = (size_t)f->hdr.plen - off;
    size_t n = room(t, p, *tail, left);

    n = n < left ? n : left;
    copy_in(t, p->out, *tail, (const char *)f->payload + off, n);
    *tail += n;
    f->sent += n;
    return n == left;
}

/* Write the queue into the ring while it has room. A CMA frame is done
 * when the consumer has read it (reap_cma); an inline one, once copied. */
static void tx(struct wmpi_transport *t, shm_peer *p)
{
    uint64_t tail = __atomic_load_n(&p->out->tail, __ATOMIC_RELAXED), start = tail;

    p->in_tx = 1;
    while (p->sq_head) {
        wmpi_frame *f = p->sq_head;
        int kind = SHM_INLINE;

        if (f->sent == 0 && !(kind = put_record(t, p, f, &tail)))
            break;
        if (kind == SHM_CMA) {
            pop(&p->sq_head, &p->sq_tail);
            f->sent = (size_t)tail; /* done once head passes its record */
            f->queued = 1;
            push(&p->cma_head, &p->cma_tail, f);
            continue;
        }
        if (!put_payload(t, p, f, &tail))
            break;
        pop(&p->sq_head, &p->sq_tail);
        f->done(f, 0);
    }
    if (tail != start)
        __atomic_store_n(&p->out->tail, tail, __ATOMIC_SEQ_CST);
    p->in_tx = 0;
    int wants = p->sq_head || p->cma_head;
    if (__atomic_load_n(&p->out->waiting, __ATOMIC_RELAXED) != wants)
        __atomic_store_n(&p->out->waiting, wants, __ATOMIC_SEQ_CST);
    if (tail != start) {
        note_moved(t, tail - start);
        wake_if_asleep(p, NULL);
    }
}

/* The consumer has read the CMA payloads whose records head passed. */
static void reap_cma(shm_peer *p)
{
    uint64_t head = __atomic_load_n(&p->out->head, __ATOMIC_ACQUIRE);

    __atomic_store_n(&p->head_seen, head, __ATOMIC_RELAXED);
    while (p->cma_head && (uint64_t)p->cma_head->sent <= head) {
        wmpi_frame *f = pop(&p->cma_head, &p->cma_tail);
        f->done(f, 0);
    }
}

static int shm_send(struct wmpi_transport *t, int peer, wmpi_frame *f)
{
    shm_peer *p = &t->peers[peer];

    if (p->dead) {
        f->done(f, -ECONNRESET);
        return -ECONNRESET;
    }
    f->sent = 0;
    f->queued = 1;
    push(&p->sq_head, &p->sq_tail, f);
    if (!p->in_tx && p->sq_head == f)
        tx(t, p);
    return 0;
}

/* -------------------------------------------------------------- receiving */

/* `tail`, read at most once per rx() pass and only when a record's stamp
 * does not say enough (record_at) or payload bytes are due: a consumer
 * that waits for a small message reads only the line it arrives on. */
#define TAIL_UNREAD UINT64_MAX
static uint64_t tail_seen(shm_peer *p, uint64_t *tail)
{
    if (*tail == TAIL_UNREAD)
        *tail = __atomic_load_n(&p->in->tail, __ATOMIC_ACQUIRE);
    return *tail;
}

/* The kind of the record at `at`, or 0 if none is there yet. After a
 * streamed frame, `tail` says: nothing cleared the stamp word, which may
 * hold an earlier lap's payload bytes. After a record that completed its
 * frame, the stamp says (shm.h), and a message that fits in a record is
 * one cache line from sender to receiver. */
static int record_at(struct wmpi_transport *t, shm_peer *p, uint64_t at, uint64_t *tail)
{
    if (p->after_payload && tail_seen(p, tail) < at + REC)
        return 0;
    uint64_t s = __atomic_load_n(stamp_word(t, p->in, at), __ATOMIC_ACQUIRE);

    return (s & ~(uint64_t)(REC - 1)) == at ? (int)(s & (REC - 1)) : 0;
}

static void take_header(struct wmpi_transport *t, shm_peer *p, uint64_t *head, int kind)
{
    copy_out(t, p->in, *head, &p->rrec, REC);
    if (kind != SHM_CMA)
        *head += REC; /* a CMA record stays until its payload is read */
    p->rkind = kind;
    p->after_payload = kind == SHM_INLINE;
    p->rgot = 0;
    p->in_payload = 1;
    if (!p->cma_probed && p->rrec.hdr.plen >= t->cma_stream)
        wmpi_shm_cma_probe(p); /* the peer may stream to us: let it by CMA */
    t->up->header(p->rank, &p->rrec.hdr, &p->rx);
    if (p->rx.keep > p->rrec.hdr.plen)
        p->rx.keep = (size_t)p->rrec.hdr.plen;
    if (kind == SHM_WHOLE && p->rrec.hdr.plen <= SHM_SMALL) {
        if (p->rx.keep)
            memcpy(p->rx.buf, p->rrec.u.small, p->rx.keep);
        p->rgot = p->rrec.hdr.plen;
    }
}

/* Inline payload bytes that arrived, up to `budget`; how many were taken. */
static size_t take_inline(struct wmpi_transport *t, shm_peer *p, uint64_t *head,
                          uint64_t *tail, size_t budget)
{
    uint64_t need = p->rrec.hdr.plen - p->rgot;
    uint64_t end = p->rkind == SHM_WHOLE ? *head + need : tail_seen(p, tail);
    size_t take = end > *head ? (size_t)(end - *head) : 0;

    take = take < need ? take : (size_t)need;
    take = take < budget ? take : budget;
    if (p->rgot < p->rx.keep) {
        size_t store = p->rx.keep - p->rgot < take ? p->rx.keep - p->rgot : take;
        copy_out(t, p->in, *head, (char *)p->rx.buf + p->rgot, store);
    }
    *head += take;
    p->rgot += take;
    return take;
}

/* Read up to `budget` bytes of a CMA payload straight from the sender's
 * buffer; bytes past what the engine keeps are never read. -errno on a
 * failed read. */
static ssize_t take_cma(shm_peer *p, uint64_t *head, size_t budget)
{
    if (p->rgot >= p->rx.keep) {
        size_t skipped = (size_t)(p->rrec.hdr.plen - p->rgot);
        p->rgot = p->rrec.hdr.plen;
        *head += REC;
        return (ssize_t)skipped;
    }
    size_t most = budget > CMA_READ ? budget : CMA_READ;
    size_t n = p->rx.keep - p->rgot < most ? p->rx.keep - p->rgot : most;
    struct iovec l = { (char *)p->rx.buf + p->rgot, n };
    struct iovec r = { (void *)(uintptr_t)(p->rrec.u.addr + p->rgot), n };
    ssize_t got = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
    if (got <= 0)
        return got < 0 ? -errno : -EFAULT;
    p->rgot += (uint64_t)got;
    if (p->rgot >= p->rx.keep) {
        p->rgot = p->rrec.hdr.plen;
        *head += REC;
    }
    return got;
}

/* A single copy failed: the peer died, or it turned its memory away
 * after MPI_Init (PR_SET_DUMPABLE, a setuid exec), which the rings cannot
 * mend: its payload exists nowhere else. */
static void cma_failed(struct wmpi_transport *t, shm_peer *p, int err)
{
    if (err == -EPERM)
        fprintf(stderr,
                "weft-mpi: rank %d: rank %d no longer lets this rank read its memory, which "
                "single copies need; WEFT_MPI_CMA=0 copies every payload through shared "
                "memory\n",
                t->rank, p->rank);
    lose(t, p, err);
}

static void rx(struct wmpi_transport *t, shm_peer *p, size_t budget)
{
    uint64_t head = __atomic_load_n(&p->in->head, __ATOMIC_RELAXED), start = head;
    uint64_t tail = TAIL_UNREAD;

    while (!p->dead && budget) {
        if (!p->in_payload) {
            uint64_t at = align_rec(head);
            int kind = record_at(t, p, at, &tail);
            if (!kind)
                break;
            head = at;
            take_header(t, p, &head, kind);
        }
        if (p->rkind == SHM_CMA && p->rgot < p->rrec.hdr.plen) {
            ssize_t n = take_cma(p, &head, budget);
            if (n < 0) {
                cma_failed(t, p, (int)n);
                return;
            }
            budget -= (size_t)n < budget ? (size_t)n : budget;
        } else if (p->rgot < p->rrec.hdr.plen) {
            size_t n = take_inline(t, p, &head, &tail, budget);
            if (n == 0)
                break;
            budget -= n;
        }
        if (p->rgot < p->rrec.hdr.plen)
            break;
        p->in_payload = 0;
        t->up->payload(p->rank, &p->rrec.hdr, &p->rx, 0);
    }
    if (head == start)
        return;
    note_moved(t, head - start);
    __atomic_store_n(&p->in->head, head, __ATOMIC_SEQ_CST);
    wake_if_asleep(p, &p->in->waiting);
}

/* ---------------------------------------------------------------- progress */

/* 1 if frames went, or are going, between us and the peer: a record
 * either way, or one queued. Never blocks. */
static int shm_linked(struct wmpi_transport *t, int peer)
{
    shm_peer *p = &t->peers[peer];

    return p->on && (p->sq_head || __atomic_load_n(&p->out->tail, __ATOMIC_RELAXED) ||
                     __atomic_load_n(&p->in->tail, __ATOMIC_ACQUIRE) ||
                     __atomic_load_n(&p->in->head, __ATOMIC_RELAXED));
}

/* A peer that began MPI_Finalize without ever trading a frame with us
 * (MPI_Finalize trades closing messages only with linked peers) leaves
 * nothing for us: its exit is no failure. */
static int left_quietly(struct wmpi_transport *t, shm_peer *p)
{
    return __atomic_load_n(&p->peer_ctl->finalized, __ATOMIC_ACQUIRE) &&
           !shm_linked(t, p->rank);
}

/* Peers whose pidfd fired have exited: deliver what they wrote, then
 * lose them (or forget those that left quietly). sleeping() looks (it
 * makes a system call anyway) and raises `exited`; a process that never
 * sleeps looks every REAP_PASSES passes. */
static void reap_dead(struct wmpi_transport *t)
{
    struct epoll_event ev[16];

    if (!__atomic_exchange_n(&t->exited, 0, __ATOMIC_ACQUIRE) && ++t->passes % REAP_PASSES)
        return;
    int n = epoll_wait(t->epfd, ev, 16, 0);
    for (int i = 0; i < n; i++) {
        shm_peer *p = ev[i].data.ptr;
        if (!p || p->dead)
            continue;
        rx(t, p, SIZE_MAX);
        if (left_quietly(t, p))
            forget(t, p);
        else
            lose(t, p, -ECONNRESET);
    }
}

static void shm_progress(struct wmpi_transport *t, size_t budget)
{
    for (int i = 0; i < t->nlocal; i++) {
        shm_peer *p = &t->peers[t->local[i]];

        if (!p->on || p->dead)
            continue;
        rx(t, p, budget);
        if (p->cma_head)
            reap_cma(p);
        if (p->sq_head && !p->in_tx && !p->dead)
            tx(t, p);
    }
    if (t->epfd >= 0)
        reap_dead(t);
}

/* Work for progress: bytes in an inbound ring, or a consumer that moved
 * the head of a ring we wait on; dead peers excepted. */
static int has_work(struct wmpi_transport *t)
{
    for (int i = 0; i < t->nlocal; i++) {
        shm_peer *p = &t->peers[t->local[i]];

        if (!p->on || __atomic_load_n(&p->dead, __ATOMIC_RELAXED))
            continue; /* what a dead peer left is no work */
        if (__atomic_load_n(&p->in->tail, __ATOMIC_SEQ_CST) !=
            __atomic_load_n(&p->in->head, __ATOMIC_RELAXED))
            return 1;
        if (__atomic_load_n(&p->out->waiting, __ATOMIC_RELAXED) &&
            __atomic_load_n(&p->out->head, __ATOMIC_SEQ_CST) !=
                __atomic_load_n(&p->head_seen, __ATOMIC_RELAXED))
            return 1;
    }
    return 0;
}

static int shm_sleeping(struct wmpi_transport *t, int asleep)
{
    uint64_t v;

    if (!t->ctl)
        return 0;
    if (!asleep) {
        __atomic_store_n(&t->ctl->asleep, 0, __ATOMIC_RELAXED);
        return 0;
    }
    struct epoll_event ev[16];
    int n = epoll_wait(t->epfd, ev, 16, 0);
    for (int i = 0; i < n; i++)
        if (!ev[i].data.ptr && read(t->bell, &v, sizeof v) < 0) {
            /* EAGAIN: another thread drained it */
        } else if (ev[i].data.ptr) {
            __atomic_store_n(&t->exited, 1, __ATOMIC_RELEASE);
        }
    __atomic_store_n(&t->ctl->asleep, 1, __ATOMIC_SEQ_CST);
    uint64_t moved = __atomic_load_n(&t->moved, __ATOMIC_RELAXED);
    int flowing = moved != t->moved_told;
    t->moved_told = moved;
    uint64_t heard = wmpi_shm_slots_heard(t);
    int announced = heard != t->slots_told;
    t->slots_told = heard;
    return flowing || announced || __atomic_load_n(&t->exited, __ATOMIC_RELAXED) ||
           has_work(t);
}

static int shm_pollfd(struct wmpi_transport *t)
{
    return t->epfd;
}

static void shm_finishing(struct wmpi_transport *t)
{
    if (t->ctl)
        __atomic_store_n(&t->ctl->finalized, 1, __ATOMIC_RELEASE);
}

static int shm_reaches(struct wmpi_transport *t, int peer)
{
    return peer >= 0 && peer < t->size && t->peers[peer].on;
}

/* ------------------------------------------------------------- life cycle */

static void shm_destroy(struct wmpi_transport *t)
{
    wmpi_shm_teardown(t);
    free(t->peers);
    free(t);
}

/* WEFT_MPI_CMA: unset, empty or "auto": streams of payloads of a ring's
 * size or more by CMA (*stream = that size); "0": never; <bytes>: every
 * payload that size or larger (*forced). SIZE_MAX means "not so". */
static void cma_policy(size_t *forced, size_t *stream)
{
    const char *v = getenv("WEFT_MPI_CMA");
    char *end;

    *forced = *stream = SIZE_MAX;
    if (!v || !*v || strcmp(v, "auto") == 0) {
        *stream = RING_BYTES;
        return;
    }
    unsigned long long n = strtoull(v, &end, 10);
    if (*end || *v == '-') {
        fprintf(stderr,
                "weft-mpi: ignoring malformed WEFT_MPI_CMA=%s (auto, 0 or a size in bytes)\n", v);
        *stream = RING_BYTES;
        return;
    }
    if (n)
        *forced = n < REC ? REC : (size_t)n;
}

static int shm_create(struct wmpi_transport **out, wmpi_boot *b, const wmpi_upcalls *up,
                      const uint8_t *want)
{
    struct wmpi_transport *t = calloc(1, sizeof *t);
    int err;

    *out = NULL;
    if (!t)
        return WEFT_ENOMEM;
    t->rank = b->rank;
    t->size = b->size;
    t->up = up;
    t->boot = b;
    t->ring_bytes = RING_BYTES;
    cma_policy(&t->cma_min, &t->cma_stream);
    t->memfd = t->bell = t->epfd = -1;
    t->peers = calloc((size_t)t->size, sizeof *t->peers);
    if (!t->peers) {
        free(t);
        return WEFT_ENOMEM;
    }
    for (int r = 0; r < t->size; r++) {
        t->peers[r].rank = r;
        t->peers[r].bell = t->peers[r].pidfd = -1;
    }
    err = wmpi_shm_setup(t, want);
    if (err < 0) {
        shm_destroy(t);
        return err;
    }
    *out = t;
    return 0;
}

const struct wmpi_transport_ops wmpi_shm_ops = {
    .name = "shm",
    .create = shm_create,
    .reaches = shm_reaches,
    .linked = shm_linked,
    .finishing = shm_finishing,
    .send = shm_send,
    .progress = shm_progress,
    .pollfd = shm_pollfd,
    .sleeping = shm_sleeping,
    .where = NULL,
    .destroy = shm_destroy,
};
