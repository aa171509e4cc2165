/* Attribute caching, names and duplicated traffic:
 *  - MPI_Comm_create_keyval / set / get / delete / free_keyval, with copy
 *    callbacks called once per attribute on each MPI_Comm_dup (and their
 *    flag honoured) and delete callbacks called on delete, on overwrite,
 *    on MPI_Comm_free, and for attributes whose keyval was freed first;
 *  - the MPI-1 forms (MPI_Keyval_create, MPI_Attr_put/get/delete) and the
 *    predefined callbacks (MPI_COMM_DUP_FN, MPI_NULL_COPY_FN...);
 *  - MPI_TAG_UB and the other predefined attributes of MPI_COMM_WORLD;
 *  - MPI_Comm_set_name / get_name;
 *  - a dup has traffic of its own: the same source and tag on the parent
 *    and the dup never match each other's receives;
 *  - invalid keyvals under MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

/* the MPI-1 attribute functions are tested on purpose */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static int copies, deletes;
static int extra_seen;

static int count_copy(MPI_Comm old, int key, void *extra, void *in, void *out,
                      int *flag)
{
    (void)old, (void)key;
    extra_seen += extra == &extra_seen;
    copies++;
    *(void **)out = (char *)in + 1; /* the copy differs: value + 1 */
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int refuse_copy(MPI_Comm old, int key, void *extra, void *in, void *out,
                       int *flag)
{
    (void)old, (void)key, (void)extra, (void)in, (void)out;
    *flag = 0;
    copies++;
    return MPI_SUCCESS;
}

static int refuse_deletes = 1;

static int failing_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    return refuse_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static void *get(MPI_Comm c, int key, int expect_flag)
{
    void *v = NULL;
    int flag = -1;

    MPI_OK(MPI_Comm_get_attr(c, key, &v, &flag));
    CHECK(flag == expect_flag, "key %d: flag %d", key, flag);
    return v;
}

static void check_callbacks(void)
{
    int k1, k2, k3;
    MPI_Comm d, dd;
    char base[8];

    MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &k1, &extra_seen));
    MPI_OK(MPI_Comm_create_keyval(refuse_copy, count_delete, &k2, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                  &k3, NULL));
    CHECK(k1 != k2 && k2 != k3 && k1 != k3, "keyvals not distinct");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_set_attr(d, k1, base));
    MPI_OK(MPI_Comm_set_attr(d, k2, base + 4));
    MPI_OK(MPI_Comm_set_attr(d, k3, base + 5));
    CHECK(get(d, k1, 1) == base && get(d, k2, 1) == base + 4, "values");
    /* overwrite: the old value is deleted */
    MPI_OK(MPI_Comm_set_attr(d, k1, base + 2));
    CHECK(deletes == 1 && get(d, k1, 1) == base + 2, "overwrite: %d deletes", deletes);
    MPI_OK(MPI_Comm_dup(d, &dd));
    CHECK(copies == 2 && extra_seen == 1, "copies %d extra %d", copies, extra_seen);
    CHECK(get(dd, k1, 1) == base + 3, "copied value");
    get(dd, k2, 0); /* refused */
    get(dd, k3, 0); /* null copy */
    /* delete, then get says "not set" */
    MPI_OK(MPI_Comm_delete_attr(d, k2));
    CHECK(deletes == 2, "delete: %d deletes", deletes);
    get(d, k2, 0);
    /* free the keyval: the attribute on dd still works, and is deleted by
     * MPI_Comm_free */
    MPI_OK(MPI_Comm_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "free_keyval did not reset the key");
    MPI_OK(MPI_Comm_free(&dd)); /* k1's copy */
    CHECK(deletes == 3, "free(dd): %d deletes", deletes);
    MPI_OK(MPI_Comm_free(&d)); /* k1 */
    CHECK(deletes == 4, "free(d): %d deletes", deletes);
    MPI_OK(MPI_Comm_free_keyval(&k2));
    MPI_OK(MPI_Comm_free_keyval(&k3));
}

static void check_failing_delete(void)
{
    int k, cls;
    MPI_Comm d;

    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, failing_delete, &k, NULL));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_attr(d, k, &cls));
    cls = MPI_Comm_delete_attr(d, k);
    CHECK(cls != MPI_SUCCESS, "a failing delete callback was ignored");
    get(d, k, 1); /* still set */
    MPI_OK(MPI_Comm_free_keyval(&k));
    /* MPI_Comm_free fails too while the callback fails; d stays valid */
    cls = MPI_Comm_free(&d);
    CHECK(cls != MPI_SUCCESS && d != MPI_COMM_NULL, "free ignored the callback");
    MPI_OK(MPI_Barrier(d));
    refuse_deletes = 0;
    MPI_OK(MPI_Comm_free(&d));
}

static void check_mpi1(void)
{
    int k, flag, v = 42, *p;
    MPI_Comm d;

    MPI_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL));
    MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, k, &v));
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, k, &p, &flag));
    CHECK(flag && p == &v, "MPI_Attr_get");
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Attr_get(d, k, &p, &flag));
    CHECK(flag && p == &v, "MPI_DUP_FN did not copy");
    MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, k));
    MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, k, &p, &flag));
    CHECK(!flag, "MPI_Attr_delete");
    MPI_OK(MPI_Comm_free(&d));
    MPI_OK(MPI_Keyval_free(&k));
    CHECK(k == MPI_KEYVAL_INVALID, "MPI_Keyval_free");
}

static void check_predefined(int size)
{
    int *v;
    MPI_Comm d;

    v = get(MPI_COMM_WORLD, MPI_TAG_UB, 1);
    CHECK(*v >= 32767, "MPI_TAG_UB %d", *v);
    v = get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, 1);
    CHECK(*v == 0 || *v == 1, "MPI_WTIME_IS_GLOBAL %d", *v);
    v = get(MPI_COMM_WORLD, MPI_HOST, 1);
    CHECK(*v == MPI_PROC_NULL || (*v >= 0 && *v < size), "MPI_HOST %d", *v);
    v = get(MPI_COMM_WORLD, MPI_IO, 1);
    CHECK(*v == MPI_ANY_SOURCE || *v == MPI_PROC_NULL || (*v >= 0 && *v < size),
          "MPI_IO %d", *v);
    v = get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, 1);
    CHECK(*v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", *v);
    /* MPI_UNIVERSE_SIZE: Weft says the job size; Open MPI the slots it
     * found (the cores), which may be fewer when oversubscribed */
    int flag;
    MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
    CHECK(!flag || *v >= 1, "MPI_UNIVERSE_SIZE %d", *v);
    /* dups of world keep MPI_TAG_UB (Open MPI and Weft both copy it) */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    v = get(d, MPI_TAG_UB, 1);
    CHECK(*v >= 32767, "dup's MPI_TAG_UB %d", *v);
    MPI_OK(MPI_Comm_free(&d));
}

static void check_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm d;

    MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_WORLD") && len == 14, "world: '%s'", name);
    MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(!strcmp(name, "MPI_COMM_SELF"), "self: '%s'", name);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_set_name(d, "my communicator"));
    MPI_OK(MPI_Comm_get_name(d, name, &len));
    CHECK(!strcmp(name, "my communicator") && len == 15, "dup: '%s' %d", name, len);
    MPI_OK(MPI_Comm_free(&d));
}

/* Same source, same tag on parent and dup: each receive gets its own
 * communicator's message, whatever the order they were sent in. */
static void check_dup_traffic(int rank, int size)
{
    MPI_Comm d;
    MPI_Request rq[2];
    int a = -1, b = -1, x, y;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    if (size >= 2 && rank < 2) {
        int other = 1 - rank;
        MPI_OK(MPI_Irecv(&a, 1, MPI_INT, other, 5, d, &rq[0]));
        MPI_OK(MPI_Irecv(&b, 1, MPI_INT, other, 5, MPI_COMM_WORLD, &rq[1]));
        x = 100 + rank; /* parent first, then dup */
        y = 200 + rank;
        MPI_OK(MPI_Send(&x, 1, MPI_INT, other, 5, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(&y, 1, MPI_INT, other, 5, d));
        MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(a == 200 + other && b == 100 + other, "dup got %d, parent got %d", a, b);
    }
    MPI_OK(MPI_Barrier(d));
    MPI_OK(MPI_Comm_free(&d));
}

/* MPI_Comm_free with a receive still pending on the communicator: the
 * receive completes normally afterwards (MPI-3.1 6.4.3). */
static void check_free_pending(int rank, int size)
{
    MPI_Comm d;
    MPI_Request rq;
    int v = -1, one = 1234;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    if (size >= 2 && rank == 0) {
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 1, 0, d, &rq));
        MPI_OK(MPI_Comm_free(&d));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(v == 1234, "pending receive got %d", v);
    } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* rank 0 has freed d */
        if (rank == 1)
            MPI_OK(MPI_Send(&one, 1, MPI_INT, 0, 0, d));
        MPI_OK(MPI_Comm_free(&d));
    }
}

static int keyval_error(int cls)
{
    /* the standard's class is MPI_ERR_KEYVAL; Open MPI 4.1 says
     * MPI_ERR_OTHER for some of these */
    return cls == MPI_ERR_KEYVAL || cls == MPI_ERR_OTHER;
}

static void check_errors(void)
{
    void *v;
    int flag, k, cls;

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    cls = MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag);
    CHECK(keyval_error(cls), "get with a bad keyval: %d", cls);
    cls = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL);
    CHECK(keyval_error(cls), "set of MPI_TAG_UB: %d", cls);
    cls = MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB);
    CHECK(keyval_error(cls), "delete of MPI_TAG_UB: %d", cls);
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                  &k, NULL));
    int k2 = k;
    MPI_OK(MPI_Comm_free_keyval(&k2));
    cls = MPI_Comm_set_attr(MPI_COMM_WORLD, k, NULL);
    CHECK(keyval_error(cls), "set with a freed keyval: %d", cls);
    cls = MPI_Comm_set_name(MPI_COMM_WORLD, NULL);
    CHECK(cls == MPI_ERR_ARG, "set_name(NULL): %d", cls);
    /* (MPI_Comm_free(NULL) crashes Open MPI 4.1: not tested) */
    MPI_Comm w = MPI_COMM_WORLD;
    cls = MPI_Comm_free(&w);
    CHECK(cls == MPI_ERR_COMM, "free(world): %d", cls);
    MPI_Comm n = MPI_COMM_NULL;
    cls = MPI_Comm_free(&n);
    CHECK(cls == MPI_ERR_COMM, "free(null): %d", cls);
    MPI_Comm c;
    cls = MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c);
    CHECK(cls == MPI_ERR_ARG, "split with colour -5: %d", cls);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_callbacks();
    check_failing_delete();
    check_mpi1();
    check_predefined(size);
    check_names();
    check_dup_traffic(rank, size);
    check_free_pending(rank, size);
    check_errors();
    MPI_Finalize();
    if (rank == 0)
        printf("comm_attr: ok (%d ranks)\n", size);
    return 0;
}
