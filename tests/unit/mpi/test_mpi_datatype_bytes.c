/* The MPI engine's byte count of a typed buffer: count * size (the packed
 * size, which a message carries), an error for a negative or overflowing
 * count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine/engine.h"

extern wmpi_datatype wmpi_dt_int, wmpi_dt_double_int, wmpi_dt_byte;

static void bytes_are_count_times_size(void **state)
{
    (void)state;
    assert_int_equal(wmpi_datatype_bytes(&wmpi_dt_int, 0), 0);
    assert_int_equal(wmpi_datatype_bytes(&wmpi_dt_int, 10), 10 * (int64_t)sizeof(int));
    /* pair types travel without their padding, as in Open MPI */
    assert_int_equal(wmpi_datatype_bytes(&wmpi_dt_double_int, 3),
                     3 * (int64_t)(sizeof(double) + sizeof(int)));
    assert_true(wmpi_dt_double_int.extent > (int64_t)wmpi_dt_double_int.size);
}

static void bad_counts_are_rejected(void **state)
{
    (void)state;
    assert_int_equal(wmpi_datatype_bytes(&wmpi_dt_int, -1), WEFT_EINVAL);
    assert_int_equal(wmpi_datatype_bytes(&wmpi_dt_int, INT64_MAX / 2), WEFT_EINVAL);
    assert_int_equal(wmpi_datatype_bytes(NULL, 1), WEFT_EINVAL);
    assert_int_equal(wmpi_datatype_bytes(&wmpi_dt_byte, INT64_MAX), INT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bytes_are_count_times_size),
        cmocka_unit_test(bad_counts_are_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
