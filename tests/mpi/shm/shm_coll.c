/* Blocking collectives between the ranks of one host (barrier, bcast,
 * reduce, allreduce, allgather, alltoall: the ones Weft runs through
 * shared-memory slots up to a few KiB, and through messages beyond):
 *
 *   shapes   every size from 0 B across the slot's 4 KiB edge, every root,
 *            in place or not, non-contiguous broadcast and gather types, a
 *            non-commutative user op (rank order), and allreduce results
 *            bit-identical on every rank (doubles);
 *   barrier  no rank leaves before every rank arrived: each rank adds one
 *            to a counter in memory the ranks share (mapped by the test
 *            itself) after a random nap, and after the barrier every rank
 *            sees all the additions;
 *   reuse    communicators made and freed in a loop, with members that
 *            change from one to the next (a split by a rotating colour), so
 *            each new one may take a freed one's context id while a slow
 *            member still finishes the old one's last collective;
 *   naps     random naps of up to 2 ms before each call, so waiters fall
 *            asleep and must be woken by the last rank's arrival;
 *   threads  with MPI_THREAD_MULTIPLE, four threads per rank, each on a
 *            communicator of its own, all at once.
 * A lost wake-up shows as a hang, which the test's time limit turns into a
 * failure; nothing is judged by how long a call took. Plain MPI + POSIX:
 * it runs under Open MPI too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* nanosleep, shm_open */
#endif
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../coll/coll_test.h"
#include "shm_util.h"

#define BARRIER_ROUNDS 200
#define REUSE_ROUNDS 60
#define NAP_ROUNDS 300
#define THREADS 4
#define THREAD_ROUNDS 300
#define MAX_BYTES 8192

static int rank, size;

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* ------------------------------------------------------------- shapes */

static const int sizes[] = { 0, 1, 8, 100, 1024, 4088, 4096, 4100, 8192 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void check_bcast_bytes(MPI_Comm c, int bytes, int root, uint64_t seed)
{
    unsigned char buf[MAX_BYTES];
    int me;

    MPI_Comm_rank(c, &me);
    if (me == root)
        p2p_fill(buf, (size_t)bytes, seed);
    else
        memset(buf, 0xee, sizeof buf);
    MPI_OK(MPI_Bcast(buf, bytes, MPI_BYTE, root, c));
    CHECK(p2p_verify(buf, (size_t)bytes, seed) == (size_t)-1,
          "bcast of %d B from %d: wrong data", bytes, root);
}

/* Every other int of 2n ints, from the root: a type with holes. */
static void check_bcast_strided(int n, int root)
{
    int buf[2 * MAX_BYTES / 4];
    MPI_Datatype every_other;

    MPI_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &every_other));
    MPI_OK(MPI_Type_commit(&every_other));
    for (int i = 0; i < 2 * n; i++)
        buf[i] = rank == root ? i : -1;
    MPI_OK(MPI_Bcast(buf, 1, every_other, root, MPI_COMM_WORLD));
    for (int i = 0; i < 2 * n; i++)
        CHECK(buf[i] == (i % 2 == 0 || rank == root ? i : -1),
              "strided bcast of %d ints from %d: element %d is %d", n, root, i, buf[i]);
    MPI_OK(MPI_Type_free(&every_other));
}

static void check_sums(int n, int root, int in_place)
{
    int s[MAX_BYTES / 4], r[MAX_BYTES / 4];

    for (int i = 0; i < n; i++) {
        s[i] = (rank + 1) * 1000 + i;
        r[i] = in_place ? s[i] : -7;
    }
    const void *sb = in_place ? MPI_IN_PLACE : s;
    MPI_OK(MPI_Allreduce(sb, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(r[i] == 1000 * size * (size + 1) / 2 + size * i,
              "allreduce of %d ints: element %d is %d", n, i, r[i]);
    for (int i = 0; i < n; i++)
        r[i] = in_place ? s[i] : -7;
    sb = in_place && rank == root ? MPI_IN_PLACE : s;
    MPI_OK(MPI_Reduce(sb, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    for (int i = 0; rank == root && i < n; i++)
        CHECK(r[i] == 1000 * size * (size + 1) / 2 + size * i,
              "reduce of %d ints to %d: element %d is %d", n, root, i, r[i]);
}

static void check_rank_order(int n)
{
    mat2 s[MAX_BYTES / sizeof(mat2)], r[MAX_BYTES / sizeof(mat2)];

    mat_setup();
    for (int i = 0; i < n; i++)
        s[i] = mat_of(rank, i, n);
    MPI_OK(MPI_Allreduce(s, r, n, mat_type, mat_op, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(mat_eq(mat_range(0, size, i, n), r[i]),
              "non-commutative allreduce of %d: element %d not in rank order", n, i);
    mat_teardown();
}

/* Sums of doubles whose rounding depends on the order: every rank must
 * hold the same bits. */
static void check_identical(int n)
{
    double s[MAX_BYTES / 8] = { 0 }, r[MAX_BYTES / 8] = { 0 }, *all;

    for (int i = 0; i < n; i++)
        s[i] = 1.0 / (double)(rank * 7 + i + 3) * (rank % 2 ? 1e16 : 1.0);
    MPI_OK(MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    all = malloc((size_t)size * (size_t)(n ? n : 1) * sizeof *all);
    CHECK(all != NULL, "out of memory");
    MPI_OK(MPI_Gather(r, n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    for (int q = 1; rank == 0 && q < size; q++)
        CHECK(memcmp(all, all + (size_t)q * (size_t)n, (size_t)n * sizeof *all) == 0,
              "allreduce of %d doubles: rank %d holds other bits than rank 0", n, q);
    free(all);
}

/* Rank q's byte i of block j (alltoall: sent to rank j). */
static unsigned char gbyte(int q, int j, int i)
{
    return (unsigned char)(q * 31 + j * 7 + i);
}

/* Allgather and alltoall of `bytes` per block, plain and in place, and
 * an allgather received through a strided type (every other int). */
static void check_gathers(int bytes)
{
    size_t total = (size_t)bytes * (size_t)size;
    unsigned char *s = malloc(total + 1), *r = malloc(total + 1);
    int *strided = malloc((2 * total / 4 + 1) * sizeof(int)), ints = bytes / 4;
    MPI_Datatype vec, every_other;

    CHECK(s && r && strided, "out of memory");
    for (int in_place = 0; in_place < 2; in_place++) {
        memset(r, 0xee, total);
        for (int i = 0; i < bytes; i++)
            (in_place ? r + (size_t)rank * (size_t)bytes : s)[i] = gbyte(rank, 0, i);
        MPI_OK(MPI_Allgather(in_place ? MPI_IN_PLACE : s, bytes, MPI_BYTE, r, bytes, MPI_BYTE,
                             MPI_COMM_WORLD));
        for (int q = 0; q < size; q++)
            for (int i = 0; i < bytes; i++)
                CHECK(r[(size_t)q * (size_t)bytes + (size_t)i] == gbyte(q, 0, i),
                      "allgather of %d B (in place %d): block %d byte %d", bytes, in_place, q, i);
        for (int j = 0; j < size; j++)
            for (int i = 0; i < bytes; i++)
                (in_place ? r : s)[(size_t)j * (size_t)bytes + (size_t)i] = gbyte(rank, j, i);
        MPI_OK(MPI_Alltoall(in_place ? MPI_IN_PLACE : s, bytes, MPI_BYTE, r, bytes, MPI_BYTE,
                            MPI_COMM_WORLD));
        for (int q = 0; q < size; q++)
            for (int i = 0; i < bytes; i++)
                CHECK(r[(size_t)q * (size_t)bytes + (size_t)i] == gbyte(q, rank, i),
                      "alltoall of %d B (in place %d): block %d byte %d", bytes, in_place, q, i);
    }
    MPI_OK(MPI_Type_vector(ints, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * ints * (int)sizeof(int)), &every_other));
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Type_commit(&every_other));
    for (int i = 0; i < ints; i++)
        ((int *)s)[i] = rank * 10000 + i;
    for (int i = 0; i < 2 * ints * size; i++)
        strided[i] = -1;
    MPI_OK(MPI_Allgather(s, ints, MPI_INT, strided, 1, every_other, MPI_COMM_WORLD));
    for (int q = 0; q < size; q++)
        for (int i = 0; i < 2 * ints; i++)
            CHECK(strided[q * 2 * ints + i] == (i % 2 ? -1 : q * 10000 + i / 2),
                  "strided allgather of %d ints: block %d element %d", ints, q, i);
    MPI_OK(MPI_Type_free(&every_other));
    free(s);
    free(r);
    free(strided);
}

static void shapes(void)
{
    for (int k = 0; k < NSIZES; k++) {
        int bytes = sizes[k];
        for (int root = 0; root < size; root++) {
            check_bcast_bytes(MPI_COMM_WORLD, bytes, root, (uint64_t)(k * 64 + root));
            check_sums(bytes / 4, root, root % 2);
        }
        check_bcast_strided(bytes / 8, size - 1);
        check_rank_order(bytes / (int)sizeof(mat2));
        check_identical(bytes / 8);
        check_gathers(bytes / size);
    }
}

/* ------------------------------------------------------------ barrier */

/* A page every rank maps: rank 0 makes it and names it to the others. */
static int *shared_counters(void)
{
    char name[64];
    int fd = -1, *p;

    if (rank == 0)
        snprintf(name, sizeof name, "/shm-coll-test-%ld", (long)getpid());
    MPI_OK(MPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        CHECK(fd >= 0 && ftruncate(fd, BARRIER_ROUNDS * (long)sizeof(int)) == 0,
              "cannot make %s", name);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank != 0)
        fd = shm_open(name, O_RDWR, 0);
    CHECK(fd >= 0, "cannot open %s", name);
    p = mmap(NULL, BARRIER_ROUNDS * sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(p != MAP_FAILED, "cannot map %s", name);
    close(fd);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        shm_unlink(name);
    return p;
}

static void barrier_holds(void)
{
    int *arrived = shared_counters();
    uint64_t rng = shm_key(1, (uint64_t)rank, 0, 0);

    for (int i = 0; i < BARRIER_ROUNDS; i++) {
        if (shm_next(&rng) % 3 == 0)
            nap_us((long)shm_between(&rng, 0, 500));
        __atomic_add_fetch(&arrived[i], 1, __ATOMIC_SEQ_CST);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int seen = __atomic_load_n(&arrived[i], __ATOMIC_SEQ_CST);
        CHECK(seen == size, "barrier %d left with %d of %d ranks arrived", i, seen, size);
    }
    munmap(arrived, BARRIER_ROUNDS * sizeof(int));
}

/* -------------------------------------------------------------- reuse */

static void reuse(void)
{
    uint64_t rng = shm_key(2, (uint64_t)rank, 0, 0);

    for (int i = 0; i < REUSE_ROUNDS; i++) {
        MPI_Comm c;
        int n, me, v, sum;

        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, (rank + i) % 2 == 0 || size < 3, rank, &c));
        MPI_OK(MPI_Comm_size(c, &n));
        MPI_OK(MPI_Comm_rank(c, &me));
        v = rank + 1;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        int lo = (rank + i) % 2 == 0 || size < 3;
        int want = 0;
        for (int q = 0; q < size; q++)
            want += ((q + i) % 2 == 0 || size < 3) == lo ? q + 1 : 0;
        CHECK(sum == want, "round %d: allreduce on a split gave %d, not %d", i, sum, want);
        check_bcast_bytes(c, 64 + i, n - 1, (uint64_t)(1000 + i));
        if (shm_next(&rng) % 2) /* the last reader is late for the free */
            nap_us((long)shm_between(&rng, 0, 300));
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        check_bcast_bytes(c, 32, i % size, (uint64_t)(2000 + i));
        MPI_OK(MPI_Barrier(c));
        MPI_OK(MPI_Comm_free(&c));
    }
}

/* --------------------------------------------------------------- naps */

static void naps(MPI_Comm c, uint64_t seed, int rounds)
{
    uint64_t rng = seed;
    int me, n;

    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    for (int i = 0; i < rounds; i++) {
        if (shm_next(&rng) % 2)
            nap_us((long)shm_between(&rng, 0, 2000));
        long v = me + i, sum;
        switch (i % 3) {
        case 0:
            MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c));
            CHECK(sum == (long)n * (n - 1) / 2 + (long)n * i, "round %d: sum %ld", i, sum);
            break;
        case 1:
            check_bcast_bytes(c, 16 + i % 200, i % n, (uint64_t)(3000 + i));
            break;
        default:
            MPI_OK(MPI_Barrier(c));
        }
    }
}

/* ------------------------------------------------------------ threads */

typedef struct job {
    MPI_Comm c;
    int t;
} job;

static void *thread_main(void *arg)
{
    job *j = arg;

    naps(j->c, shm_key(4, (uint64_t)rank, (uint64_t)j->t, 0), THREAD_ROUNDS / 10);
    for (int i = 0; i < THREAD_ROUNDS; i++) {
        int v = rank * THREADS + j->t + i, sum;
        MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, j->c));
        int expect = 0;
        for (int q = 0; q < size; q++)
            expect += q * THREADS + j->t + i;
        CHECK(sum == expect, "thread %d round %d: sum %d, not %d", j->t, i, sum, expect);
    }
    return NULL;
}

static void threads(int provided)
{
    pthread_t th[THREADS];
    job jobs[THREADS];

    if (provided < MPI_THREAD_MULTIPLE)
        return;
    for (int t = 0; t < THREADS; t++) {
        jobs[t].t = t;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].c));
    }
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&th[t], NULL, thread_main, &jobs[t]) == 0, "pthread_create");
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_free(&jobs[t].c));
}

int main(int argc, char **argv)
{
    int provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    shapes();
    barrier_holds();
    reuse();
    naps(MPI_COMM_WORLD, shm_key(3, (uint64_t)rank, 0, 0), NAP_ROUNDS);
    threads(provided);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("shm_coll: %d ranks passed\n", size);
    MPI_Finalize();
    return 0;
}
