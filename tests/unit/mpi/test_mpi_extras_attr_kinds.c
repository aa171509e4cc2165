/* The attribute engine (engine/objects/attr.c) on two kinds of objects:
 * communicator and datatype keyvals share one numbering but never mix
 * (a keyval of one kind is unknown to the other: WEFT_EINVAL, which the
 * bindings report as MPI_ERR_KEYVAL); datatype copy and delete callbacks
 * get the datatype; delete_all runs on the latest attribute first and a
 * failing callback stops it; discard frees without callbacks. No job:
 * plain engine objects. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/objects/comm.h"
#include "engine/objects/datatype.h"

extern wmpi_datatype wmpi_dt_int;

static int copies, deletes, order[8];
static wmpi_datatype *seen;

static int type_copy(wmpi_datatype *old, int k, void *extra, void *in,
                     void *out, int *flag)
{
    (void)k;
    assert_ptr_equal(extra, &copies);
    seen = old;
    copies++;
    *(void **)out = (void *)((intptr_t)in * 10);
    *flag = 1;
    return 0;
}

static int type_delete(wmpi_datatype *t, int k, void *val, void *extra)
{
    (void)k, (void)extra;
    seen = t;
    order[deletes++ % 8] = (int)(intptr_t)val;
    return (intptr_t)val == 13 ? 5 : 0; /* 13 refuses: MPI error code 5 */
}

static wmpi_datatype *contiguous(int n)
{
    int ints[1] = { n };
    wmpi_datatype *old = &wmpi_dt_int, *t = NULL;
    wmpi_type_args a = { WMPI_COMBINER_CONTIGUOUS, 1, 0, 1, ints, NULL, &old };

    assert_int_equal(wmpi_datatype_create(&a, &t), 0);
    return t;
}

static void kinds_do_not_mix(void **state)
{
    wmpi_comm c = { .size = 1 };
    wmpi_datatype *t = contiguous(2);
    int ck, tk, flag = -1;
    void *v;

    (void)state;
    assert_int_equal(wmpi_keyval_create(NULL, NULL, NULL, &ck), 0);
    assert_int_equal(wmpi_type_keyval_create(NULL, NULL, NULL, &tk), 0);
    assert_int_not_equal(ck, tk); /* one numbering */
    assert_int_equal(wmpi_attr_set(&c, tk, &v), WEFT_EINVAL);
    assert_int_equal(wmpi_attr_get(&c, tk, &v, &flag), WEFT_EINVAL);
    assert_int_equal(wmpi_attr_delete(&c, tk), WEFT_EINVAL);
    assert_int_equal(wmpi_type_attr_set(t, ck, &v), WEFT_EINVAL);
    assert_int_equal(wmpi_type_attr_get(t, ck, &v, &flag), WEFT_EINVAL);
    assert_int_equal(wmpi_type_attr_delete(t, ck), WEFT_EINVAL);
    /* predefined communicator keyvals are not datatype keyvals */
    assert_int_equal(wmpi_type_attr_get(t, WMPI_KEY_TAG_UB, &v, &flag),
                     WEFT_EINVAL);
    assert_int_equal(wmpi_keyval_free(tk), WEFT_EINVAL);
    assert_int_equal(wmpi_type_keyval_free(ck), WEFT_EINVAL);
    /* each works on its own kind */
    assert_int_equal(wmpi_attr_set(&c, ck, &c), 0);
    assert_int_equal(wmpi_type_attr_set(t, tk, t), 0);
    assert_int_equal(wmpi_attr_get(&c, ck, &v, &flag), 0);
    assert_true(flag && v == &c);
    assert_int_equal(wmpi_type_attr_get(t, tk, &v, &flag), 0);
    assert_true(flag && v == t);
    assert_int_equal(wmpi_type_attr_delete(t, tk), 0);
    assert_int_equal(wmpi_type_attr_delete(t, tk), -ENOENT);
    assert_int_equal(wmpi_keyval_free(ck), 0);
    assert_int_equal(wmpi_type_keyval_free(tk), 0);
    assert_int_equal(wmpi_type_keyval_free(tk), WEFT_EINVAL);
    wmpi_attr_discard(&c);
    wmpi_datatype_release(t);
}

static void type_callbacks(void **state)
{
    wmpi_datatype *t = contiguous(3), *d = contiguous(3);
    int k, plain, flag;
    void *v;

    (void)state;
    assert_int_equal(wmpi_type_keyval_create(type_copy, type_delete, &copies,
                                             &k), 0);
    assert_int_equal(wmpi_type_keyval_create(NULL, type_delete, &copies,
                                             &plain), 0);
    assert_int_equal(wmpi_type_attr_set(t, k, (void *)(intptr_t)1), 0);
    assert_int_equal(wmpi_type_attr_set(t, plain, (void *)(intptr_t)2), 0);
    assert_int_equal(wmpi_type_attr_copy_all(t, d), 0);
    assert_int_equal(copies, 1);
    assert_ptr_equal(seen, t);
    assert_int_equal(wmpi_type_attr_get(d, k, &v, &flag), 0);
    assert_true(flag && (intptr_t)v == 10);
    assert_int_equal(wmpi_type_attr_get(d, plain, &v, &flag), 0);
    assert_false(flag); /* no copy callback: not copied */

    /* delete_all: latest first; a refusing callback stops it */
    assert_int_equal(wmpi_type_attr_set(d, plain, (void *)(intptr_t)13), 0);
    deletes = 0;
    assert_int_equal(wmpi_type_attr_delete_all(d), wmpi_err_from_mpi(5));
    assert_int_equal(deletes, 1);
    assert_ptr_equal(seen, d);
    assert_int_equal(wmpi_type_attr_get(d, plain, &v, &flag), 0);
    assert_true(flag); /* still there */
    wmpi_type_attr_discard(d); /* no callbacks */
    assert_int_equal(deletes, 1);
    assert_null(d->attrs);
    assert_int_equal(wmpi_type_attr_delete_all(t), 0);
    assert_int_equal(deletes, 3);
    assert_int_equal(order[1], 2);
    assert_int_equal(order[2], 1);

    /* attributes on a predefined type */
    assert_int_equal(wmpi_type_attr_set(&wmpi_dt_int, k, (void *)(intptr_t)4), 0);
    assert_int_equal(wmpi_type_attr_get(&wmpi_dt_int, k, &v, &flag), 0);
    assert_true(flag && (intptr_t)v == 4);
    assert_int_equal(wmpi_type_attr_delete(&wmpi_dt_int, k), 0);
    assert_int_equal(deletes, 4);

    assert_int_equal(wmpi_type_keyval_free(k), 0);
    assert_int_equal(wmpi_type_keyval_free(plain), 0);
    wmpi_datatype_release(t);
    wmpi_datatype_release(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kinds_do_not_mix),
        cmocka_unit_test(type_callbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
