/* Payload bytes never pass for a ring record. The shared-memory transport
 * finds a small message's record by a stamp word on its cache line (the
 * record's ring position and kind) rather than by the ring's tail. A
 * payload that went through the ring a lap earlier leaves its bytes on
 * those lines; this test fills them with exactly the words that would
 * pass for the next lap's stamps, then makes rank 1 look at each of those
 * lines before rank 0 writes a record there.
 *
 * Layout assumed (the transport's, for a fresh pair of ranks): a ring of
 * RING_BYTES per ordered pair; 64-byte records on line boundaries; a
 * payload of more than 8 bytes follows its record, the next record starts
 * on the line after it; a smaller one rides in its record. From rank 0 to
 * rank 1, in order:
 *   1. the forged payload, record at 0, payload at LINE..FORGED_END: its
 *      word on each line is (position + RING_BYTES) | 1, an inline
 *      record's stamp for that line one lap on;
 *   2. small messages until position RING_BYTES;
 *   3. a plain payload of GAP_BYTES, whose next record falls on a forged
 *      line: the line after a payload is never cleared, so rank 1 must
 *      wait for the tail to cover it;
 *   4. medium messages (MEDIUM_BYTES, written whole with their record),
 *      then small ones, over the rest of the forged lines: a record that
 *      completes its frame clears the line after the frame before it is
 *      published.
 * Every message is answered before the next goes, so rank 1 always waits
 * on the next line first.
 * Checks: every message arrives in order with its size, tag and bytes. A
 * transport that trusted a stale stamp hands rank 1 a "record" made of
 * payload bytes: a wrong size, tag or value, or a hang the time limit
 * catches. Under Open MPI the program is plain point-to-point traffic.
 */
#include "mpi_test_util.h"

#define RING_BYTES ((size_t)256 * 1024)
#define LINE ((size_t)64)
#define FORGED_BYTES ((size_t)32 * 1024)
#define FORGED_END (LINE + FORGED_BYTES)
#define TO_NEXT_LAP ((RING_BYTES - FORGED_END) / LINE)
#define GAP_BYTES ((size_t)16 * 1024)
#define MEDIUM_BYTES ((size_t)200)
#define MEDIUM_MSGS 20
#define OVER_FORGED ((FORGED_END - GAP_BYTES - LINE) / LINE + 16)
#define TAG_BIG 1
#define TAG_SMALL 2
#define TAG_ACK 3

static int rank;

static void forge(uint64_t *words)
{
    for (size_t i = 0; i < FORGED_BYTES / sizeof *words; i++) {
        size_t pos = LINE + i * sizeof *words;
        words[i] = pos % LINE == 0 ? (uint64_t)(pos + RING_BYTES) | 1 : 0x5a5a5a5a00000000ull + i;
    }
}

/* Rank 0 sends `buf`, rank 1 receives, compares and answers it. */
static void big(const void *buf, size_t n, void *got)
{
    MPI_Status st;
    int count;

    if (rank == 0) {
        MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, TAG_BIG, MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        return;
    }
    memset(got, 0, n);
    MPI_OK(MPI_Recv(got, (int)n, MPI_BYTE, 0, TAG_BIG, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == (int)n && memcmp(got, buf, n) == 0, "%zu-byte payload: %d bytes, %s", n,
          count, count == (int)n ? "contents changed" : "wrong size");
    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD));
}

/* n 8-byte messages numbered from `first`. */
static void smalls(uint64_t first, size_t n)
{
    for (uint64_t i = first; i < first + n; i++) {
        if (rank == 0) {
            MPI_OK(MPI_Send(&i, 8, MPI_BYTE, 1, TAG_SMALL, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            continue;
        }
        uint64_t v = ~(uint64_t)0;
        MPI_Status st;
        int count;
        MPI_OK(MPI_Recv(&v, 8, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(st.MPI_TAG == TAG_SMALL && count == 8 && v == i,
              "small message %llu: tag %d, %d bytes, value %llu", (unsigned long long)i,
              st.MPI_TAG, count, (unsigned long long)v);
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    int size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 ranks, not %d", size);
    uint64_t *forged = malloc(FORGED_BYTES), *got = malloc(FORGED_BYTES);
    unsigned char *gap = malloc(GAP_BYTES);
    CHECK(forged && got && gap, "out of memory");
    forge(forged);
    p2p_fill(gap, GAP_BYTES, 7);
    big(forged, FORGED_BYTES, got);
    smalls(0, TO_NEXT_LAP);
    big(gap, GAP_BYTES, got);
    for (size_t i = 0; i < MEDIUM_MSGS; i++)
        big(gap + i, MEDIUM_BYTES, got);
    smalls(TO_NEXT_LAP, OVER_FORGED);
    free(forged);
    free(got);
    free(gap);
    MPI_Finalize();
    return 0;
}
