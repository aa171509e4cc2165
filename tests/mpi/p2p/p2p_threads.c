/* MPI_THREAD_MULTIPLE: 8 threads per rank send and receive at the same
 * time, each on its own tag, with messages of eager and rendezvous sizes
 * to the next rank of a ring and from the previous one. Each message says
 * which thread and iteration it belongs to, so any mix-up between
 * concurrent operations shows.
 *
 * The threads are plain pthreads (as in a program written for any MPI).
 * Built against Weft's mpi.h (WEFT_MPI defined), the program also runs 8
 * Weft user-level threads doing the same on tags of their own, at the
 * same time as the pthreads.
 */
#include <pthread.h>

#include "mpi_test_util.h"

#ifdef WEFT_MPI
#include <weft.h>
#endif

#define NTHREADS 8
#define ITERS 200
#define LARGE (100 * 1024) /* bytes */

static int rank, size;

static size_t len_of(int i)
{
    return i % 25 == 7 ? LARGE : 16;
}

static void *worker(void *arg)
{
    int tag = (int)(intptr_t)arg;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    unsigned char *out = malloc(LARGE), *in = malloc(LARGE);
    MPI_Request r;
    MPI_Status st;
    int n;

    for (int i = 0; i < ITERS; i++) {
        size_t len = len_of(i);
        p2p_fill(out, len, (uint64_t)(rank * 100000 + tag * 1000 + i));
        MPI_OK(MPI_Irecv(in, LARGE, MPI_BYTE, prev, tag, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Send(out, (int)len, MPI_BYTE, next, tag, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
        CHECK((size_t)n == len && st.MPI_TAG == tag, "tag %d iteration %d: %d bytes", tag, i, n);
        CHECK(p2p_verify(in, len, (uint64_t)(prev * 100000 + tag * 1000 + i)) == (size_t)-1,
              "tag %d iteration %d: wrong payload", tag, i);
    }
    free(out);
    free(in);
    return NULL;
}

#ifdef WEFT_MPI
static void start_weft_threads(weft_thread_t *t)
{
    for (int i = 0; i < NTHREADS; i++)
        CHECK(weft_thread_create(&t[i], NULL, worker, (void *)(intptr_t)(NTHREADS + i)) == 0,
              "weft_thread_create");
}

static void join_weft_threads(weft_thread_t *t)
{
    for (int i = 0; i < NTHREADS; i++)
        CHECK(weft_thread_join(t[i], NULL) == 0, "weft_thread_join");
}
#endif

int main(int argc, char **argv)
{
    pthread_t pt[NTHREADS];
    int provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef WEFT_MPI
    weft_thread_t wt[NTHREADS];
    start_weft_threads(wt);
#endif
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&pt[i], NULL, worker, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(pt[i], NULL);
#ifdef WEFT_MPI
    join_weft_threads(wt);
#endif
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_threads: ok\n");
    return 0;
}
