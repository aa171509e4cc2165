/* A distributed counter under MPI_THREAD_MULTIPLE: THREADS threads per
 * rank each fetch-and-add 1 to a counter on rank 0, ROUNDS times, with a
 * flush after each; over all ranks and threads the values fetched are
 * 0 .. size * THREADS * ROUNDS - 1, each once. A thread's flush must
 * complete its own operation even while another thread's flush is
 * waiting for it. */
#include <pthread.h>

#include "rma_test.h"

#define THREADS 4
#define ROUNDS 25

static MPI_Win win;

static void *counter_thread(void *arg)
{
    long long *got = arg, one = 1;

    for (int i = 0; i < ROUNDS; i++) {
        got[i] = -1;
        MPI_OK(MPI_Fetch_and_op(&one, &got[i], MPI_LONG_LONG, 0, 0, MPI_SUM,
                                win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(got[i] >= 0, "flush returned before the fetch completed");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    long long *mem, got[THREADS * ROUNDS], *all = NULL;
    pthread_t t[THREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_OK(MPI_Win_allocate(sizeof *mem, sizeof *mem, MPI_INFO_NULL,
                            MPI_COMM_WORLD, &mem, &win));
    *mem = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int i = 0; i < THREADS; i++)
        CHECK(!pthread_create(&t[i], NULL, counter_thread, &got[i * ROUNDS]),
              "pthread_create");
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    MPI_OK(MPI_Win_unlock_all(win));
    if (rank == 0)
        all = malloc((size_t)size * THREADS * ROUNDS * sizeof *all);
    MPI_Gather(got, THREADS * ROUNDS, MPI_LONG_LONG, all, THREADS * ROUNDS,
               MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        rma_check_distinct(all, size * THREADS * ROUNDS);
    free(all);
    MPI_OK(MPI_Win_free(&win));
    MPI_Finalize();
    if (rank == 0)
        printf("rma_threads: %d ranks x %d threads ok\n", size, THREADS);
    return 0;
}
