/* MPI_Alltoall(v/w) schedules: every message at once for short exchanges,
 * pairwise exchange for long ones.
 *
 * Design. The three forms differ only in where block r lives (rank *
 * count elements; displs[r] elements; displs[r] bytes) and in its type,
 * so one schedule serves them through `side` accessors.
 *  - Short (this rank's blocks total less than 16 MiB, for the v/w forms
 *    too): post every receive, then every send, wait once. One round; the
 *    transport carries the n - 1 messages concurrently. Memory stays
 *    bounded anyway: a message above the eager limit waits in its
 *    sender's buffer until its receive is posted (rendezvous), so the
 *    receiver's unexpected queue holds at most an eager message per peer.
 *  - Long: pairwise exchange, n - 1 rounds; in round i send to rank + i
 *    and receive from rank - i (mod n). One message in flight each way
 *    per rank.
 * The limit was 64 KiB. Measured with bench/osu_like's alltoall, 8 ranks
 * on 2 CPUs (ranks share CPUs, so each pairwise round waits for two ranks
 * to be scheduled at once): 32 KiB blocks 1.5-4.1 ms pairwise against
 * 0.9-1.1 ms at once, 256 KiB 9.8-20 against 5.0-6.1 ms, 1 MiB 23-87
 * against 16-20 ms; Open MPI, which sends at once at these sizes too:
 * 0.86, 4.7 and 16 ms (the same run, a busy host). On 4 ranks the two
 * were within the noise.
 *  - MPI_IN_PLACE: the receive buffer is copied first (as raw bytes over
 *    the span its blocks cover) and the copy is the send buffer, described
 *    exactly as the receive buffer.
 *
 * Ranks choose by their own volume, which may differ between ranks in the
 * v/w forms; both schedules send exactly one message each way per pair,
 * with the same tag, so a rank of one kind matches a rank of the other.
 *
 * Rejected: Bruck's algorithm for short blocks (log2 n rounds but each
 * block travels log2 n / 2 times and needs local rotations; with at most
 * 8 ranks per node one round of concurrent messages is as fast).
 *
 * Invariants: block r of the receive buffer is written only by rank r's
 * message (or this rank's local copy).
 * Locking: none (messages through coll_util.c).
 */
#include <stdlib.h>
#include <string.h>

#include "engine/coll/coll_impl.h"
#include "engine/objects/datatype.h"

#define ALLTOALL_LONG ((int64_t)16 * 1024 * 1024)

enum form { FORM_PLAIN, FORM_V, FORM_W };

/* One side (send or receive) of an exchange. */
typedef struct side {
    const char *buf;
    int count;              /* FORM_PLAIN */
    wmpi_datatype *dt;      /* FORM_PLAIN, FORM_V */
    const int *counts, *displs;
    wmpi_datatype *const *dts; /* FORM_W */
    int form;
} side;

static int64_t cnt(const side *s, int r)
{
    return s->form == FORM_PLAIN ? s->count : s->counts[r];
}

/* Where block r starts (an empty block: the buffer itself, which may be
 * NULL: no arithmetic on it). */
static const char *blk(const side *s, int r)
{
    if (cnt(s, r) == 0)
        return s->buf;
    if (s->form == FORM_PLAIN)
        return wmpi_coll_at(s->buf, (int64_t)r * s->count, s->dt);
    if (s->form == FORM_V)
        return wmpi_coll_at(s->buf, s->displs[r], s->dt);
    return s->buf + s->displs[r];
}

static wmpi_datatype *typ(const side *s, int r)
{
    return s->form == FORM_W ? s->dts[r] : s->dt;
}

static int64_t total_bytes(const side *s, int n)
{
    int64_t sum = 0, b;

    for (int r = 0; r < n; r++) {
        b = wmpi_datatype_bytes(typ(s, r), cnt(s, r));
        if (b < 0)
            return b;
        sum += b;
    }
    return sum;
}

static int all_at_once(const wmpi_coll_call *k, const side *s, const side *d)
{
    wmpi_coll_reqs q;
    int n = k->size;

    if (wmpi_coll_reqs_init(&q, 2 * n) != 0)
        return WEFT_ENOMEM;
    for (int i = 1; i < n; i++) {
        int src = (k->rank - i + n) % n;
        wmpi_coll_irecv(&q, k, 0, (char *)blk(d, src), cnt(d, src), typ(d, src), src);
    }
    for (int i = 1; i < n; i++) {
        int dst = (k->rank + i) % n;
        wmpi_coll_isend(&q, k, 0, blk(s, dst), cnt(s, dst), typ(s, dst), dst);
    }
    return wmpi_coll_reqs_wait(&q);
}

static int pairwise(const wmpi_coll_call *k, const side *s, const side *d)
{
    int n = k->size, err = 0;

    for (int i = 1; i < n && !err; i++) {
        int dst = (k->rank + i) % n, src = (k->rank - i + n) % n;
        err = wmpi_coll_sendrecv(k, 0, blk(s, dst), cnt(s, dst), typ(s, dst), dst,
                                 (char *)blk(d, src), cnt(d, src), typ(d, src), src);
    }
    return err;
}

/* The byte span [*lo, *hi) the receive blocks cover, relative to buf. */
static void span(const side *d, int n, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int r = 0; r < n; r++) {
        int64_t c = cnt(d, r), at = blk(d, r) - d->buf, l, h;
        if (c == 0 || wmpi_datatype_span(typ(d, r), c, &l, &h) != 0 || l == h)
            continue;
        if (at + l < *lo)
            *lo = at + l;
        if (at + h > *hi)
            *hi = at + h;
    }
    if (*lo > *hi)
        *lo = *hi = 0;
}

static int exchange(const wmpi_coll_call *k, const side *s, const side *d)
{
    int64_t sb = total_bytes(s, k->size), err;

    if (sb < 0)
        return (int)sb;
    err = wmpi_coll_copy(blk(s, k->rank), cnt(s, k->rank), typ(s, k->rank),
                         (char *)blk(d, k->rank), cnt(d, k->rank), typ(d, k->rank));
    if (err || k->size == 1)
        return (int)err;
    if (sb < wmpi_coll_limit(ALLTOALL_LONG))
        return all_at_once(k, s, d);
    return pairwise(k, s, d);
}

static int exchange_in_place(const wmpi_coll_call *k, const side *d)
{
    int64_t lo, hi;
    side s = *d;
    char *copy;
    int err;

    span(d, k->size, &lo, &hi);
    copy = malloc(hi > lo ? (size_t)(hi - lo) : 1);
    if (!copy)
        return WEFT_ENOMEM;
    memcpy(copy, d->buf + lo, (size_t)(hi - lo));
    s.buf = copy - lo;
    err = exchange(k, &s, d);
    free(copy);
    return err;
}

static int run(const wmpi_coll_call *k, const wmpi_coll_args *a, int form)
{
    side s = { a->sbuf, a->scount, a->sdt, a->scounts, a->sdispls, a->sdts, form };
    side d = { a->rbuf, a->rcount, a->rdt, a->rcounts, a->rdispls, a->rdts, form };

    return a->sbuf == WMPI_IN_PLACE ? exchange_in_place(k, &d) : exchange(k, &s, &d);
}

int wmpi_coll_alltoall_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return run(k, a, FORM_PLAIN);
}

int wmpi_coll_alltoallv_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return run(k, a, FORM_V);
}

int wmpi_coll_alltoallw_run(const wmpi_coll_call *k, const wmpi_coll_args *a)
{
    return run(k, a, FORM_W);
}
