/* Point-to-point messages under load from every side at once: each rank
 * runs 4 threads (MPI_THREAD_MULTIPLE, plain pthreads), and every thread
 * streams messages to every thread of the other ranks while receiving
 * theirs. Sizes range from 0 bytes to 4 MiB: most are small, many sit on
 * either side of 16 KiB, 128 KiB and 256 KiB (where a transport may switch
 * from copying through a buffer to a single copy, or must cut a payload
 * into pieces as large as its buffer), a few are several MiB.
 *
 * Streams. The messages from thread t of rank r to thread u of rank q form
 * one stream with its own tag, t * NTHREADS + u: source and tag name the
 * thread pair, so a payload handed to the wrong thread shows. The run is
 * ROUNDS rounds; both ends derive a stream's plan for a round from
 * (r, t, q, u, round) alone: how many messages (1 to 3, under one tag, so
 * MPI's non-overtaking rule fixes their order), each one's size, the
 * sender's call (MPI_Send, MPI_Ssend, MPI_Isend or MPI_Issend) and when the
 * receiver posts its receives: "early" (MPI_Irecv before the thread sends
 * anything) or "late" (after its sends: MPI_Recv, or MPI_Irecv then
 * MPI_Wait). A blocking send only ever goes to an early receiver, so no
 * round can deadlock: the threads of the lowest round have posted the
 * receives that their blocking sends need, and their late receives wait
 * for nonblocking sends already started.
 *
 * Checks: every receive's MPI_Get_count, source and tag are the message's;
 * every byte is the pattern seeded by (sender, thread, receiver thread,
 * message index); the receive buffer's spare bytes past the message stay
 * untouched; and each rank received exactly the messages and bytes the
 * plans give it, which the job's totals confirm (all sent = all received).
 */
#include <pthread.h>

#include "mpi_test_util.h"
#include "shm_util.h"

#define NTHREADS 4
#define ROUNDS 16
#define MAX_PER_STREAM 3
#define KIB ((size_t)1024)
#define MAX_MSG (4 * KIB * KIB)
#define SLACK 64 /* receive buffers are this much larger than the message */
#define CANARY 0xa5

enum { SEND, SSEND, ISEND, ISSEND };

typedef struct {
    size_t len;
    int call;
    uint64_t seed;
} msg_plan;

typedef struct {
    MPI_Request req;
    MPI_Status st;
    unsigned char *buf;
    msg_plan m;
    int peer, tag, is_recv;
} op;

typedef struct {
    long long sent, sent_bytes, recvd, recvd_bytes;
} totals;

static int rank, size;
static pthread_mutex_t totals_lock = PTHREAD_MUTEX_INITIALIZER;
static totals rank_totals;

/* ------------------------------------------------------------ the plan */

static uint64_t stream_key(int r, int t, int q, int u, int round)
{
    return shm_key((uint64_t)r * 64 + (uint64_t)t, (uint64_t)q * 64 + (uint64_t)u,
                   (uint64_t)round, 0x5717);
}

static int stream_count(int r, int t, int q, int u, int round)
{
    return 1 + (int)(stream_key(r, t, q, u, round) % MAX_PER_STREAM);
}

/* Does the receiver post this stream's receives before its sends? */
static int stream_early(int r, int t, int q, int u, int round)
{
    return (stream_key(r, t, q, u, round) >> 16) % 4 != 0;
}

static size_t draw_size(uint64_t *s)
{
    uint64_t p = shm_next(s) % 1000;

    if (p < 60)
        return 0;
    if (p < 550)
        return shm_between(s, 1, 256);
    if (p < 740)
        return shm_between(s, 257, 16 * KIB - 65);
    if (p < 860)
        return shm_between(s, 16 * KIB - 64, 16 * KIB + 64); /* around 16 KiB */
    if (p < 885)
        return shm_between(s, 128 * KIB - 256, 128 * KIB + 256); /* around 128 KiB */
    if (p < 900)
        return shm_between(s, 256 * KIB - 256, 256 * KIB + 256); /* around 256 KiB */
    if (p < 960)
        return shm_between(s, 16 * KIB + 65, 400 * KIB);
    if (p < 990)
        return shm_between(s, 400 * KIB, KIB * KIB);
    return shm_next(s) % 4 == 0 ? MAX_MSG : shm_between(s, KIB * KIB, MAX_MSG);
}

static msg_plan plan(int r, int t, int q, int u, int round, int j)
{
    uint64_t s = shm_key(stream_key(r, t, q, u, round), (uint64_t)j, 0, 1);
    msg_plan m;

    m.len = draw_size(&s);
    m.call = (int)(shm_next(&s) % 4);
    if (!stream_early(r, t, q, u, round))
        m.call = m.call % 2 ? ISEND : ISSEND; /* nothing blocks on a late receiver */
    m.seed = shm_key((uint64_t)r * 64 + (uint64_t)t, (uint64_t)q * 64 + (uint64_t)u,
                     (uint64_t)round * MAX_PER_STREAM + (uint64_t)j, 0xda7a);
    return m;
}

/* ------------------------------------------------------------ one message */

static unsigned char *alloc_buf(size_t n)
{
    unsigned char *b = malloc(n ? n : 1);

    CHECK(b, "no memory for %zu bytes", n);
    return b;
}

static void start_recv(op *o, int q, int u, int t, int round, int j)
{
    o->m = plan(q, u, rank, t, round, j);
    o->peer = q;
    o->tag = u * NTHREADS + t;
    o->is_recv = 1;
    o->buf = alloc_buf(o->m.len + SLACK);
    memset(o->buf + o->m.len, CANARY, SLACK);
    MPI_OK(MPI_Irecv(o->buf, (int)(o->m.len + SLACK), MPI_BYTE, q, o->tag, MPI_COMM_WORLD,
                     &o->req));
}

static void check_recv(op *o, totals *tot)
{
    int n;

    MPI_OK(MPI_Get_count(&o->st, MPI_BYTE, &n));
    CHECK((size_t)n == o->m.len, "from rank %d tag %d: %d bytes, %zu sent", o->peer, o->tag, n,
          o->m.len);
    CHECK(o->st.MPI_SOURCE == o->peer && o->st.MPI_TAG == o->tag,
          "expected source %d tag %d, got %d and %d", o->peer, o->tag, o->st.MPI_SOURCE,
          o->st.MPI_TAG);
    size_t bad = shm_verify(o->buf, o->m.len, o->m.seed);
    CHECK(bad == (size_t)-1, "from rank %d tag %d: %zu bytes, byte %zu differs", o->peer, o->tag,
          o->m.len, bad);
    bad = shm_untouched(o->buf + o->m.len, SLACK, CANARY);
    CHECK(bad == (size_t)-1, "from rank %d tag %d: %zu bytes, byte %zu past the end written",
          o->peer, o->tag, o->m.len, o->m.len + bad);
    tot->recvd++;
    tot->recvd_bytes += (long long)o->m.len;
    free(o->buf);
    o->buf = NULL;
}

/* Send message j of the stream to thread u of rank q; an op to wait for,
 * or NULL if the call was blocking and is done. */
static op *send_one(op *o, int t, int q, int u, int round, int j, totals *tot)
{
    o->m = plan(rank, t, q, u, round, j);
    o->peer = q;
    o->tag = t * NTHREADS + u;
    o->is_recv = 0;
    o->buf = alloc_buf(o->m.len);
    shm_fill(o->buf, o->m.len, o->m.seed);
    tot->sent++;
    tot->sent_bytes += (long long)o->m.len;
    int n = (int)o->m.len;
    switch (o->m.call) {
    case SEND:
        MPI_OK(MPI_Send(o->buf, n, MPI_BYTE, q, o->tag, MPI_COMM_WORLD));
        break;
    case SSEND:
        MPI_OK(MPI_Ssend(o->buf, n, MPI_BYTE, q, o->tag, MPI_COMM_WORLD));
        break;
    case ISEND:
        MPI_OK(MPI_Isend(o->buf, n, MPI_BYTE, q, o->tag, MPI_COMM_WORLD, &o->req));
        return o;
    default:
        MPI_OK(MPI_Issend(o->buf, n, MPI_BYTE, q, o->tag, MPI_COMM_WORLD, &o->req));
        return o;
    }
    free(o->buf);
    o->buf = NULL;
    return NULL;
}

/* ------------------------------------------------------------ one round */

typedef struct {
    int q, u;
} pair;

/* The other ranks' threads, in a random order. */
static int shuffled_pairs(pair *p, uint64_t *rng)
{
    int n = 0;

    for (int q = 0; q < size; q++)
        for (int u = 0; q != rank && u < NTHREADS; u++)
            p[n++] = (pair){ q, u };
    for (int i = n - 1; i > 0; i--) {
        int k = (int)(shm_next(rng) % (uint64_t)(i + 1));
        pair x = p[i];
        p[i] = p[k];
        p[k] = x;
    }
    return n;
}

/* The late streams' receives, after this thread's sends: per stream,
 * MPI_Recv, or MPI_Irecv then MPI_Wait. */
static void late_recvs(int t, int round, const pair *p, int np, uint64_t *rng, totals *tot)
{
    for (int i = 0; i < np; i++) {
        if (stream_early(p[i].q, p[i].u, rank, t, round))
            continue;
        int n = stream_count(p[i].q, p[i].u, rank, t, round), blocking = shm_next(rng) % 2;
        for (int j = 0; j < n; j++) {
            op o;
            if (blocking) {
                o = (op){ .m = plan(p[i].q, p[i].u, rank, t, round, j), .peer = p[i].q,
                          .tag = p[i].u * NTHREADS + t, .is_recv = 1 };
                o.buf = alloc_buf(o.m.len + SLACK);
                memset(o.buf + o.m.len, CANARY, SLACK);
                MPI_OK(MPI_Recv(o.buf, (int)(o.m.len + SLACK), MPI_BYTE, o.peer, o.tag,
                                MPI_COMM_WORLD, &o.st));
            } else {
                start_recv(&o, p[i].q, p[i].u, t, round, j);
                MPI_OK(MPI_Wait(&o.req, &o.st));
            }
            check_recv(&o, tot);
        }
    }
}

/* Complete every op: MPI_Waitall, MPI_Waitany or MPI_Waitsome. */
static void complete(op **ops, int n, uint64_t *rng, totals *tot)
{
    MPI_Request *req = malloc((size_t)(n ? n : 1) * sizeof *req);
    MPI_Status *st = malloc((size_t)(n ? n : 1) * sizeof *st);
    int *idx = malloc((size_t)(n ? n : 1) * sizeof *idx), left = n, k, out;

    CHECK(req && st && idx, "no memory");
    for (int i = 0; i < n; i++)
        req[i] = ops[i]->req;
    switch (shm_next(rng) % 3) {
    case 0:
        MPI_OK(MPI_Waitall(n, req, st));
        for (int i = 0; i < n; i++)
            ops[i]->st = st[i];
        break;
    case 1:
        while (left--) {
            MPI_OK(MPI_Waitany(n, req, &k, &st[0]));
            CHECK(k >= 0 && k < n, "MPI_Waitany returned index %d of %d", k, n);
            ops[k]->st = st[0];
        }
        break;
    default:
        while (left > 0) {
            MPI_OK(MPI_Waitsome(n, req, &out, idx, st));
            CHECK(out >= 1 && out <= left, "MPI_Waitsome completed %d of %d", out, left);
            for (int i = 0; i < out; i++)
                ops[idx[i]]->st = st[i];
            left -= out;
        }
    }
    for (int i = 0; i < n; i++) {
        CHECK(req[i] == MPI_REQUEST_NULL, "request %d still active", i);
        if (ops[i]->is_recv)
            check_recv(ops[i], tot);
        else
            free(ops[i]->buf);
    }
    free(req);
    free(st);
    free(idx);
}

static void run_round(int t, int round, uint64_t *rng, totals *tot)
{
    int most = (size - 1) * NTHREADS * MAX_PER_STREAM, nw = 0;
    op *rx = calloc((size_t)most, sizeof *rx), *tx = calloc((size_t)most, sizeof *tx);
    op **wait = calloc((size_t)most * 2, sizeof *wait);
    pair *p = calloc((size_t)(size * NTHREADS), sizeof *p);
    int nrx = 0, ntx = 0, np;

    CHECK(rx && tx && wait && p, "no memory");
    np = shuffled_pairs(p, rng);
    for (int i = 0; i < np; i++) /* early receives */
        for (int j = 0; stream_early(p[i].q, p[i].u, rank, t, round) &&
                        j < stream_count(p[i].q, p[i].u, rank, t, round);
             j++) {
            start_recv(&rx[nrx], p[i].q, p[i].u, t, round, j);
            wait[nw++] = &rx[nrx++];
        }
    np = shuffled_pairs(p, rng);
    for (int i = 0; i < np; i++) /* sends */
        for (int j = 0; j < stream_count(rank, t, p[i].q, p[i].u, round); j++) {
            op *o = send_one(&tx[ntx], t, p[i].q, p[i].u, round, j, tot);
            if (o) {
                wait[nw++] = o;
                ntx++;
            }
        }
    np = shuffled_pairs(p, rng);
    late_recvs(t, round, p, np, rng, tot);
    complete(wait, nw, rng, tot);
    free(rx);
    free(tx);
    free(wait);
    free(p);
}

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t rng = shm_key((uint64_t)rank, (uint64_t)t, 0x7a11, 0);
    totals tot = { 0 };

    for (int round = 0; round < ROUNDS; round++)
        run_round(t, round, &rng, &tot);
    pthread_mutex_lock(&totals_lock);
    rank_totals.sent += tot.sent;
    rank_totals.sent_bytes += tot.sent_bytes;
    rank_totals.recvd += tot.recvd;
    rank_totals.recvd_bytes += tot.recvd_bytes;
    pthread_mutex_unlock(&totals_lock);
    return NULL;
}

/* ------------------------------------------------------------ the job */

/* What the plans say this rank receives. */
static totals planned_for_me(void)
{
    totals want = { 0 };

    for (int round = 0; round < ROUNDS; round++)
        for (int q = 0; q < size; q++)
            for (int u = 0; q != rank && u < NTHREADS; u++)
                for (int t = 0; t < NTHREADS; t++)
                    for (int j = 0; j < stream_count(q, u, rank, t, round); j++) {
                        want.recvd++;
                        want.recvd_bytes += (long long)plan(q, u, rank, t, round, j).len;
                    }
    return want;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    int provided;
    long long mine[4], all[4];

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&th[i], NULL, thread_main, (void *)(intptr_t)i) == 0,
              "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);

    totals want = planned_for_me();
    CHECK(rank_totals.recvd == want.recvd && rank_totals.recvd_bytes == want.recvd_bytes,
          "received %lld messages, %lld bytes; the plans say %lld, %lld", rank_totals.recvd,
          rank_totals.recvd_bytes, want.recvd, want.recvd_bytes);
    mine[0] = rank_totals.sent;
    mine[1] = rank_totals.sent_bytes;
    mine[2] = rank_totals.recvd;
    mine[3] = rank_totals.recvd_bytes;
    MPI_OK(MPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(all[0] == all[2] && all[1] == all[3],
          "the job sent %lld messages (%lld bytes) and received %lld (%lld bytes)", all[0],
          all[1], all[2], all[3]);
    MPI_Finalize();
    if (rank == 0)
        printf("shm_ring_stress: ok, %lld messages, %lld bytes\n", all[0], all[1]);
    return 0;
}
