/* Erroneous handles that are cheap to recognise fail with their class
 * instead of hanging or faulting: a communicator used after
 * MPI_Comm_free (with requests pending, or none: then its memory is in
 * the quarantine of freed handles, so the check is sound under
 * AddressSanitizer too), a derived datatype used after its free,
 * (MPI_Comm)1, and request, datatype and group handles pointing to zeroed
 * memory. Under MPI_ERRORS_RETURN each call
 * returns MPI_ERR_COMM, MPI_ERR_REQUEST, MPI_ERR_TYPE or MPI_ERR_GROUP;
 * a communicator freed while requests on it are pending still completes
 * them with their data. misc_badobjects.c does the same for ops, info
 * objects, error handlers, windows, messages and keyvals. With the argument "fatal", an
 * MPI_Send on a freed communicator under MPI_ERRORS_ARE_FATAL ends the
 * job (misc/CMakeLists.txt checks its status and message).
 *
 * Weft only: Open MPI 4.1 faults on (MPI_Comm)1 and waits forever on a
 * zeroed request. Every rank runs the same checks on its own. */
#include "mpi_test_util.h"

static void expect(int rc, int want, const char *what)
{
    int cls = -1;

    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

/* A communicator freed while a receive on it is pending: the handle is
 * dead at once (the pending receive keeps the object, so this reads no
 * freed memory), and the receive can still be cancelled and waited for. */
static void freed_while_pending(void)
{
    MPI_Comm d, copy;
    MPI_Request r, r2;
    MPI_Status st;
    int me, in = -1, x = 1, cancelled = 0;

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, 7, d, &r));
    copy = d;
    MPI_OK(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL, "MPI_Comm_free left the handle set");
    expect(MPI_Send(&x, 1, MPI_INT, me, 7, copy), MPI_ERR_COMM,
           "MPI_Send on a freed communicator");
    expect(MPI_Isend(&x, 1, MPI_INT, me, 7, copy, &r2), MPI_ERR_COMM,
           "MPI_Isend on a freed communicator");
    expect(MPI_Barrier(copy), MPI_ERR_COMM, "MPI_Barrier on a freed one");
    expect(MPI_Comm_free(&copy), MPI_ERR_COMM, "freeing it twice");
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled && in == -1, "the pending receive: cancelled %d, got %d",
          cancelled, in);
}

/* A communicator freed with a send and a receive between them pending:
 * both complete after the free, with the data. */
static void pending_complete(void)
{
    MPI_Comm d;
    MPI_Request r[2];
    int me, out = 777, in = -1;

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, me, 9, d, &r[0]));
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, me, 9, d, &r[1]));
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(in == 777, "received %d on a freed communicator, want 777", in);
}

/* No request left: the communicator is destroyed at MPI_Comm_free, and
 * its memory waits in Weft's quarantine of freed handles, so the check
 * reads memory the library still owns (AddressSanitizer agrees), even
 * after another communicator was made and freed in between. */
static void freed_and_gone(void)
{
    MPI_Comm d, copy, other;
    int x = 1;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    copy = d;
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &other));
    CHECK(other != copy, "a new communicator took the freed one's memory");
    expect(MPI_Send(&x, 1, MPI_INT, 0, 0, copy), MPI_ERR_COMM,
           "MPI_Send on a freed communicator");
    expect(MPI_Recv(&x, 1, MPI_INT, 0, 0, copy, MPI_STATUS_IGNORE),
           MPI_ERR_COMM, "MPI_Recv on a freed communicator");
    expect(MPI_Barrier(copy), MPI_ERR_COMM, "MPI_Barrier on a freed communicator");
    MPI_OK(MPI_Comm_free(&other));
    expect(MPI_Comm_free(&copy), MPI_ERR_COMM, "freeing it twice");
}

static void small_integer(void)
{
    MPI_Comm one = (MPI_Comm)1;
    int x = 1, y = 0;

    expect(MPI_Send(&x, 1, MPI_INT, 0, 0, one), MPI_ERR_COMM, "MPI_Send");
    expect(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, one), MPI_ERR_COMM,
           "MPI_Allreduce");
    expect(MPI_Bcast(&x, 1, MPI_INT, 0, one), MPI_ERR_COMM, "MPI_Bcast");
    expect(MPI_Gather(&x, 1, MPI_INT, &y, 1, MPI_INT, 0, one), MPI_ERR_COMM,
           "MPI_Gather");
    expect(MPI_Comm_rank(one, &y), MPI_ERR_COMM, "MPI_Comm_rank");
    expect(MPI_Comm_size(one, &y), MPI_ERR_COMM, "MPI_Comm_size");
}

static void zeroed_request(void)
{
    static _Alignas(64) unsigned char zero[4096];
    MPI_Request z = (MPI_Request)(void *)zero, arr[2];
    int me, flag = 0, x = 5, idx;

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    expect(MPI_Wait(&z, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait");
    expect(MPI_Test(&z, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
           "MPI_Test");
    expect(MPI_Request_free(&z), MPI_ERR_REQUEST, "MPI_Request_free");
    MPI_OK(MPI_Isend(&x, 1, MPI_INT, me, 11, MPI_COMM_WORLD, &arr[0]));
    arr[1] = z;
    expect(MPI_Waitall(2, arr, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
           "MPI_Waitall");
    expect(MPI_Waitany(2, arr, &idx, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
           "MPI_Waitany");
    CHECK(arr[0] != MPI_REQUEST_NULL, "a refused Waitall completed a request");
    MPI_OK(MPI_Recv(&x, 1, MPI_INT, me, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&arr[0], MPI_STATUS_IGNORE));
    CHECK(x == 5, "self message: %d", x);
    for (size_t i = 0; i < sizeof zero; i++)
        CHECK(zero[i] == 0, "a refused call wrote to the bad request");
}

/* A datatype handle to zeroed memory: every kind of call that takes one
 * refuses it (point-to-point, collectives, packing, queries, type
 * constructors, commit, free) and writes nothing. */
static void zeroed_datatype(void)
{
    static _Alignas(64) unsigned char zero[4096];
    MPI_Datatype z = (MPI_Datatype)(void *)zero, t;
    MPI_Request r;
    int me, x = 1, y = 0, size, pos = 0;
    char packed[64];

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    expect(MPI_Send(&x, 1, z, me, 12, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
    expect(MPI_Irecv(&y, 1, z, me, 12, MPI_COMM_WORLD, &r), MPI_ERR_TYPE, "MPI_Irecv");
    expect(MPI_Bcast(&x, 1, z, 0, MPI_COMM_SELF), MPI_ERR_TYPE, "MPI_Bcast");
    expect(MPI_Allreduce(&x, &y, 1, z, MPI_SUM, MPI_COMM_SELF), MPI_ERR_TYPE,
           "MPI_Allreduce");
    expect(MPI_Pack(&x, 1, z, packed, sizeof packed, &pos, MPI_COMM_SELF), MPI_ERR_TYPE,
           "MPI_Pack");
    expect(MPI_Type_size(z, &size), MPI_ERR_TYPE, "MPI_Type_size");
    expect(MPI_Type_contiguous(2, z, &t), MPI_ERR_TYPE, "MPI_Type_contiguous");
    expect(MPI_Type_commit(&z), MPI_ERR_TYPE, "MPI_Type_commit");
    expect(MPI_Type_free(&z), MPI_ERR_TYPE, "MPI_Type_free");
    for (size_t i = 0; i < sizeof zero; i++)
        CHECK(zero[i] == 0, "a refused call wrote to the bad datatype");
}

/* A derived datatype freed with nothing using it: its memory is in the
 * quarantine, and every call refuses the stale handle. */
static void freed_datatype(void)
{
    MPI_Datatype t, copy;
    int me, x[2] = { 1, 2 }, size;

    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    copy = t;
    MPI_OK(MPI_Type_free(&t));
    expect(MPI_Send(x, 1, copy, me, 13, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Send");
    expect(MPI_Type_size(copy, &size), MPI_ERR_TYPE, "MPI_Type_size");
    expect(MPI_Type_free(&copy), MPI_ERR_TYPE, "MPI_Type_free twice");
}

/* A group handle to zeroed memory: queries, set operations, communicator
 * creation and MPI_Group_free refuse it. */
static void zeroed_group(void)
{
    static _Alignas(64) unsigned char zero[4096];
    MPI_Group z = (MPI_Group)(void *)zero, world, out;
    MPI_Comm c;
    int n, cmp;

    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    expect(MPI_Group_size(z, &n), MPI_ERR_GROUP, "MPI_Group_size");
    expect(MPI_Group_rank(z, &n), MPI_ERR_GROUP, "MPI_Group_rank");
    expect(MPI_Group_compare(world, z, &cmp), MPI_ERR_GROUP, "MPI_Group_compare");
    expect(MPI_Group_union(world, z, &out), MPI_ERR_GROUP, "MPI_Group_union");
    expect(MPI_Group_incl(z, 0, NULL, &out), MPI_ERR_GROUP, "MPI_Group_incl");
    expect(MPI_Comm_create(MPI_COMM_WORLD, z, &c), MPI_ERR_GROUP, "MPI_Comm_create");
    expect(MPI_Group_free(&z), MPI_ERR_GROUP, "MPI_Group_free");
    MPI_OK(MPI_Group_free(&world));
    for (size_t i = 0; i < sizeof zero; i++)
        CHECK(zero[i] == 0, "a refused call wrote to the bad group");
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        MPI_Comm d, copy;
        MPI_Request r; /* pending: keeps the object, not the handle */
        int x = 1, in;

        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        MPI_OK(MPI_Irecv(&in, 1, MPI_INT, 0, 0, d, &r));
        copy = d;
        MPI_OK(MPI_Comm_free(&d));
        MPI_Send(&x, 1, MPI_INT, 0, 0, copy); /* ends the job */
        fprintf(stderr, "MPI_Send on a freed communicator returned\n");
        return 1;
    }
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    freed_while_pending();
    pending_complete();
    freed_and_gone();
    small_integer();
    zeroed_request();
    zeroed_datatype();
    freed_datatype();
    zeroed_group();
    MPI_OK(MPI_Finalize());
    return 0;
}
