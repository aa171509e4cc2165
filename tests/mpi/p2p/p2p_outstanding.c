/* 1,000 outstanding receives matched out of order: rank 1 posts 1,000
 * MPI_Irecv with distinct tags in ascending order; rank 0 sends the tags
 * in a shuffled order (a few messages large enough for the rendezvous).
 * Each receive must get the message with its tag. A second round takes
 * the completions one by one with MPI_Waitany.
 */
#include "mpi_test_util.h"

#define NREQ 1000
#define LARGE 20000 /* ints, for every 97th tag */

static int len_of(int tag)
{
    return tag % 97 == 3 ? LARGE : 2;
}

static void shuffle(int *order, int n, unsigned seed)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        seed = seed * 1103515245u + 12345u;
        int j = (int)((seed >> 8) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static void send_round(unsigned seed)
{
    int order[NREQ], *buf = malloc(LARGE * sizeof(int));

    shuffle(order, NREQ, seed);
    for (int i = 0; i < NREQ; i++) {
        int tag = order[i];
        for (int k = 0; k < len_of(tag); k++)
            buf[k] = tag * 7 + k;
        MPI_OK(MPI_Send(buf, len_of(tag), MPI_INT, 1, tag, MPI_COMM_WORLD));
    }
    free(buf);
}

static int **post(MPI_Request *rq)
{
    int **bufs = malloc(NREQ * sizeof *bufs);

    for (int t = 0; t < NREQ; t++) {
        bufs[t] = malloc((size_t)len_of(t) * sizeof(int));
        MPI_OK(MPI_Irecv(bufs[t], len_of(t), MPI_INT, 0, t, MPI_COMM_WORLD, &rq[t]));
    }
    return bufs;
}

static void check_one(int **bufs, int t, const MPI_Status *st)
{
    int count;

    CHECK(st->MPI_TAG == t && st->MPI_SOURCE == 0, "request %d got tag %d", t, st->MPI_TAG);
    MPI_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == len_of(t), "tag %d: count %d", t, count);
    for (int k = 0; k < count; k++)
        CHECK(bufs[t][k] == t * 7 + k, "tag %d element %d", t, k);
    free(bufs[t]);
}

static void recv_rounds(void)
{
    static MPI_Request rq[NREQ];
    static MPI_Status st[NREQ];
    int **bufs = post(rq), idx;

    MPI_OK(MPI_Waitall(NREQ, rq, st));
    for (int t = 0; t < NREQ; t++)
        check_one(bufs, t, &st[t]);
    free(bufs);
    bufs = post(rq);
    for (int n = 0; n < NREQ; n++) {
        MPI_OK(MPI_Waitany(NREQ, rq, &idx, &st[0]));
        CHECK(idx >= 0 && idx < NREQ && rq[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
        check_one(bufs, idx, &st[0]);
    }
    MPI_OK(MPI_Waitany(NREQ, rq, &idx, &st[0]));
    CHECK(idx == MPI_UNDEFINED, "Waitany on null requests gave %d", idx);
    free(bufs);
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        send_round(12345u);
        send_round(777u);
    } else if (rank == 1) {
        recv_rounds();
    }
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_outstanding: ok\n");
    return 0;
}
