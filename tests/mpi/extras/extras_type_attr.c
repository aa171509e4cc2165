/* Datatype attribute caching (MPI-3.1 6.7.4): MPI_Type_create_keyval,
 * set/get/delete, copy callbacks on MPI_Type_dup, delete callbacks on
 * overwrite, delete and MPI_Type_free, the predefined callbacks, attributes
 * on a predefined type, freed keyvals, and keyvals of communicators and
 * datatypes not mixing. Purely local: runs on one rank. */
#include "mpi_test_util.h"

/* What the callbacks saw. */
static int copies, deletes, deleted_sum, last_deleted;
static MPI_Datatype last_copy_from, last_delete_on;

static int copy_plus_100(MPI_Datatype old, int key, void *extra, void *in,
                         void *out, int *flag)
{
    (void)key;
    CHECK(extra == &copies, "extra_state %p", extra);
    copies++;
    last_copy_from = old;
    *(void **)out = (void *)((intptr_t)in + 100);
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)key, (void)extra;
    deletes++;
    last_deleted = (int)(intptr_t)val;
    deleted_sum += last_deleted;
    last_delete_on = t;
    return MPI_SUCCESS;
}

static intptr_t get(MPI_Datatype t, int key, int *flag)
{
    void *v = NULL;

    MPI_OK(MPI_Type_get_attr(t, key, &v, flag));
    return (intptr_t)v;
}

static void set_get_overwrite_delete(MPI_Datatype t, int key)
{
    int flag = -1;

    get(t, key, &flag);
    CHECK(flag == 0, "attribute set before MPI_Type_set_attr");
    MPI_OK(MPI_Type_set_attr(t, key, (void *)(intptr_t)7));
    CHECK(get(t, key, &flag) == 7 && flag == 1, "get after set");
    deletes = 0;
    MPI_OK(MPI_Type_set_attr(t, key, (void *)(intptr_t)8));
    CHECK(deletes == 1 && last_deleted == 7 && last_delete_on == t,
          "overwrite: %d deletes of %d", deletes, last_deleted);
    CHECK(get(t, key, &flag) == 8 && flag == 1, "get after overwrite");
    MPI_OK(MPI_Type_delete_attr(t, key));
    CHECK(deletes == 2 && last_deleted == 8, "delete: %d deletes", deletes);
    get(t, key, &flag);
    CHECK(flag == 0, "attribute still set after MPI_Type_delete_attr");
}

static void dup_and_free(int key)
{
    MPI_Datatype t, d, dd;
    int nullkey, dupkey, flag;

    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN,
                                  MPI_TYPE_NULL_DELETE_FN, &nullkey, NULL));
    MPI_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN,
                                  &dupkey, NULL));
    CHECK(nullkey != dupkey && nullkey != key, "keyvals not distinct");
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Type_set_attr(t, key, (void *)(intptr_t)1));
    MPI_OK(MPI_Type_set_attr(t, nullkey, (void *)(intptr_t)2));
    MPI_OK(MPI_Type_set_attr(t, dupkey, (void *)(intptr_t)3));

    copies = 0;
    MPI_OK(MPI_Type_dup(t, &d));
    CHECK(copies == 1 && last_copy_from == t, "dup: %d copies", copies);
    CHECK(get(d, key, &flag) == 101 && flag, "copy callback's value");
    get(d, nullkey, &flag);
    CHECK(!flag, "MPI_TYPE_NULL_COPY_FN copied the attribute");
    CHECK(get(d, dupkey, &flag) == 3 && flag, "MPI_TYPE_DUP_FN's value");
    MPI_OK(MPI_Type_dup(d, &dd)); /* a dup of a dup copies again */
    CHECK(copies == 2 && get(dd, key, &flag) == 201 && flag, "dup of dup");

    /* Weft runs the delete callbacks in MPI_Type_free (MPI-3.1 6.7.4);
     * Open MPI 4.1 when the type's last reference goes (dd holds d), so
     * the counts are checked once both are freed. */
    deletes = deleted_sum = 0;
    MPI_OK(MPI_Type_free(&d));
    CHECK(get(t, key, &flag) == 1 && flag, "original lost its attribute");
    MPI_OK(MPI_Type_free(&dd));
    CHECK(deletes == 2 && deleted_sum == 302, "free: %d deletes, sum %d",
          deletes, deleted_sum);
    MPI_OK(MPI_Type_free(&t));
    CHECK(deletes == 3 && last_deleted == 1, "free: %d deletes", deletes);
    MPI_OK(MPI_Type_free_keyval(&nullkey));
    MPI_OK(MPI_Type_free_keyval(&dupkey));
    CHECK(nullkey == MPI_KEYVAL_INVALID, "free_keyval did not reset it");
}

/* A keyval freed while an attribute uses it: the attribute stays (and is
 * deleted with its callback); new attributes with it are refused. */
static void freed_keyval(void)
{
    MPI_Datatype t;
    int key, saved, flag, rc;

    MPI_OK(MPI_Type_create_keyval(copy_plus_100, count_delete, &key, &copies));
    saved = key;
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &t));
    MPI_OK(MPI_Type_set_attr(t, key, (void *)(intptr_t)5));
    MPI_OK(MPI_Type_free_keyval(&key));
    CHECK(get(t, saved, &flag) == 5 && flag, "attribute lost with its keyval");
    deletes = 0;
    MPI_OK(MPI_Type_free(&t));
    CHECK(deletes == 1 && last_deleted == 5, "delete after free_keyval");
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
    rc = MPI_Type_set_attr(t, saved, (void *)(intptr_t)1);
    CHECK(rc != MPI_SUCCESS, "set with a freed keyval succeeded");
    MPI_OK(MPI_Type_free(&t));
}

/* Keyvals of one kind of object are not keyvals of another. */
static void kinds_do_not_mix(int typekey)
{
    int commkey, rc, cls, flag;
    void *v;

    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                                  MPI_COMM_NULL_DELETE_FN, &commkey, NULL));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, typekey, (void *)1);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "datatype keyval accepted by a communicator");
#ifndef OPEN_MPI /* Open MPI 4.1 answers MPI_ERR_ARG; MPI-3.1 says KEYVAL */
    CHECK(cls == MPI_ERR_KEYVAL, "class %d", cls);
#endif
    rc = MPI_Type_set_attr(MPI_INT, commkey, (void *)1);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS, "communicator keyval accepted by a datatype");
#ifndef OPEN_MPI
    CHECK(cls == MPI_ERR_KEYVAL, "class %d", cls);
    /* getting with a wrong kind's keyval is an error too in Weft; Open
     * MPI answers flag 0 */
    rc = MPI_Type_get_attr(MPI_INT, commkey, &v, &flag);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "get: class %d", cls);
    rc = MPI_Type_free_keyval(&commkey);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "free_keyval of a comm keyval: %d", cls);
#endif
    (void)v, (void)flag;
    MPI_OK(MPI_Comm_free_keyval(&commkey));
}

int main(int argc, char **argv)
{
    MPI_Datatype t;
    int key;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Type_create_keyval(copy_plus_100, count_delete, &key, &copies));

    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 16, &t));
    set_get_overwrite_delete(t, key);
    MPI_OK(MPI_Type_free(&t));
    set_get_overwrite_delete(MPI_INT, key); /* predefined types cache too */
    dup_and_free(key);
    freed_keyval();
    kinds_do_not_mix(key);

    MPI_OK(MPI_Type_free_keyval(&key));
    MPI_OK(MPI_Finalize());
    return 0;
}
