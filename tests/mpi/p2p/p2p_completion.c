/* The completion calls on sets of requests: MPI_Testall, MPI_Testany,
 * MPI_Testsome, MPI_Waitany, MPI_Waitsome, MPI_Request_get_status, with
 * MPI_REQUEST_NULL entries mixed in.
 *
 * Rank 1 posts receives for tags 0..N-1; rank 0 sends nothing until rank 1
 * says "go", then one tag at a time, each after rank 1 asks for it (so
 * every "nothing done yet" answer below is certain, not a race).
 */
#include "mpi_test_util.h"

#define N 8
#define SLOTS (N + 3)

static void ask(int tag)
{
    MPI_OK(MPI_Send(&tag, 1, MPI_INT, 0, 100, MPI_COMM_WORLD));
}

static void post(MPI_Request *rq, int *vals)
{
    /* slots 0, 4 and SLOTS-1 stay null */
    for (int s = 0, t = 0; s < SLOTS; s++) {
        rq[s] = MPI_REQUEST_NULL;
        if (s != 0 && s != 4 && s != SLOTS - 1) {
            MPI_OK(MPI_Irecv(&vals[t], 1, MPI_INT, 0, t, MPI_COMM_WORLD, &rq[s]));
            t++;
        }
    }
}

static int slot_of(int tag)
{
    return tag + 1 + (tag >= 3);
}

/* Nothing was sent yet: every test must say so. */
static void nothing_yet(MPI_Request *rq, MPI_Status *st)
{
    int flag, idx, out, ind[SLOTS];

    MPI_OK(MPI_Testall(SLOTS, rq, &flag, st));
    CHECK(!flag, "Testall true before any send");
    MPI_OK(MPI_Testany(SLOTS, rq, &idx, &flag, &st[0]));
    CHECK(!flag && idx == MPI_UNDEFINED, "Testany: flag %d index %d", flag, idx);
    MPI_OK(MPI_Testsome(SLOTS, rq, &out, ind, st));
    CHECK(out == 0, "Testsome found %d", out);
    MPI_OK(MPI_Request_get_status(rq[1], &flag, &st[0]));
    CHECK(!flag, "Request_get_status true before the send");
}

/* Tags 5 and 2 one by one (Waitany, Testany), then 0 and 7 (Waitsome). */
static void some(MPI_Request *rq, MPI_Status *st, const int *vals)
{
    int flag, idx, out, ind[SLOTS], done = 2;

    ask(5);
    MPI_OK(MPI_Waitany(SLOTS, rq, &idx, &st[0]));
    CHECK(idx == slot_of(5) && st[0].MPI_TAG == 5 && vals[5] == 50, "Waitany: %d", idx);
    ask(2);
    do {
        MPI_OK(MPI_Testany(SLOTS, rq, &idx, &flag, &st[0]));
    } while (!flag);
    CHECK(idx == slot_of(2) && vals[2] == 20, "Testany: %d", idx);
    ask(0);
    ask(7);
    while (done < 4) {
        MPI_OK(MPI_Waitsome(SLOTS, rq, &out, ind, st));
        CHECK(out >= 1, "Waitsome gave %d", out);
        for (int i = 0; i < out; i++)
            CHECK(rq[ind[i]] == MPI_REQUEST_NULL && vals[st[i].MPI_TAG] == 10 * st[i].MPI_TAG &&
                      ind[i] == slot_of(st[i].MPI_TAG), "Waitsome entry %d", i);
        done += out;
    }
    CHECK(done == 4, "Waitsome completed too much: %d", done);
}

/* The rest at once (Testall), then calls on a set of null requests. */
static void the_rest(MPI_Request *rq, MPI_Status *st, const int *vals)
{
    int flag, out, ind[SLOTS];

    for (int t = 0; t < N; t++)
        if (t != 5 && t != 2 && t != 0 && t != 7)
            ask(t);
    do {
        MPI_OK(MPI_Testall(SLOTS, rq, &flag, st));
    } while (!flag);
    for (int s = 0; s < SLOTS; s++)
        CHECK(rq[s] == MPI_REQUEST_NULL, "slot %d not null after Testall", s);
    for (int t = 0; t < N; t++)
        CHECK(vals[t] == 10 * t, "tag %d carried %d", t, vals[t]);
    MPI_OK(MPI_Waitsome(SLOTS, rq, &out, ind, st));
    CHECK(out == MPI_UNDEFINED, "Waitsome on nulls gave %d", out);
    MPI_OK(MPI_Testsome(SLOTS, rq, &out, ind, st));
    CHECK(out == MPI_UNDEFINED, "Testsome on nulls gave %d", out);
}

static void receiver(void)
{
    MPI_Request rq[SLOTS];
    MPI_Status st[SLOTS];
    int vals[N];

    post(rq, vals);
    nothing_yet(rq, st);
    some(rq, st, vals);
    the_rest(rq, st, vals);
    ask(-1);
}

static void sender(void)
{
    int tag, v;

    for (;;) {
        MPI_OK(MPI_Recv(&tag, 1, MPI_INT, 1, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (tag < 0)
            break;
        v = 10 * tag;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    int rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        sender();
    else if (rank == 1)
        receiver();
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_completion: ok\n");
    return 0;
}
