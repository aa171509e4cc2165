/* Non-overtaking order: messages from one sender on one communicator that
 * match the same receive arrive in the order they were sent, across the
 * eager and rendezvous protocols; receives naming distinct tags take
 * their own message whatever the arrival order.
 *
 * Every rank but 0 sends N messages to rank 0, tags cycling 0..2, every
 * 16th one large (rendezvous). Rank 0 receives them all with
 * MPI_ANY_SOURCE/MPI_ANY_TAG and checks that each sender's sequence
 * numbers come in order with the right tag and size. Then (after a
 * barrier, so that the wildcards above see only those) each sender
 * sends tags 0..9 and rank 0 receives them tag 9 first, down to 0.
 */
#include "mpi_test_util.h"

#define N 300
#define SMALL 2 /* ints: {sequence, sender} */
#define LARGE (40 * 1024) /* ints: 160 KiB, above the default eager limit */

static int size_of(int i)
{
    return i % 16 == 5 ? LARGE : SMALL;
}

static void sender(void)
{
    int *buf = malloc(LARGE * sizeof(int));
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i++) {
        int n = size_of(i);
        for (int k = 0; k < n; k++)
            buf[k] = k == 0 ? i : rank * 1000 + k;
        MPI_OK(MPI_Send(buf, n, MPI_INT, 0, i % 3, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 0 took them all */
    for (int t = 0; t < 10; t++) {
        int v = rank * 100 + t;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 50 + t, MPI_COMM_WORLD));
    }
    free(buf);
}

static void receiver(int size)
{
    int *buf = malloc(LARGE * sizeof(int));
    int *next = calloc((size_t)size, sizeof(int));
    MPI_Status st;
    int count;

    for (int m = 0; m < N * (size - 1); m++) {
        MPI_OK(MPI_Recv(buf, LARGE, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE, i = buf[0];
        CHECK(s > 0 && s < size, "source %d", s);
        CHECK(i == next[s], "from %d: got message %d, expected %d", s, i, next[s]);
        CHECK(st.MPI_TAG == i % 3, "message %d from %d has tag %d", i, s, st.MPI_TAG);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == size_of(i), "message %d: count %d", i, count);
        CHECK(buf[count - 1] == (count == 1 ? i : s * 1000 + count - 1), "payload of %d", i);
        next[s]++;
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int s = 1; s < size; s++) {
        for (int t = 9; t >= 0; t--) {
            int v = -1;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, s, 50 + t, MPI_COMM_WORLD, &st));
            CHECK(v == s * 100 + t, "tag %d from %d carried %d", 50 + t, s, v);
        }
    }
    free(next);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        receiver(size);
    else
        sender();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_order: ok (%d senders x %d messages)\n", size - 1, N);
    return 0;
}
