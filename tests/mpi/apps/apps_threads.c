/* A hybrid MPI + pthreads program at MPI_THREAD_MULTIPLE: every rank runs
 * NTHREADS threads, and thread t of every rank works on its own
 * communicator, as hybrid codes do to keep the threads' collectives
 * apart. The main thread duplicates MPI_COMM_WORLD once per thread (in
 * the same order everywhere, as the standard requires); each thread then
 * splits its duplicate again by itself (MPI_Comm_split on distinct
 * communicators from several threads at once is legal) and runs rounds
 * of MPI_Allreduce, MPI_Bcast from a rotating root, MPI_Allgather,
 * MPI_Alltoall, MPI_Reduce_scatter_block, a ring MPI_Sendrecv and
 * MPI_Iallreduce completed by MPI_Wait or by MPI_Test polling, every
 * result checked exactly.
 * Meanwhile the main thread does its own point-to-point ring on world.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPS_NAME "threads"
#include "apps_util.h"

#define NTHREADS 4
#define ROUNDS 10
#define LEN 5

struct job {
    int t;
    MPI_Comm comm;
    pthread_t thread;
};

static long value(int t, int round, int rank, int i)
{
    return 1000L * t + 100L * round + 10L * rank + i;
}

static void round_of(MPI_Comm comm, int t, int k)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    long mine[LEN], sum[LEN];
    for (int i = 0; i < LEN; i++)
        mine[i] = value(t, k, rank, i);
    MPI_Allreduce(mine, sum, LEN, MPI_LONG, MPI_SUM, comm);
    for (int i = 0; i < LEN; i++) {
        long want = 0;
        for (int r = 0; r < size; r++)
            want += value(t, k, r, i);
        CHECK(sum[i] == want, "thread %d round %d: allreduce[%d] %ld, want %ld", t, k,
              i, sum[i], want);
    }

    int root = (k + t) % size;
    long b[LEN];
    for (int i = 0; i < LEN; i++)
        b[i] = rank == root ? value(t, k, root, i) : -1;
    MPI_Bcast(b, LEN, MPI_LONG, root, comm);
    for (int i = 0; i < LEN; i++)
        CHECK(b[i] == value(t, k, root, i), "thread %d: bcast", t);

    int *all = malloc(sizeof(int) * size * 2), *to = malloc(sizeof(int) * size),
        *from = malloc(sizeof(int) * size);
    int two[2] = {rank, t * 7 + k};
    MPI_Allgather(two, 2, MPI_INT, all, 2, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        CHECK(all[2 * r] == r && all[2 * r + 1] == t * 7 + k, "thread %d: allgather",
              t);
    for (int r = 0; r < size; r++)
        to[r] = rank * 1000 + r * 10 + t;
    MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        CHECK(from[r] == r * 1000 + rank * 10 + t, "thread %d: alltoall", t);
    /* element r of everyone's 'to' summed, delivered to rank r */
    int block;
    MPI_Reduce_scatter_block(to, &block, 1, MPI_INT, MPI_SUM, comm);
    CHECK(block == 1000 * size * (size - 1) / 2 + size * (rank * 10 + t),
          "thread %d: reduce_scatter_block %d", t, block);

    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&two[0], 1, MPI_INT, next, k, &got, 1, MPI_INT, prev, k, comm,
                 MPI_STATUS_IGNORE);
    CHECK(got == prev, "thread %d: ring got %d", t, got);

    /* a non-blocking collective, completed by MPI_Wait or, every fifth
     * round, by polling MPI_Test as codes overlapping work do */
    MPI_Request req;
    int flag = 0, one = 1, count = 0;
    MPI_Iallreduce(&one, &count, 1, MPI_INT, MPI_SUM, comm, &req);
    if (k % 5 == 0)
        while (!flag)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    else
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(count == size && req == MPI_REQUEST_NULL, "thread %d: iallreduce %d", t,
          count);
    free(all);
    free(to);
    free(from);
}

static void *run(void *arg)
{
    struct job *j = arg;
    int rank;
    MPI_Comm half;

    MPI_Comm_rank(j->comm, &rank);
    for (int k = 0; k < ROUNDS; k++)
        round_of(j->comm, j->t, k);
    /* a second communicator made inside the thread: even and odd ranks */
    MPI_Comm_split(j->comm, rank % 2, rank, &half);
    for (int k = 0; k < ROUNDS / 5; k++)
        round_of(half, j->t, k);
    MPI_Comm_free(&half);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    struct job jobs[NTHREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int is_main = 0, level = -1;
    MPI_Is_thread_main(&is_main);
    MPI_Query_thread(&level);
    CHECK(is_main && level == MPI_THREAD_MULTIPLE, "main %d, level %d", is_main, level);

    for (int t = 0; t < NTHREADS; t++) {
        jobs[t].t = t;
        MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm);
    }
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&jobs[t].thread, NULL, run, &jobs[t]) == 0, "pthread_create");

    /* the main thread's own traffic on world while the threads work */
    for (int k = 0; k < ROUNDS; k++) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
        MPI_Request reqs[2];
        MPI_Irecv(&got, 1, MPI_INT, prev, 99, MPI_COMM_WORLD, &reqs[0]);
        int out = rank * 100 + k;
        MPI_Isend(&out, 1, MPI_INT, next, 99, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        CHECK(got == prev * 100 + k, "main ring: %d", got);
    }

    for (int t = 0; t < NTHREADS; t++) {
        CHECK(pthread_join(jobs[t].thread, NULL) == 0, "pthread_join");
        MPI_Comm_free(&jobs[t].comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: %d ranks x %d threads, %d rounds each, all correct\n", size,
               NTHREADS, ROUNDS);
    MPI_Finalize();
    return 0;
}
