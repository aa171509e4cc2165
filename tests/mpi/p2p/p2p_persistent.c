/* Persistent requests: MPI_Send_init/MPI_Recv_init once, MPI_Start and
 * MPI_Startall many times with new data each time (eager and rendezvous
 * sizes), completion leaving the requests inactive but allocated; waits
 * on inactive requests return at once with an empty status; the
 * synchronous, ready and buffered variants; MPI_Request_free at the end.
 */
#include "mpi_test_util.h"

#define ROUNDS 50

static void ping_pong(int rank, int n)
{
    int *out = malloc((size_t)n * sizeof(int)), *in = malloc((size_t)n * sizeof(int));
    int peer = 1 - rank;
    MPI_Request rq[2];
    MPI_Status st[2];

    MPI_OK(MPI_Recv_init(in, n, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Send_init(out, n, MPI_INT, peer, 8, MPI_COMM_WORLD, &rq[1]));
    for (int i = 0; i < ROUNDS; i++) {
        for (int k = 0; k < n; k++)
            out[k] = rank * 1000000 + i * 1000 + k % 1000;
        MPI_OK(MPI_Startall(2, rq));
        MPI_OK(MPI_Waitall(2, rq, st));
        CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL, "persistent freed");
        CHECK(st[0].MPI_SOURCE == peer && st[0].MPI_TAG == 8, "status of round %d", i);
        for (int k = 0; k < n; k++)
            CHECK(in[k] == peer * 1000000 + i * 1000 + k % 1000, "round %d element %d", i, k);
    }
    MPI_OK(MPI_Wait(&rq[0], &st[0]));
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[0].MPI_TAG == MPI_ANY_TAG,
          "inactive request: status %d/%d", st[0].MPI_SOURCE, st[0].MPI_TAG);
    MPI_OK(MPI_Request_free(&rq[0]));
    MPI_OK(MPI_Request_free(&rq[1]));
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "freed handles not null");
    free(out);
    free(in);
}

static void variants(int rank)
{
    static char bbuf[4096];
    int v = 0, w[3] = { 0, 0, 0 }, size;
    MPI_Request rq[3];
    void *p;

    if (rank == 0) {
        MPI_OK(MPI_Buffer_attach(bbuf, sizeof bbuf));
        MPI_OK(MPI_Ssend_init(&v, 1, MPI_INT, 1, 21, MPI_COMM_WORLD, &rq[0]));
        MPI_OK(MPI_Bsend_init(&v, 1, MPI_INT, 1, 22, MPI_COMM_WORLD, &rq[1]));
        MPI_OK(MPI_Rsend_init(&v, 1, MPI_INT, 1, 23, MPI_COMM_WORLD, &rq[2]));
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        v = 77;
        MPI_OK(MPI_Startall(3, rq));
        MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Request_free(&rq[i]));
        MPI_OK(MPI_Buffer_detach(&p, &size));
        CHECK(p == bbuf && size == (int)sizeof bbuf, "detach gave another buffer");
    } else {
        for (int i = 0; i < 3; i++)
            MPI_OK(MPI_Irecv(&w[i], 1, MPI_INT, 0, 21 + i, MPI_COMM_WORLD, &rq[i]));
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD)); /* receives are posted */
        MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
        CHECK(w[0] == 77 && w[1] == 77 && w[2] == 77, "variants carried %d %d %d", w[0], w[1], w[2]);
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank < 2) {
        ping_pong(rank, 10);
        ping_pong(rank, 50000);
        variants(rank);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_persistent: ok\n");
    return 0;
}
