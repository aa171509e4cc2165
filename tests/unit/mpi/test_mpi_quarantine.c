/* The quarantine of freed handle objects keeps the last 256 shells owned:
 * their marks stay readable (under AddressSanitizer too: no use after
 * free) however many were put before them, and a flush frees them all
 * (LeakSanitizer sees nothing left). A freed user op and info object read
 * as dead through their live checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "engine/objects/info.h"
#include "engine/objects/op.h"
#include "engine/objects/quarantine.h"

#define KEPT 256
#define PUT (KEPT + 100)

static void the_latest_shells_stay_readable(void **state)
{
    static uint32_t *shells[PUT];

    (void)state;
    for (int i = 0; i < PUT; i++) {
        shells[i] = malloc(64);
        assert_non_null(shells[i]);
        shells[i][8] = 0x44454144u + (uint32_t)i; /* past free()'s words */
        wmpi_quarantine_put(shells[i]);
    }
    for (int i = PUT - KEPT; i < PUT; i++)
        assert_int_equal(shells[i][8], 0x44454144u + (uint32_t)i);
    wmpi_quarantine_put(NULL); /* ignored */
    wmpi_quarantine_flush();
    wmpi_quarantine_flush(); /* empty: nothing to do */
}

static void nothing(void *in, void *inout, int *len, struct wmpi_datatype **dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void freed_objects_read_as_dead(void **state)
{
    wmpi_op *op;
    wmpi_info *info;

    (void)state;
    assert_int_equal(wmpi_op_create(nothing, 1, &op), 0);
    assert_true(wmpi_op_is_live(op));
    assert_int_equal(wmpi_op_free(op), 0);
    assert_false(wmpi_op_is_live(op));
    assert_int_equal(wmpi_op_free(op), WEFT_EINVAL); /* twice */
    assert_int_equal(wmpi_info_create(&info), 0);
    assert_true(wmpi_info_is_live(info));
    wmpi_info_release(info);
    assert_false(wmpi_info_is_live(info));
    assert_false(wmpi_info_is_live(NULL));
    assert_true(wmpi_info_is_live(&wmpi_pub_info_env));
    wmpi_quarantine_flush();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_latest_shells_stay_readable),
        cmocka_unit_test(freed_objects_read_as_dead),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
