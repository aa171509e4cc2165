/* MPI_Comm_create_group from four threads of every rank at once
 * (MPI_THREAD_MULTIPLE), each with its thread number as the tag: on a
 * communicator of the thread's own (all of it) and on MPI_COMM_WORLD,
 * shared by the threads (the lower half of it, then all of it, as in
 * MPICH's comm_create_group_threads and _threads2 tests). Between
 * creations the threads of a rank take turns, under a lock of the
 * program's, duplicating MPI_COMM_SELF.
 *
 * What it catches: a context-id vote that lets a round hold the rank's
 * free ids while it waits for a member that is busy elsewhere (here, for
 * the program's lock, held by a thread whose own dup of MPI_COMM_SELF
 * needs those ids): the job then hangs and the test times out. It also
 * catches votes of one call matched by another's (same parent, other
 * tag). Each new communicator is then used and checked: an allreduce
 * whose sum depends on the thread and the round, and a ring exchange whose
 * messages name them, so two communicators that shared a context id would
 * cross their traffic.
 */
#include <pthread.h>

#include "mpi_test_util.h"

#define THREADS 4
#define ROUNDS 150

static int rank, size;
static MPI_Comm base[THREADS];
static MPI_Group world_group, low_group; /* low: ranks 0 .. size / 2 */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

static void dup_self(int t, int i)
{
    MPI_Comm s;
    int mine = t * 1000 + i, sum = -1;

    pthread_mutex_lock(&self_lock);
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &s));
    pthread_mutex_unlock(&self_lock);
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, s));
    CHECK(sum == mine, "thread %d round %d: self sum %d", t, i, sum);
    MPI_OK(MPI_Comm_free(&s));
}

/* c holds world ranks 0 .. n - 1 in order: check it, then use it. */
static void check_new(MPI_Comm c, int n, int t, int i)
{
    int r = -1, got_n = 0, sum = -1, got = -1;
    int mine = (rank + 1) * 100 + t * 10 + i % 10;
    int want = 100 * n * (n + 1) / 2 + n * (t * 10 + i % 10);
    int next = (rank + 1) % n, prev = (rank + n - 1) % n;
    int tagged = t * 100000 + i * 100 + rank;

    CHECK(c != MPI_COMM_NULL, "thread %d round %d: no communicator", t, i);
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &got_n));
    CHECK(r == rank && got_n == n, "thread %d round %d: rank %d of %d, want %d of %d",
          t, i, r, got_n, rank, n);
    MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == want, "thread %d round %d: sum %d, want %d", t, i, sum, want);
    MPI_OK(MPI_Sendrecv(&tagged, 1, MPI_INT, next, 0, &got, 1, MPI_INT, prev, 0,
                        c, MPI_STATUS_IGNORE));
    CHECK(got == t * 100000 + i * 100 + prev, "thread %d round %d: got %d", t, i,
          got);
}

/* MPI_Comm_create_group over parent (world ranks in order) for group g of
 * its first n ranks; ranks outside g do not call it. */
static void create_check_free(MPI_Comm parent, MPI_Group g, int n, int t, int i)
{
    MPI_Comm c = MPI_COMM_NULL;

    if (rank >= n)
        return;
    MPI_OK(MPI_Comm_create_group(parent, g, t, &c));
    check_new(c, n, t, i);
    MPI_OK(MPI_Comm_free(&c));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;

    for (int i = 0; i < ROUNDS; i++) {
        create_check_free(base[t], world_group, size, t, i);
        dup_self(t, i);
        create_check_free(MPI_COMM_WORLD, low_group, size / 2 + 1, t, i);
        create_check_free(MPI_COMM_WORLD, world_group, size, t, i);
    }
    return NULL;
}

static void make_groups(void)
{
    int range[1][3] = { { 0, size / 2, 1 } };

    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    MPI_OK(MPI_Group_range_incl(world_group, 1, range, &low_group));
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
            printf("comm_create_group_threads: skipped (no MPI_THREAD_MULTIPLE)\n");
        MPI_Finalize();
        return 0;
    }
    make_groups();
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
              "pthread_create");
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_join(th[t], NULL) == 0, "pthread_join");
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_free(&base[t]));
    MPI_OK(MPI_Group_free(&low_group));
    MPI_OK(MPI_Group_free(&world_group));
    MPI_Finalize();
    if (rank == 0)
        printf("comm_create_group_threads: ok (%d ranks, %d threads x %d rounds)\n",
               size, THREADS, ROUNDS);
    return 0;
}
