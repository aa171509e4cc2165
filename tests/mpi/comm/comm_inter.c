/* Intercommunicators: MPI_Intercomm_create from the two halves of world
 * (split by rank parity), MPI_Comm_test_inter, _remote_size,
 * _remote_group, _compare, point-to-point across (ranks name the remote
 * group; MPI_ANY_SOURCE receives report remote ranks), MPI_Comm_dup of
 * the intercommunicator (traffic of its own), MPI_Intercomm_merge with
 * both orders of `high`, and MPI_Comm_free of all of them. Needs two or
 * more ranks; odd counts give groups of different sizes.
 */
#include <stdlib.h>

#include "mpi_test_util.h"

static int rank, size;

/* world rank of rank r of group `g` (0: even ranks, 1: odd ranks) */
static int world_of(int g, int r)
{
    return 2 * r + g;
}

static int group_size(int g)
{
    return (size - g + 1) / 2;
}

static void exchange(MPI_Comm inter, int tag)
{
    int lr, rs, other = 1 - rank % 2;

    MPI_OK(MPI_Comm_rank(inter, &lr));
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    /* each rank sends its world rank to every remote rank */
    MPI_Request *rq = malloc(sizeof *rq * (size_t)rs);
    for (int r = 0; r < rs; r++)
        MPI_OK(MPI_Isend(&rank, 1, MPI_INT, r, tag, inter, &rq[r]));
    int seen[64] = { 0 };
    for (int i = 0; i < rs; i++) {
        MPI_Status st;
        int v;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, inter, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rs, "source %d", st.MPI_SOURCE);
        CHECK(v == world_of(other, st.MPI_SOURCE), "from remote %d: %d",
              st.MPI_SOURCE, v);
        CHECK(!seen[st.MPI_SOURCE]++, "twice from %d", st.MPI_SOURCE);
    }
    MPI_OK(MPI_Waitall(rs, rq, MPI_STATUSES_IGNORE));
    free(rq);
    /* a directed one: local rank i and remote rank i, for the ranks both
     * groups have */
    int ls, v = -1;
    MPI_OK(MPI_Comm_size(inter, &ls));
    if (lr < rs && lr < ls) {
        MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, lr, tag + 1, &v, 1, MPI_INT, lr,
                            tag + 1, inter, MPI_STATUS_IGNORE));
        CHECK(v == world_of(other, lr), "directed: %d", v);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* MPI_Alltoallw across: its arrays hold one entry per remote rank (MPI-3.1
 * 5.2.2), allocated to that size exactly, so a library that reads them by
 * the local group's size reads past them. It either works (each rank
 * receives every remote rank's world rank) or says it does not support
 * intercommunicator collectives; it never crashes. */
static void check_alltoallw(MPI_Comm inter)
{
    int rs, rc, cls;

    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    int *cnt = malloc((size_t)rs * sizeof *cnt), *dsp = malloc((size_t)rs * sizeof *dsp);
    int *got = malloc((size_t)rs * sizeof *got);
    MPI_Datatype *types = malloc((size_t)rs * sizeof *types);
    CHECK(cnt && dsp && got && types, "out of memory");
    for (int r = 0; r < rs; r++) {
        cnt[r] = 1;
        dsp[r] = r * (int)sizeof(int);
        types[r] = MPI_INT;
        got[r] = -1;
    }
    int *mine = malloc((size_t)rs * sizeof *mine);
    CHECK(mine != NULL, "out of memory");
    for (int r = 0; r < rs; r++)
        mine[r] = rank;
    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    rc = MPI_Alltoallw(mine, cnt, dsp, types, got, cnt, dsp, types, inter);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_UNSUPPORTED_OPERATION,
          "MPI_Alltoallw on an intercommunicator: error class %d", cls);
    for (int r = 0; rc == MPI_SUCCESS && r < rs; r++)
        CHECK(got[r] == world_of(1 - rank % 2, r), "alltoallw from remote %d: %d", r,
              got[r]);
    free(mine);
    free(types);
    free(got);
    free(dsp);
    free(cnt);
}

static void check_merge(MPI_Comm inter, int high_even)
{
    MPI_Comm m;
    int mr, ms, me = rank % 2;
    int high = me == 0 ? high_even : !high_even;

    MPI_OK(MPI_Intercomm_merge(inter, high, &m));
    MPI_OK(MPI_Comm_rank(m, &mr));
    MPI_OK(MPI_Comm_size(m, &ms));
    CHECK(ms == size, "merged size %d", ms);
    /* the low group comes first, each in its own order */
    int low = high_even ? 1 : 0;
    int expect = me == low ? rank / 2 : group_size(low) + rank / 2;
    CHECK(mr == expect, "merged rank %d, expected %d", mr, expect);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m));
    CHECK(sum == size * (size - 1) / 2, "merged allreduce %d", sum);
    MPI_OK(MPI_Comm_free(&m));
}

int main(int argc, char **argv)
{
    MPI_Comm half, inter, dup;
    MPI_Group rg, lg;
    int flag, rs, res, me;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= 64, "needs 2..64 ranks");
    me = rank % 2;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me, rank, &half));
    /* leaders: rank 0 of each half = world 0 and world 1 */
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - me, 99, &inter));
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "not an intercommunicator");
    MPI_OK(MPI_Comm_test_inter(half, &flag));
    CHECK(!flag, "half is an intercommunicator");
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    CHECK(rs == group_size(1 - me), "remote size %d", rs);
    MPI_OK(MPI_Comm_size(inter, &res));
    CHECK(res == group_size(me), "local size %d", res);
    MPI_OK(MPI_Comm_rank(inter, &res));
    CHECK(res == rank / 2, "local rank %d", res);
    /* the remote group holds the other half, in order */
    MPI_Group wg;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    MPI_OK(MPI_Comm_remote_group(inter, &rg));
    for (int r = 0; r < rs; r++) {
        int w;
        MPI_OK(MPI_Group_translate_ranks(rg, 1, &r, wg, &w));
        CHECK(w == world_of(1 - me, r), "remote group member %d is %d", r, w);
    }
    MPI_OK(MPI_Comm_group(inter, &lg));
    MPI_OK(MPI_Group_compare(lg, rg, &res));
    CHECK(res == MPI_UNEQUAL, "local vs remote group %d", res);
    MPI_OK(MPI_Group_free(&lg));
    MPI_OK(MPI_Group_free(&rg));
    MPI_OK(MPI_Group_free(&wg));
    exchange(inter, 1);
    check_alltoallw(inter);
    /* dup: congruent, and its own traffic */
    MPI_OK(MPI_Comm_dup(inter, &dup));
    MPI_OK(MPI_Comm_compare(inter, dup, &res));
    CHECK(res == MPI_CONGRUENT, "inter vs dup %d", res);
    MPI_OK(MPI_Comm_compare(inter, half, &res));
    CHECK(res == MPI_UNEQUAL, "inter vs intra %d", res);
    if (rank < 2) { /* the two leaders: same tag on both, dup first */
        int a = -1, b = -1, x = 10 + rank, y = 20 + rank;
        MPI_Request rq[2];
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, 0, 7, inter, &rq[0]));
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, 0, 7, dup, &rq[1]));
        MPI_OK(MPI_Send(&y, 1, MPI_INT, 0, 7, dup));
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 0, 7, inter));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(a == 10 + (1 - rank) && b == 20 + (1 - rank), "inter %d dup %d", a, b);
    }
    exchange(dup, 3);
    check_merge(dup, 0);
    check_merge(inter, 1);
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
    MPI_Finalize();
    if (rank == 0)
        printf("comm_inter: ok (%d ranks)\n", size);
    return 0;
}
