/* User ops (MPI_Op_create): the function gets (in, inout, len, datatype)
 * with the datatype handle as the caller gave it and `in` as the left
 * operand; counts above INT_MAX arrive in chunks; commutativity is
 * reported as created; an op freed while an operation holds a reference
 * lives until that reference is released (ASan reports a use after free
 * or a leak otherwise). */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <mpi.h>

#include "engine/objects/op.h"

static MPI_Datatype seen_type;
static int calls;
static int64_t seen_total;
static int seen_lens[4];

/* Non-commutative: inout = in * 10 + inout (digits in operand order). */
static void concat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const int *a = in;
    int *b = inout;

    seen_type = *dt;
    calls++;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] * 10 + b[i];
}

static void function_gets_operands_in_order(void **state)
{
    MPI_Op op;
    int a[3] = { 1, 2, 3 }, b[3] = { 4, 5, 6 };

    (void)state;
    calls = 0;
    assert_int_equal(wmpi_op_create(concat, 0, &op), 0);
    assert_false(wmpi_op_commutative(op));
    assert_false(wmpi_op_is_predefined(op));
    assert_true(wmpi_op_valid(op, MPI_INT));
    assert_true(wmpi_op_valid(op, MPI_CHAR)); /* user ops take anything */
    assert_int_equal(wmpi_op_apply(op, a, b, 3, MPI_INT), 0);
    assert_int_equal(b[0], 14);
    assert_int_equal(b[1], 25);
    assert_int_equal(b[2], 36);
    assert_ptr_equal(seen_type, MPI_INT);
    assert_int_equal(calls, 1);
    assert_int_equal(wmpi_op_free(op), 0);
}

static void commutative_flag_is_kept(void **state)
{
    MPI_Op op;

    (void)state;
    assert_int_equal(wmpi_op_create(concat, 7, &op), 0);
    assert_true(wmpi_op_commutative(op));
    assert_int_equal(wmpi_op_free(op), 0);
    assert_int_equal(wmpi_op_create(NULL, 1, &op), WEFT_EINVAL);
    assert_null(op);
}

/* Records the chunk lengths; touches no memory. */
static void count_chunks(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)dt;
    if (calls < 4)
        seen_lens[calls] = *len;
    calls++;
    seen_total += *len;
}

/* A type of extent 0 lets a huge count run without a huge buffer. */
static void huge_counts_come_in_int_chunks(void **state)
{
    wmpi_datatype empty = { .size = 0, .extent = 0, .basic = 1, .name = "empty" };
    unsigned char a = 0, b = 0;
    int64_t count = (int64_t)INT_MAX * 2 + 5;
    MPI_Op op;

    (void)state;
    calls = 0, seen_total = 0;
    assert_int_equal(wmpi_op_create(count_chunks, 1, &op), 0);
    assert_int_equal(wmpi_op_apply(op, &a, &b, count, &empty), 0);
    assert_int_equal(calls, 3);
    assert_int_equal(seen_lens[0], INT_MAX);
    assert_int_equal(seen_lens[1], INT_MAX);
    assert_int_equal(seen_lens[2], 5);
    assert_true(seen_total == count);
    assert_int_equal(wmpi_op_free(op), 0);
}

/* MPI_Op_free while a (pretend) non-blocking collective holds the op. */
static void freed_op_lives_while_referenced(void **state)
{
    MPI_Op op;
    int a = 1, b = 2;

    (void)state;
    assert_int_equal(wmpi_op_create(concat, 0, &op), 0);
    wmpi_op_retain(op);                 /* the collective starts */
    assert_int_equal(wmpi_op_free(op), 0); /* the user frees the handle */
    assert_int_equal(wmpi_op_apply(op, &a, &b, 1, MPI_INT), 0);
    assert_int_equal(b, 12);
    wmpi_op_release(op);                /* the collective ends: freed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(function_gets_operands_in_order),
        cmocka_unit_test(commutative_flag_is_kept),
        cmocka_unit_test(huge_counts_come_in_int_chunks),
        cmocka_unit_test(freed_op_lives_while_referenced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
