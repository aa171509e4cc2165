/* Zero-length blocks far away, and bounds that would overflow MPI_Aint.
 *
 * An hindexed type whose zero-length blocks sit at displacements near
 * LLONG_MAX, nested in a struct, packs, unpacks and travels exactly as
 * its data blocks say: a block of length 0 holds no type-map entry, so it
 * adds no bound (MPI-3.1 4.1), and neither does a child type with no
 * entry at all (an hindexed of zero-length blocks only). Types whose
 * bounds, extent or true extent would leave MPI_Aint are refused with
 * MPI_ERR_ARG, and a count whose last element's offset would overflow is
 * MPI_ERR_COUNT: nothing wraps around into a wild address.
 *
 * Weft only: Open MPI 4.1 places an empty child's bounds where it sits
 * (the struct below then spans LLONG_MAX - 4 bytes and packing two of it
 * faults) and does not check the arithmetic. Ranks 0 and 1 talk; any
 * other rank talks to itself; on one rank, rank 0 does. */
#include <limits.h>

#include "mpi_test_util.h"

#define N 64

static int me, peer;

static void expect_layout(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint ext,
                          MPI_Aint tlb, MPI_Aint text, const char *what)
{
    MPI_Aint a, b;
    int s;

    MPI_OK(MPI_Type_size(t, &s));
    CHECK(s == size, "%s: size %d, want %d", what, s, size);
    MPI_OK(MPI_Type_get_extent(t, &a, &b));
    CHECK(a == lb && b == ext, "%s: lb %lld extent %lld, want %lld %lld", what,
          (long long)a, (long long)b, (long long)lb, (long long)ext);
    MPI_OK(MPI_Type_get_true_extent(t, &a, &b));
    CHECK(a == tlb && b == text, "%s: true lb %lld extent %lld, want %lld %lld",
          what, (long long)a, (long long)b, (long long)tlb, (long long)text);
}

/* Pack `count` of t from src + base (src[i] = i): the packed ints must be
 * idx[0..n-1]; unpacked into a buffer of -1s, exactly those ints come
 * back and nothing else changes. */
static void round_trip(MPI_Datatype t, int count, int base, const int *idx,
                       int n, const char *what)
{
    int src[N], back[N], packed[N], pos = 0;

    for (int i = 0; i < N; i++) {
        src[i] = i;
        back[i] = -1;
    }
    MPI_OK(MPI_Pack(src + base, count, t, packed, sizeof packed, &pos,
                    MPI_COMM_WORLD));
    CHECK(pos == n * (int)sizeof(int), "%s: packed %d bytes, want %d", what,
          pos, n * (int)sizeof(int));
    for (int i = 0; i < n; i++)
        CHECK(packed[i] == idx[i], "%s: packed[%d] = %d, want %d", what, i,
              packed[i], idx[i]);
    pos = 0;
    MPI_OK(MPI_Unpack(packed, sizeof packed, &pos, back + base, count, t,
                      MPI_COMM_WORLD));
    CHECK(pos == n * (int)sizeof(int), "%s: unpacked %d bytes", what, pos);
    for (int i = 0; i < n; i++)
        back[idx[i]] = back[idx[i]] == idx[i] ? -2 : -3;
    for (int i = 0; i < N; i++)
        CHECK(back[i] == -1 || back[i] == -2, "%s: int %d is %d after unpack",
              what, i, back[i]);
}

/* Two of t sent from src + base (src[i] = i) arrive as the ints idx[]. */
static void travels(MPI_Datatype t, int base, const int *idx, int n, int tag)
{
    int src[N], got[N], count;
    MPI_Status st;

    for (int i = 0; i < N; i++) {
        src[i] = i;
        got[i] = -1;
    }
    MPI_OK(MPI_Sendrecv(src + base, 2, t, peer, tag, got, N, MPI_INT, peer,
                        tag, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == n, "sent 2 of the struct: %d ints arrived, want %d", count, n);
    for (int i = 0; i < N; i++)
        CHECK(got[i] == (i < n ? idx[i] : -1), "arrived [%d] = %d, want %d", i,
              got[i], i < n ? idx[i] : -1);
}

/* The reported case: zero-length blocks at LLONG_MAX - 8 and LLONG_MAX
 * around two ints, nested in a struct, and an hindexed of nothing but a
 * zero-length block at LLONG_MAX nested in a struct beside an int. */
static void far_zero_blocks(void)
{
    int bl[3] = { 0, 2, 0 }, zero = 0;
    MPI_Aint d[3] = { LLONG_MAX - 8, 4, LLONG_MAX }, far = LLONG_MAX;
    MPI_Datatype h, s, e, se;

    MPI_OK(MPI_Type_create_hindexed(3, bl, d, MPI_INT, &h));
    expect_layout(h, 8, 4, 8, 4, 8, "hindexed, zero blocks near LLONG_MAX");
    MPI_OK(MPI_Type_create_struct(3, (int[]){ 1, 1, 0 },
                                  (MPI_Aint[]){ 16, 0, LLONG_MAX },
                                  (MPI_Datatype[]){ h, MPI_INT, MPI_INT }, &s));
    MPI_OK(MPI_Type_commit(&s));
    /* ints at 20, 24 (the hindexed at 16) and 0: lb 0, ub 28 -> 28 */
    expect_layout(s, 12, 0, 28, 0, 28, "struct of it");
    round_trip(s, 2, 3, (int[]){ 8, 9, 3, 15, 16, 10 }, 6, "struct of it");
    travels(s, 3, (int[]){ 8, 9, 3, 15, 16, 10 }, 6, 10);

    MPI_OK(MPI_Type_create_hindexed(1, &zero, &far, MPI_INT, &e));
    expect_layout(e, 0, 0, 0, 0, 0, "hindexed of one empty block at LLONG_MAX");
    MPI_OK(MPI_Type_create_struct(2, (int[]){ 1, 1 },
                                  (MPI_Aint[]){ LLONG_MAX, 4 },
                                  (MPI_Datatype[]){ e, MPI_INT }, &se));
    MPI_OK(MPI_Type_commit(&se));
    expect_layout(se, 4, 4, 4, 4, 4, "struct of an empty type at LLONG_MAX");
    round_trip(se, 2, 7, (int[]){ 8, 9 }, 2, "struct of the empty type");
    travels(se, 7, (int[]){ 8, 9 }, 2, 20);
    MPI_OK(MPI_Type_free(&se));
    MPI_OK(MPI_Type_free(&e));
    MPI_OK(MPI_Type_free(&s));
    MPI_OK(MPI_Type_free(&h));
}

static void refused(int rc, int want, const char *what)
{
    int cls = -1;

    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void overflow(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, pair, big;
    int packed[4], pos = 0;

    refused(MPI_Type_create_hindexed(1, (int[]){ 1 },
                                     (MPI_Aint[]){ LLONG_MAX - 2 }, MPI_INT, &t),
            MPI_ERR_ARG, "an int ending past LLONG_MAX");
    refused(MPI_Type_create_hindexed(2, (int[]){ 1, 1 },
                                     (MPI_Aint[]){ LLONG_MIN, LLONG_MAX - 8 },
                                     MPI_INT, &t),
            MPI_ERR_ARG, "an extent of 2^64 bytes");
    refused(MPI_Type_create_resized(MPI_INT, LLONG_MAX, 8, &t), MPI_ERR_ARG,
            "an ub past LLONG_MAX");
    refused(MPI_Type_create_resized(MPI_INT, LLONG_MIN, -1, &t), MPI_ERR_ARG,
            "an ub below LLONG_MIN");
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
    refused(MPI_Type_create_struct(1, (int[]){ 1 },
                                   (MPI_Aint[]){ LLONG_MAX - 4 },
                                   (MPI_Datatype[]){ pair }, &t),
            MPI_ERR_ARG, "a struct member ending past LLONG_MAX");
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, (MPI_Aint)1 << 62, &big));
    refused(MPI_Type_contiguous(3, big, &t), MPI_ERR_ARG,
            "3 copies 2^62 bytes apart");
    MPI_OK(MPI_Type_commit(&big));
    refused(MPI_Pack(packed, 3, big, packed, sizeof packed, &pos,
                     MPI_COMM_WORLD),
            MPI_ERR_COUNT, "packing 3 elements 2^62 bytes apart");
    CHECK(pos == 0, "a refused pack moved the position to %d", pos);
    refused(MPI_Send(packed, 3, big, peer, 30, MPI_COMM_WORLD), MPI_ERR_COUNT,
            "sending 3 elements 2^62 bytes apart");
    CHECK(t == MPI_DATATYPE_NULL, "a refused constructor set its output");
    MPI_OK(MPI_Type_free(&big));
    MPI_OK(MPI_Type_free(&pair));
}

int main(int argc, char **argv)
{
    int size;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    peer = me < 2 && size > 1 ? 1 - me : me;
    far_zero_blocks();
    overflow();
    MPI_OK(MPI_Finalize());
    return 0;
}
