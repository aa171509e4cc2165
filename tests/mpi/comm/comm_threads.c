/* Communicator creation from several threads at once (MPI_THREAD_
 * MULTIPLE): each thread owns a duplicate of MPI_COMM_WORLD and, in a
 * loop, duplicates or splits it, exchanges a message tagged with the
 * thread and round on the new communicator, and frees it. Creations run
 * concurrently on every rank, so context ids must be agreed without two
 * concurrent communicators sharing one (their traffic would then cross:
 * the receives check what arrives).
 */
#include <pthread.h>

#include "mpi_test_util.h"

#define THREADS 3
#define ROUNDS 40

static int rank, size;
static MPI_Comm base[THREADS];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        int r, n, got = -1, mine = t * 100000 + i * 100 + rank;
        if (i % 2)
            MPI_OK(MPI_Comm_dup(base[t], &c));
        else
            MPI_OK(MPI_Comm_split(base[t], 0, -rank, &c));
        MPI_OK(MPI_Comm_rank(c, &r));
        MPI_OK(MPI_Comm_size(c, &n));
        int next = (r + 1) % n, prev = (r + n - 1) % n;
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, next, 0, &got, 1, MPI_INT, prev, 0,
                            c, MPI_STATUS_IGNORE));
        /* prev's world rank: in the split, ranks are reversed */
        int pw = i % 2 ? prev : size - 1 - prev;
        CHECK(got == t * 100000 + i * 100 + pw, "thread %d round %d: got %d", t, i,
              got);
        MPI_OK(MPI_Comm_free(&c));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    int provided;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("comm_threads: skipped (no MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_free(&base[t]));
    MPI_Finalize();
    if (rank == 0)
        printf("comm_threads: ok (%d ranks)\n", size);
    return 0;
}
