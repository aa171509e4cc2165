/* The EARTH lesson: two ranks shipping each other large work items at
 * the same time never deadlock, and every item arrives intact. Ranks
 * pair up (rank ^ 1). In each rank, at once: SENDERS threads each send
 * ITEMS items of 4 MiB to the partner with blocking MPI_Send (rendezvous
 * size: a send waits for its receive), RECEIVERS threads each receive the
 * partner's items with MPI_Recv, and one more thread posts BATCH items
 * both ways with MPI_Isend/MPI_Irecv and waits for all. A runtime whose
 * blocked sender held up its receiver (EARTH's single communication
 * module writing to a full socket) would hang here; so would one that
 * blocked a worker, under WEFT_WORKERS=1.
 *
 * The threads are Weft user-level threads when built against Weft's
 * mpi.h (WEFT_MPI defined), pthreads otherwise. An alarm ends a hung run
 * within 10 s, as a failure.
 */
#include <unistd.h>

#include "mpi_test_threads.h"


#define ITEM (4u << 20) /* bytes */
#define SENDERS 3
#define RECEIVERS SENDERS
#define ITEMS 2
#define BATCH 3
#define BATCH_TAG 100
#define DEADLINE_S 9

static int rank, partner;

static uint64_t seed_of(int from, int tag, int i)
{
    return (uint64_t)from * 1000000 + (uint64_t)tag * 1000 + (uint64_t)i;
}

static unsigned char *item_alloc(void)
{
    unsigned char *p = malloc(ITEM);
    CHECK(p != NULL, "out of memory");
    return p;
}

static void *sender(void *arg)
{
    int tag = (int)(intptr_t)arg;
    unsigned char *buf = item_alloc();
    for (int i = 0; i < ITEMS; i++) {
        p2p_fill(buf, ITEM, seed_of(rank, tag, i));
        MPI_OK(MPI_Send(buf, ITEM, MPI_BYTE, partner, tag, MPI_COMM_WORLD));
    }
    free(buf);
    return NULL;
}

static void check_item(const unsigned char *buf, const MPI_Status *st,
                       int tag, int i)
{
    int n;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK(n == (int)ITEM, "tag %d item %d: %d bytes", tag, i, n);
    CHECK(p2p_verify(buf, ITEM, seed_of(partner, tag, i)) == (size_t)-1,
          "tag %d item %d: payload damaged", tag, i);
}

static void *receiver(void *arg)
{
    int tag = (int)(intptr_t)arg;
    unsigned char *buf = item_alloc();
    MPI_Status st;
    for (int i = 0; i < ITEMS; i++) {
        MPI_OK(MPI_Recv(buf, ITEM, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
        check_item(buf, &st, tag, i);
    }
    free(buf);
    return NULL;
}

/* BATCH items each way in flight at once. */
static void *batcher(void *arg)
{
    unsigned char *out[BATCH], *in[BATCH];
    MPI_Request r[2 * BATCH];
    MPI_Status st[2 * BATCH];
    (void)arg;
    for (int i = 0; i < BATCH; i++) {
        in[i] = item_alloc();
        out[i] = item_alloc();
        p2p_fill(out[i], ITEM, seed_of(rank, BATCH_TAG, i));
        MPI_OK(MPI_Irecv(in[i], ITEM, MPI_BYTE, partner, BATCH_TAG,
                         MPI_COMM_WORLD, &r[i]));
    }
    for (int i = 0; i < BATCH; i++)
        MPI_OK(MPI_Isend(out[i], ITEM, MPI_BYTE, partner, BATCH_TAG,
                         MPI_COMM_WORLD, &r[BATCH + i]));
    MPI_OK(MPI_Waitall(2 * BATCH, r, st));
    for (int i = 0; i < BATCH; i++) {
        check_item(in[i], &st[i], BATCH_TAG, i); /* same tag: in order */
        free(in[i]);
        free(out[i]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    mt_thread t[SENDERS + RECEIVERS + 1];
    int provided, size, n = 0;
    alarm(DEADLINE_S);
    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size % 2 == 0, "needs an even number of ranks, not %d", size);
    partner = rank ^ 1;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* both ranks start shipping at once */
    for (int i = 0; i < SENDERS; i++)
        mt_start(&t[n++], sender, i);
    for (int i = 0; i < RECEIVERS; i++)
        mt_start(&t[n++], receiver, i);
    mt_start(&t[n++], batcher, 0);
    for (int i = 0; i < n; i++)
        mt_join(t[i]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_crossing_work: ok\n");
    return 0;
}
