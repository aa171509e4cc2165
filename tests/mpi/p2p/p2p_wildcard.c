/* Wildcard receives report the right status: MPI_ANY_SOURCE and
 * MPI_ANY_TAG receives get the actual source, tag and element count;
 * a wildcard on one field still filters on the other.
 *
 * Every rank s > 0 sends rank 0 a message of s + 1 ints with tag 100 + s,
 * then (after a barrier, so that the first set is all rank 0 can match)
 * one with tag 7 and one with tag 8. Rank 0 receives the first set
 * with both wildcards, the tag-8 ones with (ANY_SOURCE, 8) and the tag-7
 * ones with (s, ANY_TAG).
 */
#include "mpi_test_util.h"

static void send_all(int rank)
{
    int buf[64];

    for (int k = 0; k <= rank; k++)
        buf[k] = rank * 10 + k;
    MPI_OK(MPI_Send(buf, rank + 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 0 took every first message */
    MPI_OK(MPI_Send(&rank, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&rank, 1, MPI_INT, 0, 8, MPI_COMM_WORLD));
}

static void both_wild(int size)
{
    int buf[64], seen[64] = { 0 }, count;
    MPI_Status st;

    for (int m = 1; m < size; m++) {
        MPI_OK(MPI_Recv(buf, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        int s = st.MPI_SOURCE;
        CHECK(s > 0 && s < size && !seen[s], "source %d", s);
        seen[s] = 1;
        CHECK(st.MPI_TAG == 100 + s, "tag %d from %d", st.MPI_TAG, s);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
        CHECK(count == s + 1, "count %d from %d", count, s);
        for (int k = 0; k < count; k++)
            CHECK(buf[k] == s * 10 + k, "element %d from %d", k, s);
    }
}

static void one_wild(int size)
{
    MPI_Status st;
    int v, seen[64] = { 0 };

    for (int m = 1; m < size; m++) {
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_TAG == 8 && v == st.MPI_SOURCE && !seen[v], "tag 8: %d/%d", v, st.MPI_SOURCE);
        seen[v] = 1;
    }
    for (int s = 1; s < size; s++) {
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == s && st.MPI_TAG == 7 && v == s, "from %d: tag %d", s, st.MPI_TAG);
    }
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 64, "at most 64 ranks");
    if (rank == 0) {
        both_wild(size);
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        one_wild(size);
    } else {
        send_all(rank);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("p2p_wildcard: ok\n");
    return 0;
}
