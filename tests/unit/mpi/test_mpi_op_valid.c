/* Which predefined op is defined on which predefined type (MPI-3.1
 * 5.9.2), checked over the whole matrix: wmpi_op_valid says so, and
 * wmpi_op_apply succeeds on the valid pairs and fails with WEFT_EINVAL on
 * the others without touching the inout buffer. MPI_REPLACE and MPI_NO_OP
 * are not valid in reductions but apply to anything (accumulate). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <mpi.h>

#include "engine/objects/op.h"

/* Type categories of MPI-3.1 5.9.2, plus N: none (no op but REPLACE). */
enum cat { I, F, C, L, B, P, NONE };

static const struct {
    MPI_Datatype dt;
    enum cat cat;
} types[] = {
    { MPI_CHAR, I }, { MPI_SIGNED_CHAR, I }, { MPI_UNSIGNED_CHAR, I },
    { MPI_BYTE, B }, { MPI_PACKED, NONE }, { MPI_WCHAR, NONE },
    { MPI_SHORT, I }, { MPI_UNSIGNED_SHORT, I }, { MPI_INT, I },
    { MPI_UNSIGNED, I }, { MPI_LONG, I }, { MPI_UNSIGNED_LONG, I },
    { MPI_LONG_LONG_INT, I }, { MPI_UNSIGNED_LONG_LONG, I },
    { MPI_INT8_T, I }, { MPI_INT16_T, I }, { MPI_INT32_T, I },
    { MPI_INT64_T, I }, { MPI_UINT8_T, I }, { MPI_UINT16_T, I },
    { MPI_UINT32_T, I }, { MPI_UINT64_T, I }, { MPI_AINT, I },
    { MPI_OFFSET, I }, { MPI_COUNT, I },
    { MPI_FLOAT, F }, { MPI_DOUBLE, F }, { MPI_LONG_DOUBLE, F },
    { MPI_C_FLOAT_COMPLEX, C }, { MPI_C_DOUBLE_COMPLEX, C },
    { MPI_C_LONG_DOUBLE_COMPLEX, C }, { MPI_C_BOOL, L },
    { MPI_FLOAT_INT, P }, { MPI_DOUBLE_INT, P }, { MPI_LONG_INT, P },
    { MPI_2INT, P }, { MPI_SHORT_INT, P }, { MPI_LONG_DOUBLE_INT, P },
    /* Fortran and C++ names: the same classes, no code of their own.
     * (MPI_2REAL and MPI_2DOUBLE_PRECISION are left out: their index is
     * not an int, which the pair layout cannot describe yet.) */
    { MPI_INTEGER, I }, { MPI_INTEGER1, I }, { MPI_INTEGER2, I },
    { MPI_INTEGER4, I }, { MPI_INTEGER8, I }, { MPI_REAL, F },
    { MPI_DOUBLE_PRECISION, F }, { MPI_REAL4, F }, { MPI_REAL8, F },
    { MPI_COMPLEX, C }, { MPI_DOUBLE_COMPLEX, C }, { MPI_COMPLEX8, C },
    { MPI_COMPLEX16, C }, { MPI_LOGICAL, L }, { MPI_CHARACTER, NONE },
    { MPI_2INTEGER, P }, { MPI_CXX_BOOL, L }, { MPI_CXX_FLOAT_COMPLEX, C },
    { MPI_CXX_DOUBLE_COMPLEX, C }, { MPI_CXX_LONG_DOUBLE_COMPLEX, C },
};

static int allowed(MPI_Op op, enum cat c)
{
    if (op == MPI_SUM || op == MPI_PROD)
        return c == I || c == F || c == C;
    if (op == MPI_MAX || op == MPI_MIN)
        return c == I || c == F;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return c == I || c == L;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return c == I || c == B;
    if (op == MPI_MAXLOC || op == MPI_MINLOC)
        return c == P;
    return 0; /* MPI_REPLACE, MPI_NO_OP: accumulate only */
}

static MPI_Op all_ops(int k)
{
    MPI_Op ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                     MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC,
                     MPI_MINLOC, MPI_REPLACE, MPI_NO_OP };
    return k < (int)(sizeof ops / sizeof ops[0]) ? ops[k] : NULL;
}

static void the_matrix_follows_the_standard(void **state)
{
    unsigned char in[4 * 64], io[4 * 64], old[4 * 64];

    (void)state;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (int k = 0; all_ops(k); k++) {
            MPI_Op op = all_ops(k);
            int ok = allowed(op, types[t].cat);
            int applies = ok || op == MPI_REPLACE || op == MPI_NO_OP;

            assert_true((size_t)types[t].dt->extent * 4 <= sizeof in);
            memset(in, 1, sizeof in);
            memset(io, 2, sizeof io);
            memcpy(old, io, sizeof io);
            if (wmpi_op_valid(op, types[t].dt) != ok)
                fail_msg("%s on %s: valid should be %d", op->name,
                         types[t].dt->name, ok);
            assert_int_equal(wmpi_op_apply(op, in, io, 4, types[t].dt),
                             applies ? 0 : WEFT_EINVAL);
            if (!applies)
                assert_memory_equal(io, old, sizeof io);
        }
    }
}

static void bad_arguments_are_rejected(void **state)
{
    int a = 1, b = 2;

    (void)state;
    assert_int_equal(wmpi_op_apply(NULL, &a, &b, 1, MPI_INT), WEFT_EINVAL);
    assert_int_equal(wmpi_op_apply(MPI_SUM, &a, &b, 1, NULL), WEFT_EINVAL);
    assert_int_equal(wmpi_op_apply(MPI_SUM, &a, &b, -1, MPI_INT), WEFT_EINVAL);
    assert_int_equal(b, 2);
    assert_int_equal(wmpi_op_valid(NULL, MPI_INT), 0);
    assert_int_equal(wmpi_op_valid(MPI_SUM, NULL), 0);
    /* an invalid pair is rejected even with nothing to reduce */
    assert_int_equal(wmpi_op_apply(MPI_LAND, NULL, NULL, 0, MPI_FLOAT), WEFT_EINVAL);
}

static void predefined_ops_are_commutative_and_permanent(void **state)
{
    (void)state;
    for (int k = 0; all_ops(k); k++) {
        assert_true(wmpi_op_commutative(all_ops(k)));
        assert_true(wmpi_op_is_predefined(all_ops(k)));
        assert_int_equal(wmpi_op_free(all_ops(k)), WEFT_EINVAL);
        wmpi_op_retain(all_ops(k)); /* no-ops */
        wmpi_op_release(all_ops(k));
    }
    assert_int_equal(wmpi_op_free(NULL), WEFT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_matrix_follows_the_standard),
        cmocka_unit_test(bad_arguments_are_rejected),
        cmocka_unit_test(predefined_ops_are_commutative_and_permanent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
