/* Matched probe and receive (MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv):
 *   - a probed message leaves the queue: a later probe sees the next one;
 *   - MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC and a null status;
 *   - messages to oneself, small and large, eager and rendezvous;
 *   - several threads of rank 0 compete for the messages every rank sends
 *     it (eager and rendezvous sizes, the testlist also forces a small
 *     eager limit): each message is received exactly once, whole, by the
 *     thread that probed it, with the size the probe announced.
 * Built against Weft's mpi.h, Weft user-level threads compete alongside
 * the pthreads.
 */
#include <pthread.h>

#include "mpi_test_util.h"

#ifdef WEFT_MPI
#include <weft.h>
#endif

#define NPTHREADS 4
#define NULTS 4
#define NMSG 60          /* messages from each rank to rank 0 */
#define LARGE (150 * 1024)
#define TAG_STOP 30000

static int rank, size;

static int len_of(int i)
{
    static const int lens[] = { 0, 8, 1000, 70000, LARGE, 3 };
    return lens[i % 6];
}

static uint64_t seed_of(int src, int tag)
{
    return (uint64_t)src * 100000 + (uint64_t)tag;
}

/* ------------------------------------------------------------ sequential */

static void proc_null(void)
{
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    MPI_Request r;
    int flag = 0, n = -1, buf = 7;

    MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) gave another message");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "status %d %d",
          st.MPI_SOURCE, st.MPI_TAG);
    MPI_OK(MPI_Mrecv(&buf, 1, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL, "Mrecv did not clear the handle");
    MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && n == 0 && buf == 7, "Mrecv(NO_PROC): %d %d",
          st.MPI_SOURCE, n);
    MPI_OK(MPI_Improbe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &m, &st));
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL)");
    MPI_OK(MPI_Imrecv(&buf, 1, MPI_INT, &m, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && m == MPI_MESSAGE_NULL, "Imrecv(NO_PROC)");
}

/* Receive the message `m` (len bytes from src, tag) and check it. */
static void mrecv_checked(MPI_Message *m, int src, int tag, int len, int nonblocking)
{
    unsigned char *buf = malloc(len ? (size_t)len : 1);
    MPI_Status st;
    MPI_Request r;
    int n;

    if (nonblocking) {
        MPI_OK(MPI_Imrecv(buf, len, MPI_BYTE, m, &r));
        CHECK(*m == MPI_MESSAGE_NULL, "Imrecv did not clear the handle");
        MPI_OK(MPI_Wait(&r, &st));
    } else {
        MPI_OK(MPI_Mrecv(buf, len, MPI_BYTE, m, &st));
        CHECK(*m == MPI_MESSAGE_NULL, "Mrecv did not clear the handle");
    }
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(st.MPI_SOURCE == src && st.MPI_TAG == tag && n == len, "got %d/%d/%d, want %d/%d/%d",
          st.MPI_SOURCE, st.MPI_TAG, n, src, tag, len);
    CHECK(p2p_verify(buf, (size_t)len, seed_of(src, tag)) == (size_t)-1, "payload of %d/%d",
          src, tag);
    free(buf);
}

/* Send len bytes (the pattern of (me, tag)) to dest without waiting. */
static MPI_Request send_pattern(int dest, int tag, int len, unsigned char **keep)
{
    MPI_Request r;

    *keep = malloc(len ? (size_t)len : 1);
    p2p_fill(*keep, (size_t)len, seed_of(rank, tag));
    MPI_OK(MPI_Isend(*keep, len, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r));
    return r;
}

/* Two messages with one tag: once the first is probed, a plain probe sees
 * the second, and each receive gets its own. */
static void probed_message_leaves_queue(int src, int dest)
{
    unsigned char *b1, *b2;
    MPI_Request r[2];
    MPI_Message m;
    MPI_Status st;
    int n;

    if (rank == src) {
        r[0] = send_pattern(dest, 7, 100, &b1);
        r[1] = send_pattern(dest, 7, LARGE, &b2);
    }
    if (rank == dest) {
        MPI_OK(MPI_Mprobe(src, 7, MPI_COMM_WORLD, &m, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == 100 && st.MPI_SOURCE == src, "first probe: %d bytes", n);
        MPI_OK(MPI_Probe(src, 7, MPI_COMM_WORLD, &st)); /* must be the second */
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(n == LARGE, "the probed message is still visible (%d bytes)", n);
        MPI_Message m2;
        MPI_OK(MPI_Mprobe(src, 7, MPI_COMM_WORLD, &m2, &st));
        mrecv_checked(&m2, src, 7, LARGE, 1); /* out of order: allowed */
        mrecv_checked(&m, src, 7, 100, 0);
    }
    if (rank == src) {
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        free(b1);
        free(b2);
    }
}

static void improbe_then_imrecv(int src, int dest)
{
    unsigned char *b;
    MPI_Request r;
    MPI_Message m = MPI_MESSAGE_NULL;
    MPI_Status st;
    int flag = 0, n;

    if (rank == src)
        r = send_pattern(dest, 5, 70000, &b);
    if (rank == dest) {
        while (!flag)
            MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &m, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(st.MPI_SOURCE == src && st.MPI_TAG == 5 && n == 70000, "Improbe status");
        MPI_Message again = MPI_MESSAGE_NULL;
        MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &flag, &again, &st));
        CHECK(!flag, "a second Improbe found the taken message");
        mrecv_checked(&m, src, 5, 70000, 1);
    }
    if (rank == src) {
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        free(b);
    }
}

/* ------------------------------------------------------------ threads */

/* Atomics, not a pthread mutex: a user-level thread preempted while
 * holding the mutex would stall its worker's next thread that waits for
 * it, and that thread's kernel thread is the worker. */
static int *seen;   /* [size * NMSG] atomic: times each message was received */
static int received; /* atomic */
static int nreceivers; /* threads in competing_receivers() */

static void note(int src, int tag)
{
    int all, stop = 0;

    __atomic_add_fetch(&seen[src * NMSG + tag], 1, __ATOMIC_RELAXED);
    all = __atomic_add_fetch(&received, 1, __ATOMIC_ACQ_REL) == size * NMSG;
    if (all) /* wake every receiver, each with a stop message of its own */
        for (int i = 0; i < nreceivers; i++)
            MPI_OK(MPI_Send(&stop, 0, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD));
}

static void *receiver(void *arg)
{
    MPI_Message m;
    MPI_Status st;
    int n;

    (void)arg;
    for (;;) {
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
        if (st.MPI_TAG == TAG_STOP) {
            int dummy;
            MPI_OK(MPI_Mrecv(&dummy, 0, MPI_INT, &m, MPI_STATUS_IGNORE));
            return NULL;
        }
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK(st.MPI_TAG >= 0 && st.MPI_TAG < NMSG && n == len_of(st.MPI_TAG),
              "probe: tag %d, %d bytes", st.MPI_TAG, n);
        mrecv_checked(&m, st.MPI_SOURCE, st.MPI_TAG, n, st.MPI_TAG % 2);
        note(st.MPI_SOURCE, st.MPI_TAG);
    }
}

static void *sender(void *arg)
{
    MPI_Request r[NMSG];
    unsigned char *b[NMSG];

    (void)arg;
    for (int i = 0; i < NMSG; i++)
        r[i] = send_pattern(0, i, len_of(i), &b[i]);
    MPI_OK(MPI_Waitall(NMSG, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++)
        free(b[i]);
    return NULL;
}

static void competing_receivers(void)
{
    pthread_t pt[NPTHREADS], snd;

    if (rank != 0) {
        sender(NULL);
        return;
    }
    seen = calloc((size_t)size * NMSG, sizeof *seen);
    nreceivers = NPTHREADS;
#ifdef WEFT_MPI
    nreceivers += NULTS;
#endif
    CHECK(pthread_create(&snd, NULL, sender, NULL) == 0, "pthread_create");
    for (int i = 0; i < NPTHREADS; i++)
        CHECK(pthread_create(&pt[i], NULL, receiver, NULL) == 0, "pthread_create");
#ifdef WEFT_MPI
    weft_thread_t ut[NULTS];
    for (int i = 0; i < NULTS; i++)
        CHECK(weft_thread_create(&ut[i], NULL, receiver, NULL) == 0, "weft_thread_create");
#endif
    /* The user-level threads first: main is one too, and pthread_join
     * would block its worker, leaving a receiver that was preempted
     * holding a probed message queued there while the pthreads wait for
     * the stop that only that message's receipt sends. */
#ifdef WEFT_MPI
    for (int i = 0; i < NULTS; i++)
        CHECK(weft_thread_join(ut[i], NULL) == 0, "weft_thread_join");
#endif
    for (int i = 0; i < NPTHREADS; i++)
        pthread_join(pt[i], NULL);
    pthread_join(snd, NULL);
    for (int i = 0; i < size * NMSG; i++)
        CHECK(seen[i] == 1, "message %d of rank %d received %d times", i % NMSG, i / NMSG,
              seen[i]);
    free(seen);
}

int main(int argc, char **argv)
{
    int provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    proc_null();
    probed_message_leaves_queue(size - 1, 0); /* to oneself with one rank */
    improbe_then_imrecv(size - 1, 0);
    if (size > 2)
        probed_message_leaves_queue(1, 2);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    competing_receivers();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0)
        printf("misc_mprobe: ok\n");
    return 0;
}
