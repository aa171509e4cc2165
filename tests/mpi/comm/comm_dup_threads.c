/* MPI_Comm_dup from four threads of every rank at once (MPI_THREAD_
 * MULTIPLE), each on a communicator of its own, while the threads of a
 * rank also take turns, under a lock of the program's, duplicating
 * MPI_COMM_SELF: the pattern of MPICH's comm_dup_deadlock test.
 *
 * What it catches: a context-id vote that lets a round hold the rank's
 * free ids while it waits for a member that is busy elsewhere. Here a
 * member may wait for the program's lock, held by a thread whose own dup
 * of MPI_COMM_SELF needs those ids: every rank then waits for another
 * and the job hangs (and the test times out). Each new communicator is
 * then used and checked: an allreduce whose sum depends on the thread and
 * the round, and a ring exchange whose messages name them, so two
 * communicators that shared a context id would cross their traffic.
 * COMM_MAKE=split, =create or =idup makes the threads' communicators
 * (congruent to their parents) by MPI_Comm_split, MPI_Comm_create or
 * MPI_Comm_idup and MPI_Wait instead, which vote on context ids the same
 * way (idup from a thread of its own).
 */
#include <pthread.h>

#include "mpi_test_util.h"

#define THREADS 4
#define ROUNDS 150

static int rank, size;
static const char *how; /* COMM_MAKE: dup (default), idup, split or create */
static MPI_Comm base[THREADS];
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

/* A one-rank duplicate of MPI_COMM_SELF reduces to this rank's value. */
static void dup_self(int t, int i)
{
    MPI_Comm s;
    int n = 0, mine = t * 1000 + i, sum = -1;

    pthread_mutex_lock(&self_lock);
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &s));
    pthread_mutex_unlock(&self_lock);
    MPI_OK(MPI_Comm_size(s, &n));
    CHECK(n == 1, "thread %d round %d: self dup has %d ranks", t, i, n);
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, s));
    CHECK(sum == mine, "thread %d round %d: self sum %d", t, i, sum);
    MPI_OK(MPI_Comm_free(&s));
}

/* The duplicate of base[t]: same group, ranks, a working context. */
static void check_dup(MPI_Comm c, int t, int i)
{
    int cmp = -1, r = -1, n = 0, sum = -1, got = -1;
    int mine = (rank + 1) * 100 + t * 10 + i % 10;
    int want = 100 * size * (size + 1) / 2 + size * (t * 10 + i % 10);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int tagged = t * 100000 + i * 100 + rank;

    MPI_OK(MPI_Comm_compare(c, base[t], &cmp));
    CHECK(cmp == MPI_CONGRUENT, "thread %d round %d: compare %d", t, i, cmp);
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &n));
    CHECK(r == rank && n == size, "thread %d round %d: rank %d of %d", t, i, r, n);
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "thread %d round %d: sum %d, want %d", t, i, sum, want);
    MPI_OK(MPI_Sendrecv(&tagged, 1, MPI_INT, next, 0, &got, 1, MPI_INT, prev, 0,
                        c, MPI_STATUS_IGNORE));
    CHECK(got == t * 100000 + i * 100 + prev, "thread %d round %d: got %d", t, i,
          got);
}

/* A communicator congruent to base[t], made as COMM_MAKE says. */
static void make(int t, MPI_Comm *c)
{
    MPI_Group g;

    if (!how || strcmp(how, "dup") == 0) {
        MPI_OK(MPI_Comm_dup(base[t], c));
    } else if (strcmp(how, "idup") == 0) {
        MPI_Request r;
        MPI_OK(MPI_Comm_idup(base[t], c, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else if (strcmp(how, "split") == 0) {
        MPI_OK(MPI_Comm_split(base[t], 1, rank, c));
    } else {
        MPI_OK(MPI_Comm_group(base[t], &g));
        MPI_OK(MPI_Comm_create(base[t], g, c));
        MPI_OK(MPI_Group_free(&g));
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;

        dup_self(t, i);
        make(t, &c);
        check_dup(c, t, i);
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
            printf("comm_dup_threads: skipped (no MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 0;
    }
    how = getenv("COMM_MAKE");
    CHECK(!how || !strcmp(how, "dup") || !strcmp(how, "idup") ||
              !strcmp(how, "split") || !strcmp(how, "create"),
          "COMM_MAKE=%s", how);
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_join(th[t], NULL) == 0, "pthread_join");
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_free(&base[t]));
    MPI_Finalize();
    if (rank == 0)
        printf("comm_dup_threads: ok (%d ranks, %d threads x %d %s)\n", size,
               THREADS, ROUNDS, how ? how : "dup");
    return 0;
}
