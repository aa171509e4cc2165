/* Connections come when ranks talk, and frames survive the race of two
 * ranks opening one at the same instant.
 *
 *  1. Right after MPI_Init a rank holds no connection to another rank.
 *  2. Ring: each rank trades ROUNDS messages with its two neighbours only
 *     (both directions at once, eager and rendezvous sizes, order
 *     checked); it then holds exactly one connection per neighbour.
 *     A token passed twice around the ring (over those connections only)
 *     tells every rank that all have counted.
 *  3. All pairs, a round-robin tournament: in each round every rank meets
 *     one partner it never talked to, BURST messages each way in order.
 *     Round k % 3 says who sends first: both at once (simultaneous
 *     connects, the tie-break), only the lower rank, or only the higher
 *     one while the lower one is busy outside MPI for a moment.
 *  4. Every rank then holds exactly size - 1 connections: one per pair,
 *     none left over from a tie-break.
 * The counts are asserted under Weft over TCP (WEFT_MPI_TRANSPORT=tcp),
 * where a connection is an established TCP socket to something other
 * than mpirun's control server (WEFT_MPI_CONTROL); elsewhere (shared
 * memory, another MPI) only the messages are checked.
 */
#define _GNU_SOURCE /* strdup, strtok_r, nanosleep; the Open MPI build passes -std=c11 too */
#include <time.h>
#include <unistd.h>

#include "mpi_test_util.h"
#include "tcp_peers.h"

#define ROUNDS 50
#define BURST 40
#define LARGE (48 * 1024) /* ints: 192 KiB, above the default eager limit */
#define TAG_RING 1
#define TAG_TOKEN 2
#define TAG_PAIR 3

static int rank, size, counting;

/* ----------------------------------------------------------- counting */

static void expect_connections(int want, const char *when)
{
    int have;

    if (!counting)
        return;
    have = tcp_peer_connections();
    CHECK(have == want, "%s: %d connections to other ranks, expected %d", when, have, want);
}

/* ------------------------------------------------------------ messages */

/* Message i from `from` to `to`: every 7th one large. */
static int count_of(int i)
{
    return i % 7 == 3 ? LARGE : 2;
}

static void fill(int *buf, int n, int from, int to, int i)
{
    for (int k = 0; k < n; k++)
        buf[k] = k == 0 ? i : (from * 7919 + to * 104729 + i * 31 + k);
}

static void check_msg(const int *buf, int n, int from, int i)
{
    CHECK(buf[0] == i, "from rank %d: message %d came as number %d", from, i, buf[0]);
    for (int k = 1; k < n; k++)
        CHECK(buf[k] == from * 7919 + rank * 104729 + i * 31 + k,
              "from rank %d: message %d damaged at %d", from, i, k);
}

/* Post n messages to `to`, numbered first..first+n-1. */
static void send_burst(int to, int first, int n, int tag, int **bufs, MPI_Request *rq)
{
    for (int i = 0; i < n; i++) {
        int c = count_of(first + i);
        fill(bufs[i], c, rank, to, first + i);
        MPI_OK(MPI_Isend(bufs[i], c, MPI_INT, to, tag, MPI_COMM_WORLD, &rq[i]));
    }
}

/* Receive n messages from `from`, in order, and check them. */
static void recv_burst(int from, int first, int n, int tag, int *buf)
{
    for (int i = 0; i < n; i++) {
        int c = count_of(first + i), got;
        MPI_Status st;
        MPI_OK(MPI_Recv(buf, LARGE, MPI_INT, from, tag, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
        CHECK(got == c, "from rank %d: message %d has %d ints, expected %d", from,
              first + i, got, c);
        check_msg(buf, c, from, first + i);
    }
}

static int **bufs_new(int n)
{
    int **b = malloc((size_t)n * sizeof *b);

    CHECK(b != NULL, "out of memory");
    for (int i = 0; i < n; i++) {
        b[i] = malloc(LARGE * sizeof(int));
        CHECK(b[i] != NULL, "out of memory");
    }
    return b;
}

/* ----------------------------------------------------------------- ring */

static void ring(int **bufs, int *in)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq[2 * ROUNDS];

    send_burst(right, 0, ROUNDS, TAG_RING, bufs, rq);
    if (left != right)
        send_burst(left, 0, ROUNDS, TAG_RING, bufs + ROUNDS, rq + ROUNDS);
    recv_burst(left, 0, ROUNDS, TAG_RING, in);
    if (left != right)
        recv_burst(right, 0, ROUNDS, TAG_RING, in);
    MPI_OK(MPI_Waitall(left != right ? 2 * ROUNDS : ROUNDS, rq, MPI_STATUSES_IGNORE));
    expect_connections(left != right ? 2 : 1, "after the ring");
}

/* A token around the ring: when it is back at rank 0, every rank passed
 * the point where it forwarded it. */
static void token_round(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size, t = 0;

    if (rank == 0) {
        MPI_OK(MPI_Send(&t, 1, MPI_INT, right, TAG_TOKEN, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(&t, 1, MPI_INT, left, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Recv(&t, 1, MPI_INT, left, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Send(&t, 1, MPI_INT, right, TAG_TOKEN, MPI_COMM_WORLD));
    }
}

/* ----------------------------------------------------------- all pairs */

/* Round k of the circle method over m (even) seats; -1: sits out. */
static int partner(int k, int m)
{
    int p;

    if (rank == m - 1)
        p = k;
    else if (rank == k)
        p = m - 1;
    else
        p = ((2 * k - rank) % (m - 1) + (m - 1)) % (m - 1);
    return p < size && p != rank ? p : -1;
}

static void busy_ms(int ms)
{
    struct timespec ts = { 0, ms * 1000000L };

    nanosleep(&ts, NULL);
}

/* BURST messages each way with `p`; `mode` says who sends first. */
static void meet(int p, int mode, int **bufs, int *in)
{
    MPI_Request rq[BURST];
    int lower = rank < p;
    int first = mode == 0 || (mode == 1 && lower) || (mode == 2 && !lower);

    if (first) {
        send_burst(p, 0, BURST, TAG_PAIR, bufs, rq);
        recv_burst(p, 0, BURST, TAG_PAIR, in);
    } else {
        if (mode == 2)
            busy_ms(20); /* the higher rank's hello waits for our answer */
        recv_burst(p, 0, BURST, TAG_PAIR, in);
        send_burst(p, 0, BURST, TAG_PAIR, bufs, rq);
    }
    MPI_OK(MPI_Waitall(BURST, rq, MPI_STATUSES_IGNORE));
}

static void all_pairs(int **bufs, int *in)
{
    int m = size % 2 ? size + 1 : size;

    for (int k = 0; k < m - 1; k++) {
        int p = partner(k, m);
        if (p >= 0)
            meet(p, k % 3, bufs, in);
    }
}

int main(int argc, char **argv)
{
    int **bufs, *in;
    const char *tr = getenv("WEFT_MPI_TRANSPORT");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef WEFT_MPI
    counting = tr && strcmp(tr, "tcp") == 0;
#else
    (void)tr;
#endif
    expect_connections(0, "after MPI_Init");
    bufs = bufs_new(2 * ROUNDS);
    in = malloc(LARGE * sizeof(int));
    CHECK(in != NULL, "out of memory");
    if (size > 1) {
        ring(bufs, in);
        token_round(); /* every rank counted its ring connections */
        token_round(); /* every rank knows it */
        all_pairs(bufs, in);
        token_round();
        token_round();
        expect_connections(size - 1, "after all pairs met");
    }
    for (int i = 0; i < 2 * ROUNDS; i++)
        free(bufs[i]);
    free(bufs);
    free(in);
    MPI_OK(MPI_Finalize());
    if (rank == 0)
        printf("lazy connect ok on %d ranks\n", size);
    return 0;
}
