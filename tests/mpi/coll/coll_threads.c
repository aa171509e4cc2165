/* Concurrent collectives from several threads, each on a communicator of
 * its own (MPI_Comm_dup of world; a split of world with ranks reversed;
 * MPI_COMM_SELF), blocking and nonblocking mixed, with results checked
 * against serial computations: collectives of different communicators
 * never mix, whatever the interleaving. Plain pthreads, as any MPI
 * program would use.
 */
#include <pthread.h>

#include "coll_test.h"

#define NDUP 3
#define ITERS 25
#define N 300

static int wrank, wsize;

typedef struct job {
    MPI_Comm comm;
    int id;
} job;

static void one_round(MPI_Comm comm, int id, int it)
{
    int me, np, seed = id * 1000 + it, root;
    int s[N], r[N], *all;
    mat2 ms[8], mr[8];
    MPI_Request rq;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    root = it % np;
    all = xmalloc((size_t)N * np * sizeof *all);
    for (int i = 0; i < N; i++)
        s[i] = coll_val(me, i, seed), r[i] = me == root ? coll_val(root, i, seed + 1) : -1;
    MPI_OK(MPI_Bcast(r, N, MPI_INT, root, comm));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == coll_val(root, i, seed + 1), "comm %d it %d: bcast [%d]", id, it, i);
    MPI_OK(MPI_Iallreduce(s, r, N, MPI_INT, MPI_SUM, comm, &rq));
    MPI_OK(MPI_Allgather(s, N, MPI_INT, all, N, MPI_INT, comm));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int q = 0; q < np; q++) {
            want += coll_val(q, i, seed);
            CHECK(all[q * N + i] == coll_val(q, i, seed), "comm %d it %d: allgather", id, it);
        }
        CHECK(r[i] == want, "comm %d it %d: allreduce [%d]", id, it, i);
    }
    for (int i = 0; i < 8; i++)
        ms[i] = mat_of(me, i, seed);
    MPI_OK(MPI_Reduce(ms, mr, 8, mat_type, mat_op, root, comm));
    for (int i = 0; i < 8 && me == root; i++)
        CHECK(mat_eq(mr[i], mat_range(0, np, i, seed)), "comm %d it %d: ordered reduce", id, it);
    MPI_OK(MPI_Barrier(comm));
    free(all);
}

static void *worker(void *p)
{
    job *j = p;

    for (int it = 0; it < ITERS; it++)
        one_round(j->comm, j->id, it);
    return NULL;
}

int main(int argc, char **argv)
{
    job jobs[NDUP + 2];
    pthread_t t[NDUP + 2];
    int provided, nj = 0, me;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    mat_setup();
    for (int i = 0; i < NDUP; i++, nj++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &jobs[nj].comm));
    /* two halves, ranks in reverse order: comm ranks differ from world's */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, -wrank, &jobs[nj++].comm));
    MPI_Comm_rank(jobs[nj - 1].comm, &me);
    CHECK(me == (wsize - 1 - wrank) / 2, "split: rank %d in its half", me);
    jobs[nj++].comm = MPI_COMM_SELF;
    for (int i = 0; i < nj; i++) {
        jobs[i].id = i;
        CHECK(pthread_create(&t[i], NULL, worker, &jobs[i]) == 0, "pthread_create");
    }
    for (int i = 0; i < nj; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < nj - 1; i++)
        MPI_OK(MPI_Comm_free(&jobs[i].comm));
    mat_teardown();
    MPI_OK(MPI_Finalize());
    return 0;
}
