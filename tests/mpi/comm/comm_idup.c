/* MPI_Comm_idup: the call returns before the other ranks have even
 * called it (rank 0 lets them call only after its own call returned, so
 * a blocking idup hangs); several idups of one parent stay outstanding
 * beside an Ibarrier, an Iallreduce and a blocking MPI_Comm_dup started
 * after them, completed in an order that differs by rank; each new
 * communicator is congruent to its parent, carries the attribute the
 * parent had at the call, and keeps its traffic apart from the others'.
 * Then an idup of an intercommunicator of the two halves of world (by
 * rank parity) beside an Ibarrier and an Iallreduce on it (needs two
 * ranks or more for that part).
 */
#include <stdlib.h>

#include "mpi_test_util.h"

#define NDUP 3

static int rank, size;

/* rank 0 calls MPI_Comm_idup first and tells the others to call it only
 * once its own call has returned */
static void idup_before_peers(void)
{
    MPI_Comm nc;
    MPI_Request r;
    int go = 7, res;

    if (rank == 0) {
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &nc, &r));
        for (int p = 1; p < size; p++)
            MPI_OK(MPI_Send(&go, 1, MPI_INT, p, 11, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(go == 7, "go %d", go);
        MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &nc, &r));
    }
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "request not freed");
    MPI_OK(MPI_Comm_compare(nc, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_CONGRUENT, "compare %d", res);
    MPI_OK(MPI_Comm_free(&nc));
}

/* Sum of the world ranks over c, and each rank's value tagged by `salt`
 * around a ring on c: data on one communicator never lands on another. */
static void check_comm(MPI_Comm c, int salt)
{
    int n, me, sum = -1, got = -1;

    MPI_OK(MPI_Comm_size(c, &n));
    MPI_OK(MPI_Comm_rank(c, &me));
    CHECK(n == size && me == rank, "size %d rank %d", n, me);
    MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "sum %d", sum);
    int v = rank * 1000 + salt;
    MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                        (rank + size - 1) % size, 5, c, MPI_STATUS_IGNORE));
    CHECK(got == ((rank + size - 1) % size) * 1000 + salt, "ring on %d: %d", salt, got);
}

static void many_beside_collectives(MPI_Comm parent, int key)
{
    MPI_Comm nc[NDUP], bdup;
    MPI_Request r[NDUP + 2];
    int in = rank + 1, out = -1, flag = 0;
    void *val;

    for (int i = 0; i < NDUP; i++)
        MPI_OK(MPI_Comm_idup(parent, &nc[i], &r[i]));
    MPI_OK(MPI_Ibarrier(parent, &r[NDUP]));
    MPI_OK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, parent, &r[NDUP + 1]));
    /* an attribute set after the call is not the dup's business: only
     * the one set before is checked */
    MPI_OK(MPI_Comm_dup(parent, &bdup));
    if (rank % 2) { /* odd ranks complete from the last one started */
        for (int i = NDUP + 1; i >= 0; i--)
            MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Waitall(NDUP + 2, r, MPI_STATUSES_IGNORE));
    }
    CHECK(out == size * (size + 1) / 2, "iallreduce %d", out);
    for (int i = 0; i < NDUP; i++) {
        MPI_OK(MPI_Comm_get_attr(nc[i], key, &val, &flag));
        CHECK(flag && val == &rank, "attribute on dup %d: %d", i, flag);
    }
    /* rings on every dup at once, received in the opposite order */
    int v[NDUP], got[NDUP];
    MPI_Request q[2 * NDUP];
    for (int i = 0; i < NDUP; i++) {
        v[i] = rank * 1000 + i;
        MPI_OK(MPI_Isend(&v[i], 1, MPI_INT, (rank + 1) % size, 9, nc[i], &q[i]));
    }
    for (int i = NDUP - 1; i >= 0; i--)
        MPI_OK(MPI_Irecv(&got[i], 1, MPI_INT, (rank + size - 1) % size, 9, nc[i],
                         &q[NDUP + i]));
    MPI_OK(MPI_Waitall(2 * NDUP, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NDUP; i++)
        CHECK(got[i] == ((rank + size - 1) % size) * 1000 + i, "dup %d got %d", i,
              got[i]);
    for (int i = 0; i < NDUP; i++) {
        check_comm(nc[i], i);
        MPI_OK(MPI_Comm_free(&nc[i]));
    }
    check_comm(bdup, 99);
    MPI_OK(MPI_Comm_free(&bdup));
}

/* idup of an intercommunicator beside collectives on it: same groups,
 * its own traffic. */
static void inter_idup(void)
{
    MPI_Comm half, inter, nc;
    MPI_Request r;
    int me = rank % 2, rs, rs2, ls, res;

    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me, rank, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - me, 42, &inter));
    /* beside an Ibarrier and an Iallreduce on the parent, started after
     * it and completed before it */
    MPI_Request q3[3];
    int one = rank, sum = -1, want = 0;
    MPI_OK(MPI_Comm_idup(inter, &nc, &q3[0]));
    MPI_OK(MPI_Ibarrier(inter, &q3[1]));
    MPI_OK(MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter, &q3[2]));
    MPI_OK(MPI_Wait(&q3[2], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&q3[1], MPI_STATUS_IGNORE));
    r = q3[0];
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int w = 1 - me; w < size; w += 2)
        want += w;
    CHECK(sum == want, "iallreduce beside the idup: %d, want %d", sum, want);
    MPI_OK(MPI_Comm_test_inter(nc, &res));
    CHECK(res, "idup of an intercommunicator is not one");
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    MPI_OK(MPI_Comm_remote_size(nc, &rs2));
    MPI_OK(MPI_Comm_size(nc, &ls));
    CHECK(rs == rs2 && ls == (size - me + 1) / 2, "sizes %d %d %d", rs, rs2, ls);
    MPI_OK(MPI_Comm_compare(nc, inter, &res));
    CHECK(res == MPI_CONGRUENT, "compare %d", res);
    /* local rank i talks to remote rank i on both: values stay apart */
    int lr = rank / 2, a = rank, b = rank + 100, ga = -1, gb = -1;
    if (lr < rs) {
        MPI_Request q[4];
        MPI_OK(MPI_Irecv(&gb, 1, MPI_INT, lr, 3, nc, &q[0]));
        MPI_OK(MPI_Irecv(&ga, 1, MPI_INT, lr, 3, inter, &q[1]));
        MPI_OK(MPI_Isend(&a, 1, MPI_INT, lr, 3, inter, &q[2]));
        MPI_OK(MPI_Isend(&b, 1, MPI_INT, lr, 3, nc, &q[3]));
        MPI_OK(MPI_Waitall(4, q, MPI_STATUSES_IGNORE));
        int peer = 2 * lr + 1 - me;
        CHECK(ga == peer && gb == peer + 100, "across: %d %d", ga, gb);
    }
    MPI_OK(MPI_Comm_free(&nc));
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    int key;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    idup_before_peers();
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key,
                                  NULL));
    MPI_OK(MPI_Comm_set_attr(parent, key, &rank));
    for (int round = 0; round < 4; round++)
        many_beside_collectives(parent, key);
    MPI_OK(MPI_Comm_free_keyval(&key));
    MPI_OK(MPI_Comm_free(&parent));
    if (size >= 2)
        inter_idup();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("comm_idup: ok\n");
    MPI_Finalize();
    return 0;
}
