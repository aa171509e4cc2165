/* Window attributes of the program's own (MPI_Win_create_keyval,
 * _set_attr, _get_attr, _delete_attr, _free_keyval): a value set is the
 * value got; setting it again and deleting it call the delete callback
 * with the old value and the keyval's extra state; MPI_Win_free calls it
 * for what is still set, on each of two keyvals; a freed keyval keeps
 * the attributes made with it working until the window goes; the
 * predefined attributes still answer beside them. Errors (under
 * MPI_ERRORS_RETURN on the window): a keyval made for communicators, or
 * a freed one, is MPI_ERR_KEYVAL to set (Weft only: Open MPI gives other
 * classes for some of these).
 */
#include "rma_test.h"

static int deleted[2];        /* delete callbacks per keyval */
static long last_deleted[2];  /* the value each last saw */
static int extra_tag[2] = { 0, 1 };

static int count_delete(MPI_Win win, int keyval, void *val, void *extra)
{
    int which = *(int *)extra;

    (void)win, (void)keyval;
    deleted[which]++;
    last_deleted[which] = (long)(intptr_t)val;
    return MPI_SUCCESS;
}

static void *value(long v)
{
    return (void *)(intptr_t)v;
}

static long got(MPI_Win win, int keyval)
{
    void *v = NULL;
    int flag = 0;

    MPI_OK(MPI_Win_get_attr(win, keyval, &v, &flag));
    return flag ? (long)(intptr_t)v : -1;
}

static void check_errors(MPI_Win win, int freed_keyval)
{
#ifdef WEFT_MPI
    int comm_keyval, c;

    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &comm_keyval,
                                  NULL));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Error_class(MPI_Win_set_attr(win, comm_keyval, value(1)), &c);
    CHECK(c == MPI_ERR_KEYVAL, "a communicator keyval on a window: class %d", c);
    MPI_Error_class(MPI_Win_set_attr(win, freed_keyval, value(1)), &c);
    CHECK(c == MPI_ERR_KEYVAL, "a freed keyval: class %d", c);
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Comm_free_keyval(&comm_keyval));
#else
    (void)win, (void)freed_keyval;
#endif
}

int main(int argc, char **argv)
{
    int key[2], *base, *flavor, flag;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    for (int i = 0; i < 2; i++)
        MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &key[i],
                                     &extra_tag[i]));
    MPI_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    CHECK(got(win, key[0]) == -1, "an attribute before any was set");
    MPI_OK(MPI_Win_set_attr(win, key[0], value(10)));
    MPI_OK(MPI_Win_set_attr(win, key[1], value(20)));
    CHECK(got(win, key[0]) == 10 && got(win, key[1]) == 20, "values got back");
    MPI_OK(MPI_Win_set_attr(win, key[0], value(11)));
    CHECK(deleted[0] == 1 && last_deleted[0] == 10, "setting again deletes the old value");
    MPI_OK(MPI_Win_delete_attr(win, key[0]));
    CHECK(deleted[0] == 2 && last_deleted[0] == 11 && got(win, key[0]) == -1,
          "delete_attr");
    MPI_OK(MPI_Win_set_attr(win, key[0], value(12)));
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag));
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_ALLOCATE, "the predefined attributes still answer");
    int freed = key[1];
    MPI_OK(MPI_Win_free_keyval(&key[1]));
    CHECK(key[1] == MPI_KEYVAL_INVALID, "free_keyval resets the handle");
    check_errors(win, freed);
    MPI_OK(MPI_Win_free(&win));
    CHECK(deleted[0] == 3 && last_deleted[0] == 12, "MPI_Win_free deletes key 0's value");
    CHECK(deleted[1] == 1 && last_deleted[1] == 20, "MPI_Win_free deletes a freed key's value");
    MPI_OK(MPI_Win_free_keyval(&key[0]));
    if (p2p_rank() == 0)
        printf("rma_attr: window attributes set, got, deleted and freed\n");
    MPI_Finalize();
    return 0;
}
