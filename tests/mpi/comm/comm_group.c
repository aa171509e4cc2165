/* Groups: MPI_Comm_group, MPI_Group_size/rank, incl, excl, range_incl,
 * range_excl, union, intersection, difference, translate_ranks, compare,
 * free, MPI_GROUP_EMPTY, and the error classes of bad ranks and handles
 * under MPI_ERRORS_RETURN. Expected results are computed by hand from the
 * world ranks.
 */
#include "mpi_test_util.h"

static int rank, size;

/* g's members as world ranks, through translate_ranks. */
static void members(MPI_Group g, MPI_Group world, int *out, int *n)
{
    int in[64];

    MPI_OK(MPI_Group_size(g, n));
    for (int i = 0; i < *n; i++)
        in[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, *n, in, world, out));
}

static void expect(MPI_Group g, MPI_Group world, const int *want, int n,
                   const char *what)
{
    int got[64], m, r;

    members(g, world, got, &m);
    CHECK(m == n, "%s: size %d, expected %d", what, m, n);
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: member %d is %d, expected %d", what, i,
              got[i], want[i]);
    MPI_OK(MPI_Group_rank(g, &r));
    int mine = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (want[i] == rank)
            mine = i;
    CHECK(r == mine, "%s: my rank %d, expected %d", what, r, mine);
}

static void drop(MPI_Group *g)
{
    if (*g != MPI_GROUP_EMPTY) /* Open MPI 4.1 crashes freeing it */
        MPI_OK(MPI_Group_free(g));
}

static void check_algebra(MPI_Group w)
{
    MPI_Group a, b, u, x, d, r;
    int evens[64], odds[64], rev[64], ne = 0, no = 0, want[64], n, res;

    for (int i = 0; i < size; i++) {
        if (i % 2 == 0)
            evens[ne++] = i;
        else
            odds[no++] = i;
        rev[i] = size - 1 - i;
    }
    MPI_OK(MPI_Group_incl(w, ne, evens, &a));
    expect(a, w, evens, ne, "incl evens");
    MPI_OK(MPI_Group_excl(w, ne, evens, &b));
    expect(b, w, odds, no, "excl evens");
    /* union: a's members, then b's not in a */
    MPI_OK(MPI_Group_union(a, b, &u));
    n = 0;
    for (int i = 0; i < ne; i++)
        want[n++] = evens[i];
    for (int i = 0; i < no; i++)
        want[n++] = odds[i];
    expect(u, w, want, n, "union");
    MPI_OK(MPI_Group_compare(u, w, &res));
    CHECK(res == (size <= 2 ? MPI_IDENT : MPI_SIMILAR), "union vs world %d", res);
    MPI_OK(MPI_Group_intersection(a, b, &x));
    CHECK(x == MPI_GROUP_EMPTY, "disjoint intersection is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_intersection(w, a, &d));
    expect(d, w, evens, ne, "intersection");
    drop(&d);
    MPI_OK(MPI_Group_difference(w, a, &d));
    expect(d, w, odds, no, "difference");
    drop(&d);
    MPI_OK(MPI_Group_difference(a, w, &d));
    CHECK(d == MPI_GROUP_EMPTY, "a - world not empty");
    /* reversed order: similar, not identical (for size > 1) */
    MPI_OK(MPI_Group_incl(w, size, rev, &r));
    expect(r, w, rev, size, "reversed");
    MPI_OK(MPI_Group_compare(r, w, &res));
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed vs world %d", res);
    MPI_OK(MPI_Group_compare(a, w, &res));
    CHECK(res == (size == 1 ? MPI_IDENT : MPI_UNEQUAL), "evens vs world %d", res);
    drop(&a);
    drop(&b);
    drop(&u);
    drop(&r);
}

static void check_ranges(MPI_Group w)
{
    MPI_Group g;
    int want[64], n = 0;

    /* every third rank from the top, down to 0: (size-1, 0, -3) */
    int tri[1][3] = { { size - 1, 0, -3 } };
    for (int i = size - 1; i >= 0; i -= 3)
        want[n++] = i;
    MPI_OK(MPI_Group_range_incl(w, 1, tri, &g));
    expect(g, w, want, n, "range_incl");
    drop(&g);
    /* exclude the same: what is left, in world order */
    MPI_OK(MPI_Group_range_excl(w, 1, tri, &g));
    n = 0;
    for (int i = 0; i < size; i++)
        if ((size - 1 - i) % 3 != 0)
            want[n++] = i;
    expect(g, w, want, n, "range_excl");
    drop(&g);
    /* two triplets: (0, 0, 1) and (size-1, size-1, 1) */
    if (size > 1) {
        int two[2][3] = { { 0, 0, 1 }, { size - 1, size - 1, 5 } };
        int ends[2] = { 0, size - 1 };
        MPI_OK(MPI_Group_range_incl(w, 2, two, &g));
        expect(g, w, ends, 2, "two triplets");
        drop(&g);
    }
}

static void check_translate(MPI_Group w)
{
    MPI_Group rev, empty;
    int in[3] = { 0, MPI_PROC_NULL, size - 1 }, out[3], ranks[64];

    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    MPI_OK(MPI_Group_incl(w, size, ranks, &rev));
    MPI_OK(MPI_Group_translate_ranks(w, 3, in, rev, out));
    CHECK(out[0] == size - 1 && out[1] == MPI_PROC_NULL && out[2] == 0,
          "translate: %d %d %d", out[0], out[1], out[2]);
    MPI_OK(MPI_Group_incl(w, 0, ranks, &empty));
    CHECK(empty == MPI_GROUP_EMPTY, "incl of nothing is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_translate_ranks(w, 1, in, MPI_GROUP_EMPTY, out));
    CHECK(out[0] == MPI_UNDEFINED, "translate into empty: %d", out[0]);
    int s, r;
    MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &s));
    MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    CHECK(s == 0 && r == MPI_UNDEFINED, "MPI_GROUP_EMPTY: size %d rank %d", s, r);
    drop(&rev);
}

/* MPI_Comm_group of a split matches the members chosen. */
static void check_comm_group(MPI_Group w)
{
    MPI_Comm c;
    MPI_Group g;
    int want[64], n = 0;

    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &c));
    for (int i = size - 1; i >= 0; i--)
        if (i % 3 == rank % 3)
            want[n++] = i;
    MPI_OK(MPI_Comm_group(c, &g));
    expect(g, w, want, n, "split's group");
    MPI_OK(MPI_Comm_free(&c)); /* the group outlives the communicator */
    expect(g, w, want, n, "split's group after free");
    MPI_OK(MPI_Group_free(&g));
    CHECK(g == MPI_GROUP_NULL, "free did not null the group");
}

static void check_errors(MPI_Group w)
{
    MPI_Group g;
    int bad[2] = { size, 0 }, cls;

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    cls = MPI_Group_incl(w, 1, bad, &g);
    CHECK(cls == MPI_ERR_RANK, "incl of rank %d: %d", size, cls);
    cls = MPI_Group_excl(w, 1, bad, &g);
    CHECK(cls == MPI_ERR_RANK, "excl of rank %d: %d", size, cls);
    int zero[1][3] = { { 0, 0, 0 } };
    cls = MPI_Group_range_incl(w, 1, zero, &g);
    CHECK(cls == MPI_ERR_RANK || cls == MPI_ERR_ARG, "stride 0: %d", cls);
    int out_of[1][3] = { { 0, size, 1 } };
    cls = MPI_Group_range_incl(w, 1, out_of, &g);
    CHECK(cls == MPI_ERR_RANK, "range past the end: %d", cls);
    cls = MPI_Group_size(MPI_GROUP_NULL, &cls);
    CHECK(cls == MPI_ERR_GROUP, "size of MPI_GROUP_NULL: %d", cls);
    g = MPI_GROUP_NULL;
    cls = MPI_Group_free(&g);
    CHECK(cls == MPI_ERR_GROUP, "free of MPI_GROUP_NULL: %d", cls);
    cls = MPI_Comm_group(MPI_COMM_NULL, &g);
    CHECK(cls == MPI_ERR_COMM, "group of MPI_COMM_NULL: %d", cls);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_Group w;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "too many ranks");
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
    check_algebra(w);
    check_ranges(w);
    check_translate(w);
    check_comm_group(w);
    check_errors(w);
    MPI_OK(MPI_Group_free(&w));
    MPI_Finalize();
    if (rank == 0)
        printf("comm_group: ok (%d ranks)\n", size);
    return 0;
}
