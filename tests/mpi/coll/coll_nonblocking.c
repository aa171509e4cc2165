/* Nonblocking collectives: every MPI_I* collective started back to back
 * on one communicator (so many are outstanding at once, and their
 * messages must not mix), the caller computing meanwhile, then completed
 * in reverse order; results against serial computations. Also: rounds of
 * MPI_Iallreduce polled with MPI_Test while computing; and a request
 * completed by MPI_Wait in another thread while the starting thread
 * computes without calling MPI at all; a communicator freed while its
 * collective is pending; and (Weft) a long broadcast whose root computes
 * without any MPI call until the receivers have the data.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkstemp, ftruncate */
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "coll_test.h"

#define N 1000        /* elements per collective */
#define NBIG 50000    /* a long allreduce (another algorithm) */
#define POISON (-7)

static int me, np;

enum { BARRIER, BCAST, ALLRED, ALLRED_BIG, REDUCE_MAT, ALLGATHER, ALLTOALL, GATHER,
       SCATTER, SCAN, EXSCAN, RSB, ALLGATHERV, ALLTOALLV, NOPS };

typedef struct bufs {
    int *s[NOPS], *r[NOPS];
    mat2 ms[N], mr[N];
    int vc[64], vd[64], sc[64]; /* v forms: rank q's count, place; sends */
} bufs;

static volatile double sink;

static void compute(int rounds)
{
    double x = 0;

    for (int i = 0; i < rounds * 100000; i++)
        x += (double)(i % 7) * 0.5;
    sink = x;
}

static int *ints(long n, int r, int seed)
{
    int *b = xmalloc((size_t)n * sizeof *b);

    for (long i = 0; i < n; i++)
        b[i] = r >= 0 ? coll_val(r, i, seed) : POISON;
    return b;
}

static void start_all(bufs *b, MPI_Request *rq)
{
    int root = np - 1;

    for (int q = 0; q < np; q++)
        b->vc[q] = q % 3 + 1, b->vd[q] = q * 4, b->sc[q] = me % 3 + 1;
    for (int i = 0; i < NOPS; i++)
        b->s[i] = ints((long)N * np, me, i), b->r[i] = ints((long)N * np + 4 * np, -1, 0);
    free(b->s[ALLRED_BIG]), free(b->r[ALLRED_BIG]);
    b->s[ALLRED_BIG] = ints(NBIG, me, 99), b->r[ALLRED_BIG] = ints(NBIG, -1, 0);
    for (int i = 0; i < N; i++)
        b->ms[i] = mat_of(me, i, 5);
    if (me == 0)
        memcpy(b->r[BCAST], b->s[BCAST], N * sizeof(int));
    MPI_OK(MPI_Ibarrier(MPI_COMM_WORLD, &rq[BARRIER]));
    MPI_OK(MPI_Ibcast(b->r[BCAST], N, MPI_INT, 0, MPI_COMM_WORLD, &rq[BCAST]));
    MPI_OK(MPI_Iallreduce(b->s[ALLRED], b->r[ALLRED], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                          &rq[ALLRED]));
    MPI_OK(MPI_Iallreduce(b->s[ALLRED_BIG], b->r[ALLRED_BIG], NBIG, MPI_INT, MPI_MAX,
                          MPI_COMM_WORLD, &rq[ALLRED_BIG]));
    MPI_OK(MPI_Ireduce(b->ms, b->mr, N, mat_type, mat_op, root, MPI_COMM_WORLD,
                       &rq[REDUCE_MAT]));
    MPI_OK(MPI_Iallgather(b->s[ALLGATHER], N, MPI_INT, b->r[ALLGATHER], N, MPI_INT,
                          MPI_COMM_WORLD, &rq[ALLGATHER]));
    MPI_OK(MPI_Ialltoall(b->s[ALLTOALL], N, MPI_INT, b->r[ALLTOALL], N, MPI_INT,
                         MPI_COMM_WORLD, &rq[ALLTOALL]));
    MPI_OK(MPI_Igather(b->s[GATHER], N, MPI_INT, b->r[GATHER], N, MPI_INT, root,
                       MPI_COMM_WORLD, &rq[GATHER]));
    MPI_OK(MPI_Iscatter(b->s[SCATTER], N, MPI_INT, b->r[SCATTER], N, MPI_INT, root,
                        MPI_COMM_WORLD, &rq[SCATTER]));
    MPI_OK(MPI_Iscan(b->s[SCAN], b->r[SCAN], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[SCAN]));
    MPI_OK(MPI_Iexscan(b->s[EXSCAN], b->r[EXSCAN], N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                       &rq[EXSCAN]));
    MPI_OK(MPI_Ireduce_scatter_block(b->s[RSB], b->r[RSB], N, MPI_INT, MPI_SUM,
                                     MPI_COMM_WORLD, &rq[RSB]));
    MPI_OK(MPI_Iallgatherv(b->s[ALLGATHERV], b->vc[me], MPI_INT, b->r[ALLGATHERV], b->vc,
                           b->vd, MPI_INT, MPI_COMM_WORLD, &rq[ALLGATHERV]));
    MPI_OK(MPI_Ialltoallv(b->s[ALLTOALLV], b->sc, b->vd, MPI_INT, b->r[ALLTOALLV], b->vc,
                          b->vd, MPI_INT, MPI_COMM_WORLD, &rq[ALLTOALLV]));
}

static int sum_of(long i, int seed, int upto)
{
    int s = 0;

    for (int q = 0; q < upto; q++)
        s += coll_val(q, i, seed);
    return s;
}

static void check_all(bufs *b)
{
    int root = np - 1;

    for (int i = 0; i < N; i++) {
        CHECK(b->r[BCAST][i] == coll_val(0, i, BCAST), "ibcast [%d]", i);
        CHECK(b->r[ALLRED][i] == sum_of(i, ALLRED, np), "iallreduce [%d]", i);
        CHECK(me != root || mat_eq(b->mr[i], mat_range(0, np, i, 5)),
              "ireduce non-commutative [%d]", i);
        CHECK(b->r[SCATTER][i] == coll_val(root, (long)me * N + i, SCATTER), "iscatter [%d]", i);
        CHECK(b->r[SCAN][i] == sum_of(i, SCAN, me + 1), "iscan [%d]", i);
        CHECK(me == 0 || b->r[EXSCAN][i] == sum_of(i, EXSCAN, me), "iexscan [%d]", i);
        CHECK(b->r[RSB][i] == sum_of((long)me * N + i, RSB, np), "ireduce_scatter_block [%d]", i);
        for (int q = 0; q < np; q++) {
            CHECK(b->r[ALLGATHER][q * N + i] == coll_val(q, i, ALLGATHER), "iallgather");
            CHECK(b->r[ALLTOALL][q * N + i] == coll_val(q, (long)me * N + i, ALLTOALL),
                  "ialltoall q=%d [%d]", q, i);
            CHECK(me != root || b->r[GATHER][q * N + i] == coll_val(q, i, GATHER), "igather");
        }
    }
    for (int i = 0; i < NBIG; i++)
        CHECK(b->r[ALLRED_BIG][i] == coll_val(np - 1, i, 99), "iallreduce max [%d]", i);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < b->vc[q]; i++) {
            CHECK(b->r[ALLGATHERV][b->vd[q] + i] == coll_val(q, i, ALLGATHERV), "iallgatherv");
            CHECK(b->r[ALLTOALLV][b->vd[q] + i] == coll_val(q, b->vd[me] + i, ALLTOALLV),
                  "ialltoallv q=%d [%d]", q, i);
        }
}

static void many_outstanding(void)
{
    bufs *b = xmalloc(sizeof *b);
    MPI_Request rq[NOPS];

    start_all(b, rq);
    compute(5);
    for (int i = NOPS - 1; i >= 0; i--)
        MPI_OK(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
    for (int i = 0; i < NOPS; i++)
        CHECK(rq[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    check_all(b);
    for (int i = 0; i < NOPS; i++)
        free(b->s[i]), free(b->r[i]);
    free(b);
}

static void polled_rounds(void)
{
    for (int round = 0; round < 20; round++) {
        int x = me + round, sum = -1, flag = 0;
        MPI_Request r;
        MPI_OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
        while (!flag) {
            compute(1);
            MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        }
        CHECK(sum == np * (np - 1) / 2 + np * round, "round %d: sum %d", round, sum);
    }
}

/* The starting thread computes without MPI calls until a helper thread's
 * MPI_Wait on its request returns. */
typedef struct helper_arg {
    MPI_Request req;
    int done; /* atomic */
} helper_arg;

static void *helper(void *p)
{
    helper_arg *h = p;

    MPI_OK(MPI_Wait(&h->req, MPI_STATUS_IGNORE));
    __atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void waited_elsewhere(void)
{
    int *s = ints(NBIG, me, 7), *r = ints(NBIG, -1, 0);
    helper_arg h = { MPI_REQUEST_NULL, 0 };
    pthread_t t;

    MPI_OK(MPI_Iallreduce(s, r, NBIG, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &h.req));
    CHECK(pthread_create(&t, NULL, helper, &h) == 0, "pthread_create");
    while (!__atomic_load_n(&h.done, __ATOMIC_ACQUIRE))
        compute(1);
    pthread_join(t, NULL);
    for (int i = 0; i < NBIG; i++)
        CHECK(r[i] == sum_of(i, 7, np), "allreduce waited elsewhere [%d]", i);
    free(s);
    free(r);
}

/* MPI_Comm_free while a nonblocking collective on the communicator is
 * pending: the collective still completes (MPI-3.1 6.4.3). Open MPI 4.1
 * crashes in its progress engine on this (libnbc touches the freed
 * communicator), so it is run under other MPIs only. */
#ifndef OPEN_MPI
static void freed_while_pending(void)
{
    int x = me + 1, sum = 0;
    MPI_Comm dup;
    MPI_Request r;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup, &r));
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(sum == np * (np + 1) / 2, "allreduce on a freed comm: %d", sum);
}
#endif

#ifdef WEFT_MPI
/* Weft only (other MPIs may progress only inside MPI calls, which the
 * standard allows): the root of a long MPI_Ibcast (rendezvous: it must
 * answer each receiver's clear-to-send) computes without calling MPI
 * until every receiver reports, through a shared file mapping, that its
 * blocking MPI_Bcast returned. No progress without calls: a hang, which
 * mpirun's --timeout turns into a failure. */
static void progress_without_calls(void)
{
    char path[64] = "/tmp/weft-coll-XXXXXX";
    int n = 1 << 18, *buf = xmalloc((size_t)n * sizeof *buf), fd = -1, *done;
    MPI_Request r;

    if (me == 0) {
        fd = mkstemp(path);
        CHECK(fd >= 0 && ftruncate(fd, 4096) == 0, "shared file");
    }
    MPI_OK(MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (me != 0)
        fd = open(path, O_RDWR);
    CHECK(fd >= 0, "open %s", path);
    done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(done != MAP_FAILED, "mmap");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* everyone mapped it */
    for (int i = 0; i < n; i++)
        buf[i] = me == 0 ? coll_val(0, i, 77) : -1;
    if (me == 0) {
        MPI_OK(MPI_Ibcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD, &r));
        while (__atomic_load_n(done, __ATOMIC_ACQUIRE) < np - 1)
            compute(1);
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        unlink(path);
    } else {
        MPI_OK(MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD));
        __atomic_add_fetch(done, 1, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == coll_val(0, i, 77), "ibcast without calls [%d]", i);
    munmap(done, 4096);
    close(fd);
    free(buf);
}
#endif

int main(int argc, char **argv)
{
    int provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK(np <= 64, "at most 64 ranks");
    mat_setup();
    many_outstanding();
    polled_rounds();
    waited_elsewhere();
#ifndef OPEN_MPI
    freed_while_pending();
#endif
#ifdef WEFT_MPI
    progress_without_calls();
#endif
    many_outstanding();
    mat_teardown();
    MPI_OK(MPI_Finalize());
    return 0;
}
