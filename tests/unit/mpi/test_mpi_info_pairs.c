/* Info objects in the engine (engine/objects/info.c): set, get, replace,
 * delete, key order, truncating reads, independent duplicates, MPI_INFO_ENV. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <weft/errno.h>

#include "engine/objects/info.h"

static void keys_in_order(wmpi_info *info, const char *const *want, int n)
{
    char key[64];

    assert_int_equal(wmpi_info_nkeys(info), n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(wmpi_info_nthkey(info, i, key, sizeof key), 0);
        assert_string_equal(key, want[i]);
    }
    assert_int_equal(wmpi_info_nthkey(info, n, key, sizeof key), WEFT_EINVAL);
    assert_int_equal(wmpi_info_nthkey(info, -1, key, sizeof key), WEFT_EINVAL);
}

static void set_get_replace_delete(void **state)
{
    wmpi_info *info;
    char val[32];
    int flag = -1, len = -1;

    (void)state;
    assert_int_equal(wmpi_info_create(&info), 0);
    assert_int_equal(wmpi_info_nkeys(info), 0);
    wmpi_info_get(info, "a", 31, val, &flag);
    assert_int_equal(flag, 0);
    assert_int_equal(wmpi_info_set(info, "b", "1"), 0);
    assert_int_equal(wmpi_info_set(info, "a", "two"), 0);
    assert_int_equal(wmpi_info_set(info, "c", "3"), 0);
    assert_int_equal(wmpi_info_set(info, "b", "one"), 0); /* keeps its place */
    keys_in_order(info, (const char *const[]){ "b", "a", "c" }, 3);
    wmpi_info_get(info, "b", 31, val, &flag);
    assert_int_equal(flag, 1);
    assert_string_equal(val, "one");
    wmpi_info_get_valuelen(info, "a", &len, &flag);
    assert_int_equal(flag, 1);
    assert_int_equal(len, 3);
    assert_int_equal(wmpi_info_delete(info, "a"), 0);
    assert_int_equal(wmpi_info_delete(info, "a"), -ENOENT);
    keys_in_order(info, (const char *const[]){ "b", "c" }, 2);
    wmpi_info_get_valuelen(info, "a", &len, &flag);
    assert_int_equal(flag, 0);
    wmpi_info_release(info);
}

static void reads_truncate(void **state)
{
    wmpi_info *info;
    char val[16];
    int flag;

    (void)state;
    assert_int_equal(wmpi_info_create(&info), 0);
    assert_int_equal(wmpi_info_set(info, "k", "hello world"), 0);
    memset(val, '#', sizeof val);
    wmpi_info_get(info, "k", 5, val, &flag); /* 5 characters, then a NUL */
    assert_int_equal(flag, 1);
    assert_string_equal(val, "hello");
    assert_int_equal(val[6], '#');
    wmpi_info_get(info, "k", 0, val, &flag);
    assert_string_equal(val, "");
    wmpi_info_release(info);
}

static void duplicates_are_independent(void **state)
{
    wmpi_info *a, *b, *none = (wmpi_info *)1;
    char val[16];
    int flag;

    (void)state;
    assert_int_equal(wmpi_info_create(&a), 0);
    for (int i = 0; i < 40; i++) { /* past the first growth */
        char k[16];
        snprintf(k, sizeof k, "key%d", i);
        assert_int_equal(wmpi_info_set(a, k, k), 0);
    }
    assert_int_equal(wmpi_info_dup(a, &b), 0);
    assert_int_equal(wmpi_info_nkeys(b), 40);
    assert_int_equal(wmpi_info_set(a, "key7", "changed"), 0);
    assert_int_equal(wmpi_info_delete(b, "key3"), 0);
    wmpi_info_get(b, "key7", 15, val, &flag);
    assert_string_equal(val, "key7");
    wmpi_info_get(a, "key3", 15, val, &flag);
    assert_int_equal(flag, 1);
    assert_int_equal(wmpi_info_nkeys(a), 40);
    assert_int_equal(wmpi_info_nkeys(b), 39);
    wmpi_info_release(a);
    wmpi_info_get(b, "key39", 15, val, &flag);
    assert_string_equal(val, "key39");
    wmpi_info_release(b);
    assert_int_equal(wmpi_info_dup(NULL, &none), 0);
    assert_null(none);
    wmpi_info_release(NULL);
}

static void env_is_filled_once(void **state)
{
    wmpi_info *env = &wmpi_pub_info_env;
    char val[256];
    int flag;

    (void)state;
    wmpi_info_env_fill(4, 3);
    wmpi_info_env_fill(9, 0); /* no effect */
    wmpi_info_get(env, "maxprocs", 255, val, &flag);
    assert_int_equal(flag, 1);
    assert_string_equal(val, "4");
    wmpi_info_get(env, "thread_level", 255, val, &flag);
    assert_string_equal(val, "MPI_THREAD_MULTIPLE");
    wmpi_info_get(env, "command", 255, val, &flag);
    assert_int_equal(flag, 1);
    assert_non_null(strstr(val, "test_mpi_info_pairs"));
    wmpi_info_get(env, "wdir", 255, val, &flag);
    assert_int_equal(flag, 1);
    assert_int_equal(val[0], '/');
    wmpi_info_release(env); /* predefined: left alone */
    assert_true(wmpi_info_nkeys(env) >= 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_get_replace_delete),
        cmocka_unit_test(reads_truncate),
        cmocka_unit_test(duplicates_are_independent),
        cmocka_unit_test(env_is_filled_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
