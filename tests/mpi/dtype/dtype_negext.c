/* Negative extents: MPI_Type_create_resized with extent < 0 describes a
 * reversed layout (element i starts i * |extent| bytes below the first).
 * Checks the bounds of such types and of types built from them (the
 * values MPICH's lbub test expects), pack and unpack byte-exact with the
 * gaps untouched, and point-to-point with count > 1: an array sent
 * through the reversed type arrives reversed, small (eager) and large
 * (rendezvous), and received through it lands back in order. Ranks 0 and
 * 1 talk; any other rank talks to itself; on one rank, rank 0 does. */
#include "mpi_test_util.h"

#define N 64
#define BIG 100000 /* ints: 400 KB, above any eager limit */

static int me, peer;

static void expect_layout(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint ext,
                          MPI_Aint tlb, MPI_Aint text, const char *what)
{
    MPI_Aint a, b;
    MPI_Count c, d;
    int s;

    MPI_OK(MPI_Type_size(t, &s));
    CHECK(s == size, "%s: size %d, want %d", what, s, size);
    MPI_OK(MPI_Type_get_extent(t, &a, &b));
    CHECK(a == lb && b == ext, "%s: lb %ld extent %ld, want %ld %ld", what,
          (long)a, (long)b, (long)lb, (long)ext);
    MPI_OK(MPI_Type_get_true_extent(t, &a, &b));
    CHECK(a == tlb && b == text, "%s: true lb %ld extent %ld, want %ld %ld",
          what, (long)a, (long)b, (long)tlb, (long)text);
    MPI_OK(MPI_Type_get_extent_x(t, &c, &d));
    CHECK(c == lb && d == ext, "%s: extent_x %lld %lld", what, (long long)c,
          (long long)d);
    MPI_OK(MPI_Type_get_true_extent_x(t, &c, &d));
    CHECK(c == tlb && d == text, "%s: true_extent_x %lld %lld", what,
          (long long)c, (long long)d);
}

/* Pack `count` of t from src + base (src[i] = i): the packed ints must be
 * idx[0..n-1]; unpacked into a buffer of -1s, exactly those ints come
 * back and nothing else changes. */
static void round_trip(MPI_Datatype t, int count, int base, const int *idx,
                       int n, const char *what)
{
    int src[N], back[N], packed[N], pos = 0, size;

    for (int i = 0; i < N; i++) {
        src[i] = i;
        back[i] = -1;
    }
    MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
    CHECK(size >= n * (int)sizeof(int), "%s: pack size %d", what, size);
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

static MPI_Datatype reversed_int(void)
{
    MPI_Datatype rev;

    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, -(MPI_Aint)sizeof(int), &rev));
    MPI_OK(MPI_Type_commit(&rev));
    return rev;
}

static void bounds(void)
{
    MPI_Datatype rev = reversed_int(), bytes, t, c3, v, rv;

    expect_layout(rev, 4, 0, -4, 0, 4, "resized(int, 0, -4)");
    round_trip(rev, 5, 4, (int[]){ 4, 3, 2, 1, 0 }, 5, "reversed int");

    /* MPICH lbub: { (LB,6), 4*(BYTE,0), (UB,-3) } and 3 of it */
    MPI_OK(MPI_Type_contiguous(4, MPI_BYTE, &bytes));
    MPI_OK(MPI_Type_create_resized(bytes, 6, -9, &t));
    expect_layout(t, 4, 6, -9, 0, 4, "resized(4 bytes, 6, -9)");
    MPI_OK(MPI_Type_contiguous(3, t, &c3));
    expect_layout(c3, 12, -12, 9, -18, 22, "contiguous(3, extent -9)");

    /* 2 blocks of 2 reversed ints, 3 extents (-12 bytes) apart */
    MPI_OK(MPI_Type_vector(2, 2, 3, rev, &v));
    MPI_OK(MPI_Type_commit(&v));
    expect_layout(v, 16, -16, 12, -16, 20, "vector(2, 2, 3, reversed)");
    round_trip(v, 1, 20, (int[]){ 20, 19, 17, 16 }, 4, "vector of reversed");

    /* two reversed ints: lb markers at 0 and -4, ub markers at -4 and -8,
     * so lb = ub = -4 and the extent is 0 */
    MPI_OK(MPI_Type_contiguous(2, rev, &rv));
    MPI_OK(MPI_Type_commit(&rv));
    expect_layout(rv, 8, -4, 0, -4, 8, "contiguous(2, reversed)");
    round_trip(rv, 1, 9, (int[]){ 9, 8 }, 2, "contiguous of reversed");

    MPI_OK(MPI_Type_free(&rv));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&c3));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&bytes));
    MPI_OK(MPI_Type_free(&rev));
}

/* n ints sent as n reversed ints from the last one: they arrive reversed;
 * sent back in order and received through the reversed type, they land
 * reversed again, i.e. as they were, without touching the guard ints. */
static void exchange(int n, int tag)
{
    MPI_Datatype rev = reversed_int();
    int *a = malloc((size_t)(n + 2) * sizeof *a);
    int *b = malloc((size_t)n * sizeof *b), count;
    MPI_Status st;

    CHECK(a && b, "memory");
    for (int i = 0; i < n + 2; i++)
        a[i] = i == 0 || i == n + 1 ? -7 : me * 1000000 + i - 1;
    MPI_OK(MPI_Sendrecv(a + n, n, rev, peer, tag, b, n, MPI_INT, peer, tag,
                        MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, rev, &count));
    CHECK(count == n, "reversed -> ints: count %d, want %d", count, n);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == peer * 1000000 + n - 1 - i,
              "reversed -> ints: [%d] = %d, want %d", i, b[i],
              peer * 1000000 + n - 1 - i);
    for (int i = 1; i <= n; i++)
        a[i] = -1;
    MPI_OK(MPI_Sendrecv(b, n, MPI_INT, peer, tag + 1, a + n, n, rev, peer,
                        tag + 1, MPI_COMM_WORLD, &st));
    for (int i = 0; i < n + 2; i++) {
        int want = i == 0 || i == n + 1 ? -7 : me * 1000000 + i - 1;

        CHECK(a[i] == want, "ints -> reversed: [%d] = %d, want %d", i, a[i],
              want);
    }
    MPI_OK(MPI_Type_free(&rev));
    free(b);
    free(a);
}

int main(int argc, char **argv)
{
    int size;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    peer = me < 2 && size > 1 ? 1 - me : me;
    bounds();
    exchange(5, 10);
    exchange(BIG, 20);
    MPI_OK(MPI_Finalize());
    return 0;
}
