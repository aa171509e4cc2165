/* MPI_Comm_split, _split_type, _create, _compare and _free: the new
 * communicators have the ranks and sizes MPI prescribes, carry their own
 * traffic, and can be made and freed many times (more times than there
 * are context ids, so ids must be recycled).
 *
 * Splits checked: by parity with key = rank (ranks keep their order), by
 * parity with key = -rank (order reversed), one colour with all keys equal
 * (ties broken by parent rank), MPI_UNDEFINED for some ranks (they get
 * MPI_COMM_NULL), and a split of a split. Each new communicator runs a
 * ring exchange to show it is usable and that its ranks are what MPI says.
 */
#include "mpi_test_util.h"

static int rank, size;

/* Every rank sends its parent rank to the next one of c, around. */
static void ring(MPI_Comm c, const int *expect_world)
{
    int r, n, got, mine = rank;

    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &n));
    MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, (r + 1) % n, 7, &got, 1, MPI_INT,
                        (r + n - 1) % n, 7, c, MPI_STATUS_IGNORE));
    CHECK(got == expect_world[(r + n - 1) % n], "ring: got %d, expected %d", got,
          expect_world[(r + n - 1) % n]);
}

static void check_split(int color, int key, int sign)
{
    MPI_Comm c;
    int members[64], n = 0, r, s, res;

    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, key, &c));
    /* expected members, in new-rank order */
    for (int i = 0; i < size; i++)
        if (i % 2 == rank % 2)
            members[n++] = i;
    if (sign < 0)
        for (int i = 0; i < n / 2; i++) {
            int t = members[i];
            members[i] = members[n - 1 - i];
            members[n - 1 - i] = t;
        }
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Comm_size(c, &s));
    CHECK(s == n, "split size %d, expected %d", s, n);
    CHECK(members[r] == rank, "split rank %d holds world %d", r, members[r]);
    ring(c, members);
    MPI_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare %d", res);
    MPI_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL, "free did not null the handle");
}

static void check_ties_and_undefined(void)
{
    MPI_Comm c;
    int world[64], r, s;

    /* all keys equal: parent order */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 5, 0, &c));
    for (int i = 0; i < size; i++)
        world[i] = i;
    MPI_OK(MPI_Comm_rank(c, &r));
    CHECK(r == rank, "tie: rank %d", r);
    ring(c, world);
    MPI_OK(MPI_Comm_free(&c));
    /* the last rank opts out */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 ? MPI_UNDEFINED : 1,
                          rank, &c));
    if (rank == size - 1) {
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
        return;
    }
    MPI_OK(MPI_Comm_size(c, &s));
    CHECK(s == size - 1, "size %d", s);
    ring(c, world);
    MPI_OK(MPI_Comm_free(&c));
}

/* A split of a split: quarters of halves. */
static void check_nested(void)
{
    MPI_Comm half, quarter;
    int hr, qr, qs, expect = 0;

    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half));
    MPI_OK(MPI_Comm_rank(half, &hr));
    MPI_OK(MPI_Comm_split(half, hr % 2, -hr, &quarter));
    MPI_OK(MPI_Comm_rank(quarter, &qr));
    MPI_OK(MPI_Comm_size(quarter, &qs));
    /* ranks of my half with my parity, counted from the top (key -hr) */
    int hs;
    MPI_OK(MPI_Comm_size(half, &hs));
    for (int i = hs - 1; i > hr; i--)
        if (i % 2 == hr % 2)
            expect++;
    CHECK(qr == expect, "nested: rank %d, expected %d", qr, expect);
    MPI_OK(MPI_Barrier(quarter));
    MPI_OK(MPI_Comm_free(&quarter));
    MPI_OK(MPI_Comm_free(&half));
}

static void check_create(void)
{
    MPI_Group wg, eg;
    MPI_Comm c;
    int ranks[64], n = 0, r;

    for (int i = 0; i < size; i += 2)
        ranks[n++] = i; /* the even ranks */
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Group_incl(wg, n, ranks, &eg));
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, eg, &c));
    if (rank % 2) {
        CHECK(c == MPI_COMM_NULL, "odd rank got a communicator");
    } else {
        MPI_OK(MPI_Comm_rank(c, &r));
        CHECK(r == rank / 2, "create: rank %d", r);
        ring(c, ranks);
        MPI_OK(MPI_Comm_free(&c));
    }
    MPI_OK(MPI_Group_free(&eg));
    MPI_OK(MPI_Group_free(&wg));
}

/* MPI_Comm_create_group: only the members call it (rank 0 stays out and
 * meanwhile sends ordinary messages on world with another tag). */
static void check_create_group(void)
{
    MPI_Group wg, g;
    MPI_Comm c;
    int ranks[64], n = 0, r, v = 0;

    for (int i = size - 1; i >= 1; i--)
        ranks[n++] = i; /* everybody but 0, reversed */
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    if (rank == 0) {
        for (int p = 1; p < size; p++)
            MPI_OK(MPI_Send(&p, 1, MPI_INT, p, 12, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Group_incl(wg, n, ranks, &g));
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 11, &c));
        MPI_OK(MPI_Comm_rank(c, &r));
        CHECK(r == size - 1 - rank, "create_group: rank %d", r);
        ring(c, ranks);
        MPI_OK(MPI_Comm_free(&c));
        MPI_OK(MPI_Group_free(&g));
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(v == rank, "message from 0: %d", v);
    }
    MPI_OK(MPI_Group_free(&wg));
}

static void check_shared(void)
{
    MPI_Comm c;
    int s, res;

    /* every rank of these tests runs on this one host */
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
                               MPI_INFO_NULL, &c));
    MPI_OK(MPI_Comm_size(c, &s));
    CHECK(s == size, "shared size %d", s);
    MPI_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "shared vs world: %d", res);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD,
                               rank == 0 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                               0, MPI_INFO_NULL, &c));
    if (rank == 0)
        CHECK(c == MPI_COMM_NULL, "MPI_UNDEFINED split_type");
    else
        MPI_OK(MPI_Comm_free(&c));
}

static void check_compare(void)
{
    MPI_Comm d;
    int res;

    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_IDENT, "world/world %d", res);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    CHECK(res == MPI_CONGRUENT, "world/dup %d", res);
    MPI_OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "self/world %d", res);
    MPI_OK(MPI_Comm_free(&d));
    /* reversed order: same members, other order */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &d));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "reversed %d", res);
    MPI_OK(MPI_Comm_free(&d));
}

/* More creations than there are context ids in a small implementation
 * (Weft has 2048): ids must come back when communicators are freed. Only
 * with few ranks, to keep the test fast on two cores. */
static void check_cycles(void)
{
    MPI_Comm c, keep[8];

    if (size > 4)
        return;
    for (int i = 0; i < 8; i++) /* some stay alive throughout */
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &keep[i]));
#ifdef WEFT_MPI
    const int cycles = 2100; /* past Weft's 2048 ids */
#else
    const int cycles = 200; /* Open MPI's busy polling is slow on 2 cores */
#endif
    for (int i = 0; i < cycles; i++) {
        if (i % 2)
            MPI_OK(MPI_Comm_dup(keep[i % 8], &c));
        else
            MPI_OK(MPI_Comm_split(keep[i % 8], rank % 2, rank, &c));
        MPI_OK(MPI_Comm_free(&c));
    }
    for (int i = 0; i < 8; i++) {
        MPI_OK(MPI_Barrier(keep[i]));
        MPI_OK(MPI_Comm_free(&keep[i]));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "too many ranks for this test");
    check_split(rank % 2, rank, 1);
    check_split(rank % 2, -rank, -1);
    check_ties_and_undefined();
    check_nested();
    check_create();
    if (size > 1)
        check_create_group();
    check_shared();
    check_compare();
    check_cycles();
    MPI_Finalize();
    if (rank == 0)
        printf("comm_split: ok (%d ranks)\n", size);
    return 0;
}
