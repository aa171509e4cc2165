/* C <-> Fortran handle conversion (binding/fhandle.c): every handle gets a
 * stable integer on first conversion, f2c(c2f(h)) == h for thousands of
 * handles (the table and its hash grow), the null handle is 0 both ways,
 * integers never handed out convert to the null handle, conversions from
 * several threads at once round-trip, and a Fortran status keeps a
 * byte count above 2^32. The conversions never dereference a handle, so
 * made-up addresses stand in for objects. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <mpi.h>

enum { N_HANDLES = 5000, N_THREADS = 4 };

static MPI_Comm fake_comm(int i)
{
    return (MPI_Comm)(uintptr_t)(0x10000 + 64 * (uintptr_t)i);
}

static void many_handles_round_trip(void **state)
{
    static MPI_Fint f[N_HANDLES];

    (void)state;
    for (int i = 0; i < N_HANDLES; i++) {
        f[i] = PMPI_Comm_c2f(fake_comm(i));
        assert_true(f[i] > 0);
        for (int j = i - 3; j >= 0 && j < i; j++)
            assert_int_not_equal(f[i], f[j]);
    }
    for (int i = 0; i < N_HANDLES; i++) {
        assert_ptr_equal(PMPI_Comm_f2c(f[i]), fake_comm(i));
        assert_int_equal(PMPI_Comm_c2f(fake_comm(i)), f[i]); /* stable */
    }
}

static void null_and_unknown(void **state)
{
    (void)state;
    assert_int_equal(PMPI_Comm_c2f(MPI_COMM_NULL), 0);
    assert_ptr_equal(PMPI_Comm_f2c(0), MPI_COMM_NULL);
    assert_ptr_equal(PMPI_Type_f2c(0), MPI_DATATYPE_NULL);
    assert_ptr_equal(PMPI_Request_f2c(-7), MPI_REQUEST_NULL);
    assert_ptr_equal(PMPI_Op_f2c(INT32_MAX), MPI_OP_NULL);
    /* predefined handles convert like any other */
    assert_ptr_equal(PMPI_Type_f2c(PMPI_Type_c2f(MPI_INTEGER)), MPI_INTEGER);
    assert_ptr_equal(PMPI_Comm_f2c(PMPI_Comm_c2f(MPI_COMM_WORLD)), MPI_COMM_WORLD);
}

static void *convert_range(void *arg)
{
    int first = *(int *)arg;

    for (int i = first; i < first + N_HANDLES; i++) {
        MPI_Comm c = fake_comm(100000 + i);
        if (PMPI_Comm_f2c(PMPI_Comm_c2f(c)) != c)
            return (void *)1;
    }
    return NULL;
}

/* Overlapping ranges from several threads at once: every round trip
 * holds, during and after (the table grows under contention). */
static void concurrent_conversions(void **state)
{
    pthread_t t[N_THREADS];
    int first[N_THREADS];

    (void)state;
    for (int k = 0; k < N_THREADS; k++) {
        first[k] = k * N_HANDLES / 2;
        assert_int_equal(pthread_create(&t[k], NULL, convert_range, &first[k]), 0);
    }
    for (int k = 0; k < N_THREADS; k++) {
        void *ret;
        assert_int_equal(pthread_join(t[k], &ret), 0);
        assert_null(ret);
    }
    for (int i = 0; i < (N_THREADS + 1) * N_HANDLES / 2; i++) {
        MPI_Fint f = PMPI_Comm_c2f(fake_comm(100000 + i));
        assert_ptr_equal(PMPI_Comm_f2c(f), fake_comm(100000 + i));
    }
}

static void status_round_trip(void **state)
{
    MPI_Status c = { 0 }, back = { 0 };
    MPI_Fint f[16];

    (void)state;
    c.MPI_SOURCE = 5;
    c.MPI_TAG = 1234;
    c.MPI_ERROR = MPI_ERR_TRUNCATE;
    c.wmpi_cancelled = 1;
    c.wmpi_bytes = ((MPI_Count)3 << 32) + 17;
    assert_int_equal(PMPI_Status_c2f(&c, f), MPI_SUCCESS);
    assert_int_equal(PMPI_Status_f2c(f, &back), MPI_SUCCESS);
    assert_int_equal(back.MPI_SOURCE, 5);
    assert_int_equal(back.MPI_TAG, 1234);
    assert_int_equal(back.MPI_ERROR, MPI_ERR_TRUNCATE);
    assert_int_equal(back.wmpi_cancelled, 1);
    assert_true(back.wmpi_bytes == c.wmpi_bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(many_handles_round_trip),
        cmocka_unit_test(null_and_unknown),
        cmocka_unit_test(concurrent_conversions),
        cmocka_unit_test(status_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
