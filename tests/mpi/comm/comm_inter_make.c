/* Communicators made from an intercommunicator (world's two halves by
 * rank parity): MPI_Comm_split by local rank parity with reversed keys
 * (and with one rank of undefined colour), MPI_Comm_create from each
 * group without its first rank, MPI_Comm_dup with attributes copied and
 * deleted through their callbacks, MPI_Comm_split_type (MPI_COMM_TYPE_SHARED
 * with reversed keys: every rank of this one-host job, and MPI_UNDEFINED on
 * one rank); each new intercommunicator is checked by its groups (world
 * ranks, in order), a message to every remote rank and an allreduce.
 * Built against Weft only: the split_type checks (Open MPI 4.1.4 faults in
 * ompi_comm_split_type on an intercommunicator), and MPI_Comm_create_group
 * on the intercommunicator is MPI_ERR_COMM (the standard asks for an
 * intracommunicator; Open MPI does not check). Needs two ranks or more.
 */
#include <stdlib.h>

#include "mpi_test_util.h"

static int rank, size, me, lrank, lsize;
static MPI_Group world_group;

static int world_of(int g, int r)
{
    return 2 * r + g;
}

static int group_size(int g)
{
    return (size - g + 1) / 2;
}

/* The world ranks of group g's local ranks of colour `color` (local rank
 * parity; -1: all but local rank 0; -2: all), in key order (reversed if
 * rev). */
static int expected(int g, int color, int rev, int *w)
{
    int n = 0, gs = group_size(g);

    for (int i = 0; i < gs; i++) {
        int r = rev ? gs - 1 - i : i;
        int keep = color == -2 ? 1 : color == -1 ? r != 0 : r % 2 == color;
        if (keep)
            w[n++] = world_of(g, r);
    }
    return n;
}

static void check_group(MPI_Group gr, const int *w, int n, const char *what)
{
    int gs;

    MPI_OK(MPI_Group_size(gr, &gs));
    CHECK(gs == n, "%s size %d, want %d", what, gs, n);
    for (int i = 0; i < n; i++) {
        int x;
        MPI_OK(MPI_Group_translate_ranks(gr, 1, &i, world_group, &x));
        CHECK(x == w[i], "%s member %d is %d, want %d", what, i, x, w[i]);
    }
}

/* nc is the intercommunicator of lw (ours) and rw: check it in full. */
static void check_inter(MPI_Comm nc, const int *lw, int ln, const int *rw, int rn)
{
    MPI_Group lg, rg;
    int flag, sum = -1, want = 0;

    MPI_OK(MPI_Comm_test_inter(nc, &flag));
    CHECK(flag, "not an intercommunicator");
    MPI_OK(MPI_Comm_group(nc, &lg));
    MPI_OK(MPI_Comm_remote_group(nc, &rg));
    check_group(lg, lw, ln, "local group");
    check_group(rg, rw, rn, "remote group");
    MPI_OK(MPI_Group_free(&lg));
    MPI_OK(MPI_Group_free(&rg));
    MPI_Request *q = malloc(2 * (size_t)rn * sizeof *q);
    int *got = malloc((size_t)rn * sizeof *got);
    for (int r = 0; r < rn; r++) {
        MPI_OK(MPI_Irecv(&got[r], 1, MPI_INT, r, 4, nc, &q[r]));
        MPI_OK(MPI_Isend(&rank, 1, MPI_INT, r, 4, nc, &q[rn + r]));
    }
    MPI_OK(MPI_Waitall(2 * rn, q, MPI_STATUSES_IGNORE));
    for (int r = 0; r < rn; r++) {
        CHECK(got[r] == rw[r], "from remote %d: %d, want %d", r, got[r], rw[r]);
        want += rw[r];
    }
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, nc));
    CHECK(sum == want, "allreduce %d, want %d", sum, want);
    free(got);
    free(q);
}

/* Check what a split made: the expected lists lose group 0's local rank
 * `undefined_rank` (-1: none), which asked for MPI_UNDEFINED; MPI gives no
 * communicator to it, nor where one side is empty. Frees *nc. */
static void check_made(MPI_Comm *nc, int undefined_rank, int *lw, int ln, int *rw, int rn,
                       const char *what)
{
    if (undefined_rank >= 0 && group_size(0) > undefined_rank) {
        int *w = me == 0 ? lw : rw, *n = me == 0 ? &ln : &rn, k = 0;
        for (int i = 0; i < *n; i++)
            if (w[i] != world_of(0, undefined_rank))
                w[k++] = w[i];
        *n = k;
    }
    if ((me == 0 && lrank == undefined_rank) || rn == 0 || ln == 0) {
        CHECK(*nc == MPI_COMM_NULL, "%s: a communicator where MPI gives none", what);
        return;
    }
    CHECK(*nc != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    check_inter(*nc, lw, ln, rw, rn);
    MPI_OK(MPI_Comm_free(nc));
}

static void check_split(MPI_Comm inter, int undefined_rank)
{
    MPI_Comm nc;
    int lw[64], rw[64], color = lrank % 2;
    int undefined = me == 0 && lrank == undefined_rank;

    MPI_OK(MPI_Comm_split(inter, undefined ? MPI_UNDEFINED : color, -lrank, &nc));
    check_made(&nc, undefined_rank, lw, expected(me, color, 1, lw), rw,
               expected(1 - me, color, 1, rw), "split");
}

static void check_create(MPI_Comm inter)
{
    MPI_Comm nc;
    MPI_Group lg, sub;
    int first = 0, lw[64], rw[64];

    MPI_OK(MPI_Comm_group(inter, &lg));
    MPI_OK(MPI_Group_excl(lg, 1, &first, &sub));
    MPI_OK(MPI_Comm_create(inter, sub, &nc));
    int ln = expected(me, -1, 0, lw), rn = expected(1 - me, -1, 0, rw);
    if (lrank == 0 || ln == 0 || rn == 0) {
        CHECK(nc == MPI_COMM_NULL, "create: a communicator where MPI gives none");
    } else {
        check_inter(nc, lw, ln, rw, rn);
        MPI_OK(MPI_Comm_free(&nc));
    }
    MPI_OK(MPI_Group_free(&sub));
    MPI_OK(MPI_Group_free(&lg));
}

#ifdef WEFT_MPI
/* Every rank runs on this host: one colour, both groups whole; with
 * `undefined_rank` >= 0, group 0's rank of that local rank asks for
 * MPI_UNDEFINED and is in no communicator. */
static void check_split_type(MPI_Comm inter, int undefined_rank)
{
    MPI_Comm nc;
    int lw[64], rw[64];
    int undefined = me == 0 && lrank == undefined_rank;

    MPI_OK(MPI_Comm_split_type(inter, undefined ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, -lrank,
                               MPI_INFO_NULL, &nc));
    check_made(&nc, undefined_rank, lw, expected(me, -2, 1, lw), rw,
               expected(1 - me, -2, 1, rw), "split_type");
}

static void check_create_group_refused(MPI_Comm inter)
{
    MPI_Comm nc = MPI_COMM_WORLD;
    MPI_Group lg;
    int rc, cls;

    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_group(inter, &lg));
    rc = MPI_Comm_create_group(inter, lg, 5, &nc);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_COMM, "create_group on an intercommunicator: class %d", cls);
    CHECK(nc == MPI_COMM_WORLD, "create_group wrote a communicator on error");
    MPI_OK(MPI_Group_free(&lg));
    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL));
}
#endif

static int deleted;

static int count_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)extra;
    CHECK(val == &rank, "deleted value");
    deleted++;
    return MPI_SUCCESS;
}

static void check_dup_attr(MPI_Comm inter)
{
    MPI_Comm nc;
    int key, flag, lw[64], rw[64];
    void *v;

    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, NULL));
    MPI_OK(MPI_Comm_set_attr(inter, key, &rank));
    MPI_OK(MPI_Comm_get_attr(inter, key, &v, &flag));
    CHECK(flag && v == &rank, "attribute on the intercommunicator");
    MPI_OK(MPI_Comm_dup(inter, &nc));
    MPI_OK(MPI_Comm_get_attr(nc, key, &v, &flag));
    CHECK(flag && v == &rank, "attribute copied to the dup");
    check_inter(nc, lw, expected(me, -2, 0, lw), rw, expected(1 - me, -2, 0, rw));
    MPI_OK(MPI_Comm_free(&nc));
    CHECK(deleted == 1, "delete callbacks after freeing the dup: %d", deleted);
    MPI_OK(MPI_Comm_delete_attr(inter, key));
    CHECK(deleted == 2, "delete callbacks after deleting: %d", deleted);
    MPI_OK(MPI_Comm_get_attr(inter, key, &v, &flag));
    CHECK(!flag, "attribute still there");
    MPI_OK(MPI_Comm_free_keyval(&key));
}

int main(int argc, char **argv)
{
    MPI_Comm half, inter;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= 64, "needs 2..64 ranks");
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    me = rank % 2;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me, rank, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - me, 23, &inter));
    MPI_OK(MPI_Comm_rank(inter, &lrank));
    MPI_OK(MPI_Comm_size(inter, &lsize));
    check_split(inter, -1);
    check_split(inter, 1);
    check_create(inter);
    check_dup_attr(inter);
#ifdef WEFT_MPI
    check_split_type(inter, -1);
    check_split_type(inter, 1);
    check_create_group_refused(inter);
#endif
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Group_free(&world_group));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("comm_inter_make: ok\n");
    MPI_Finalize();
    return 0;
}
