/* A rank whose memory the others may not read still exchanges every kind
 * of message correctly: rank 1 makes itself non-dumpable
 * (prctl(PR_SET_DUMPABLE, 0)) before MPI_Init, so an unprivileged process
 * of the same user may neither read its memory (process_vm_readv) nor take
 * its file descriptors (pidfd_getfd). An MPI library must then move its
 * messages some other way; a privileged user (root) is still allowed, and
 * the test passes either way: it checks results, not the path taken.
 *
 * Checks, between every ordered pair of ranks (so to and from rank 1):
 * messages of 0 bytes to 4 MiB, around 16 KiB and 128 KiB too, arrive with
 * their size and every byte; blocking MPI_Sendrecv around a ring; and
 * MPI_Bcast (rooted at rank 1 and at rank 0), MPI_Allreduce,
 * MPI_Allgather, MPI_Alltoall and MPI_Barrier of up to a few MiB give
 * the right values.
 *
 * The rank is known before MPI_Init from the launcher's environment
 * (WEFT_MPI_RANK, OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK); the test
 * fails if none is set, or if it disagrees with MPI_Comm_rank.
 */
#include <sys/prctl.h>

#include "mpi_test_util.h"
#include "shm_util.h"

#define DENIED 1 /* the rank that is not dumpable */
#define KIB ((size_t)1024)
#define MIB (KIB * KIB)

static int rank, size;

static const size_t sizes[] = {
    0, 1, 100, 16 * KIB - 1, 16 * KIB, 16 * KIB + 1, 128 * KIB + 1, MIB, 3 * MIB + 7, 4 * MIB,
};
#define NSIZES (sizeof sizes / sizeof *sizes)

static int rank_from_env(void)
{
    static const char *const vars[] = { "WEFT_MPI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                        "PMI_RANK" };

    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return atoi(getenv(vars[i]));
    return -1;
}

static uint64_t seed_of(int from, int to, size_t k)
{
    return shm_key((uint64_t)from, (uint64_t)to, (uint64_t)k, 0xde9);
}

static unsigned char *alloc_buf(size_t n)
{
    unsigned char *b = malloc(n ? n : 1);

    CHECK(b, "no memory for %zu bytes", n);
    return b;
}

/* Every rank sends sizes[k] bytes to every other rank and receives theirs. */
static void all_pairs(size_t k)
{
    size_t n = sizes[k];
    unsigned char **out = calloc((size_t)size, sizeof *out);
    unsigned char **in = calloc((size_t)size, sizeof *in);
    MPI_Request *req = calloc((size_t)size * 2, sizeof *req);
    MPI_Status *st = calloc((size_t)size * 2, sizeof *st);
    int nr = 0, count;

    CHECK(out && in && req && st, "no memory");
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        in[p] = alloc_buf(n);
        MPI_OK(MPI_Irecv(in[p], (int)n, MPI_BYTE, p, (int)k, MPI_COMM_WORLD, &req[nr++]));
    }
    for (int p = 0; p < size; p++) {
        if (p == rank)
            continue;
        out[p] = alloc_buf(n);
        shm_fill(out[p], n, seed_of(rank, p, k));
        MPI_OK(MPI_Isend(out[p], (int)n, MPI_BYTE, p, (int)k, MPI_COMM_WORLD, &req[nr++]));
    }
    MPI_OK(MPI_Waitall(nr, req, st));
    for (int p = 0, i = 0; p < size; p++) {
        if (p == rank)
            continue;
        MPI_OK(MPI_Get_count(&st[i++], MPI_BYTE, &count));
        CHECK((size_t)count == n, "from rank %d: %d bytes of %zu", p, count, n);
        size_t bad = shm_verify(in[p], n, seed_of(p, rank, k));
        CHECK(bad == (size_t)-1, "from rank %d, %zu bytes: byte %zu differs", p, n, bad);
        free(in[p]);
        free(out[p]);
    }
    free(out);
    free(in);
    free(req);
    free(st);
}

/* Blocking exchanges around the ring, both ways. */
static void ring(size_t n)
{
    unsigned char *out = alloc_buf(n), *in = alloc_buf(n);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    for (int dir = 0; dir < 2; dir++) {
        int to = dir ? prev : next, from = dir ? next : prev;
        shm_fill(out, n, seed_of(rank, to, 100 + (size_t)dir));
        MPI_OK(MPI_Sendrecv(out, (int)n, MPI_BYTE, to, 50, in, (int)n, MPI_BYTE, from, 50,
                            MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        size_t bad = shm_verify(in, n, seed_of(from, rank, 100 + (size_t)dir));
        CHECK(bad == (size_t)-1, "ring from rank %d: byte %zu differs", from, bad);
    }
    free(out);
    free(in);
}

static void bcast_from(int root, size_t n)
{
    unsigned char *b = alloc_buf(n);

    if (rank == root)
        shm_fill(b, n, seed_of(root, -1, 200));
    MPI_OK(MPI_Bcast(b, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
    size_t bad = shm_verify(b, n, seed_of(root, -1, 200));
    CHECK(bad == (size_t)-1, "broadcast from rank %d: byte %zu differs", root, bad);
    free(b);
}

static void collectives(void)
{
    size_t nint = MIB / sizeof(int), blk = MIB;
    int *v = malloc(nint * sizeof *v), *sum = malloc(nint * sizeof *sum);
    unsigned char *out = alloc_buf(blk * (size_t)size), *in = alloc_buf(blk * (size_t)size);

    CHECK(v && sum, "no memory");
    bcast_from(DENIED % size, 2 * MIB + 3);
    bcast_from(0, 3 * MIB);
    for (size_t i = 0; i < nint; i++)
        v[i] = rank * 7 + (int)(i % 1000);
    MPI_OK(MPI_Allreduce(v, sum, (int)nint, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (size_t i = 0; i < nint; i++)
        CHECK(sum[i] == 7 * size * (size - 1) / 2 + size * (int)(i % 1000),
              "allreduce element %zu: %d", i, sum[i]);
    shm_fill(out, blk, seed_of(rank, -1, 300));
    MPI_OK(MPI_Allgather(out, (int)blk, MPI_BYTE, in, (int)blk, MPI_BYTE, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        CHECK(shm_verify(in + (size_t)p * blk, blk, seed_of(p, -1, 300)) == (size_t)-1,
              "allgather: rank %d's block differs", p);
    for (int p = 0; p < size; p++)
        shm_fill(out + (size_t)p * blk, blk, seed_of(rank, p, 400));
    MPI_OK(MPI_Alltoall(out, (int)blk, MPI_BYTE, in, (int)blk, MPI_BYTE, MPI_COMM_WORLD));
    for (int p = 0; p < size; p++)
        CHECK(shm_verify(in + (size_t)p * blk, blk, seed_of(p, rank, 400)) == (size_t)-1,
              "alltoall: rank %d's block differs", p);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free(v);
    free(sum);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    int early = rank_from_env();

    if (early == DENIED && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        perror("shm_cma_denied: prctl(PR_SET_DUMPABLE, 0)");
        return 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(early == rank, "the launcher's environment gave rank %d before MPI_Init", early);
    CHECK(size >= 2, "needs 2 ranks or more");
    if (rank == DENIED)
        CHECK(prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0, "rank %d is dumpable again", rank);
    for (size_t k = 0; k < NSIZES; k++)
        all_pairs(k);
    ring(1);
    ring(2 * MIB + 1);
    collectives();
    for (size_t k = NSIZES; k-- > 0;) /* again, largest first, after the collectives */
        all_pairs(k);
    MPI_Finalize();
    if (rank == 0)
        printf("shm_cma_denied: ok\n");
    return 0;
}
