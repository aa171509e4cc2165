/* MPI_Reduce_local with the predefined ops: results on integer, floating
 * point, complex, logical, byte and pair types against the same operation
 * written out in C, MINLOC/MAXLOC ties, ops on types they are not defined
 * on (MPI_ERR_OP), bad counts (MPI_ERR_COUNT), MPI_Op_commutative of the
 * predefined ops, and a derived type made of one basic type.
 *
 * Each rank does the same local work (no messages); errors are returned
 * (MPI_ERRORS_RETURN on MPI_COMM_WORLD) so the classes can be checked.
 */
#include <complex.h>
#include <stdbool.h>

#include "mpi_test_util.h"

#define N 29

static void integers(void)
{
    int a[N], b[N], old[N];
    long long la[N], lb[N];
    unsigned short ua[N], ub[N];

    for (int i = 0; i < N; i++) {
        a[i] = i % 7 - 3, b[i] = old[i] = i % 5 - 2;
        la[i] = (long long)i << 33, lb[i] = -i;
        ua[i] = (unsigned short)(60000 + i), ub[i] = 5000;
    }
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_INT, MPI_SUM));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == a[i] + old[i], "int sum at %d: %d", i, b[i]);
    for (int i = 0; i < N; i++)
        b[i] = old[i];
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_INT, MPI_MIN));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (a[i] < old[i] ? a[i] : old[i]), "int min at %d", i);
    for (int i = 0; i < N; i++)
        b[i] = old[i];
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_INT, MPI_LXOR));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (!a[i] != !old[i]), "int lxor at %d: %d", i, b[i]);
    for (int i = 0; i < N; i++)
        b[i] = old[i];
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_INT, MPI_BOR));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (a[i] | old[i]), "int bor at %d", i);
    MPI_OK(MPI_Reduce_local(la, lb, N, MPI_LONG_LONG, MPI_MAX));
    for (int i = 0; i < N; i++)
        CHECK(lb[i] == ((long long)i << 33), "long long max at %d", i);
    /* No overflow here: Open MPI 4.1's AVX kernels saturate 16-bit sums
     * where C (and Weft) wrap; the unit tests check the wrapping. */
    MPI_OK(MPI_Reduce_local(ua, ub, N, MPI_UNSIGNED_SHORT, MPI_SUM));
    for (int i = 0; i < N; i++)
        CHECK(ub[i] == 65000 + i, "unsigned short sum at %d: %u", i, ub[i]);
}

/* MPI_CHAR reduces as C's char, as in Open MPI and MPICH (the OSU
 * reduction benchmarks sum it), though the standard lists it under no op. */
static void chars(void)
{
    char a[N], b[N], old[N];

    for (int i = 0; i < N; i++)
        a[i] = (char)(i % 9), b[i] = old[i] = (char)(2 * i % 7);
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_CHAR, MPI_SUM));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (char)(a[i] + old[i]), "char sum at %d: %d", i, b[i]);
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_CHAR, MPI_MAX));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (char)(a[i] > a[i] + old[i] ? a[i] : a[i] + old[i]),
              "char max at %d: %d", i, b[i]);
    for (int i = 0; i < N; i++)
        b[i] = old[i];
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_CHAR, MPI_BXOR));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (a[i] ^ old[i]), "char bxor at %d: %d", i, b[i]);
    for (int i = 0; i < N; i++)
        b[i] = old[i];
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_CHAR, MPI_LAND));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (a[i] && old[i]), "char land at %d: %d", i, b[i]);
}

static void reals_and_complex(void)
{
    double a[N], b[N], old[N];
    float fa[N], fb[N];
    double _Complex ca[N], cb[N], cold[N];

    for (int i = 0; i < N; i++) {
        a[i] = i * 0.5 - 3, b[i] = old[i] = 2 - i * 0.25;
        fa[i] = (float)i, fb[i] = 2.0f;
        ca[i] = (i % 3) + (i % 4 - 1) * I;
        cb[i] = cold[i] = (i % 5 - 2) + 2 * I;
    }
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_DOUBLE, MPI_PROD));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == a[i] * old[i], "double prod at %d", i);
    for (int i = 0; i < N; i++)
        b[i] = old[i];
    MPI_OK(MPI_Reduce_local(a, b, N, MPI_DOUBLE, MPI_MAX));
    for (int i = 0; i < N; i++)
        CHECK(b[i] == (a[i] > old[i] ? a[i] : old[i]), "double max at %d", i);
    MPI_OK(MPI_Reduce_local(fa, fb, N, MPI_FLOAT, MPI_SUM));
    for (int i = 0; i < N; i++)
        CHECK(fb[i] == i + 2.0f, "float sum at %d", i);
    MPI_OK(MPI_Reduce_local(ca, cb, N, MPI_C_DOUBLE_COMPLEX, MPI_PROD));
    for (int i = 0; i < N; i++)
        CHECK(cb[i] == ca[i] * cold[i], "complex prod at %d", i);
}

static void logicals_and_bytes(void)
{
    bool a[4] = { 0, 0, 1, 1 }, b[4] = { 0, 1, 0, 1 };
    unsigned char x[3] = { 0xf0, 0x0f, 0xaa }, y[3] = { 0xff, 0xff, 0x0f };

    MPI_OK(MPI_Reduce_local(a, b, 4, MPI_C_BOOL, MPI_LOR));
    CHECK(!b[0] && b[1] && b[2] && b[3], "bool lor");
    MPI_OK(MPI_Reduce_local(x, y, 3, MPI_BYTE, MPI_BAND));
    CHECK(y[0] == 0xf0 && y[1] == 0x0f && y[2] == 0x0a, "byte band");
}

static void pairs(void)
{
    struct { double v; int i; } a[3] = { { 1, 4 }, { 7, 9 }, { 3, 5 } },
                                b[3] = { { 2, 1 }, { 7, 2 }, { 3, 8 } };
    struct { int v; int i; } c[2] = { { -1, 0 }, { 5, 6 } },
                             d[2] = { { -1, 3 }, { 4, 1 } };

    MPI_OK(MPI_Reduce_local(a, b, 3, MPI_DOUBLE_INT, MPI_MAXLOC));
    CHECK(b[0].v == 2 && b[0].i == 1, "maxloc keeps the larger value");
    CHECK(b[1].v == 7 && b[1].i == 2, "maxloc tie: lower index (%d)", b[1].i);
    CHECK(b[2].v == 3 && b[2].i == 5, "maxloc tie from the other side (%d)", b[2].i);
    MPI_OK(MPI_Reduce_local(c, d, 2, MPI_2INT, MPI_MINLOC));
    CHECK(d[0].v == -1 && d[0].i == 0, "minloc tie: (%d, %d)", d[0].v, d[0].i);
    CHECK(d[1].v == 4 && d[1].i == 1, "minloc keeps the smaller value");
}

static void expect_class(int rc, int cls, const char *what)
{
    int got = -1;

    MPI_Error_class(rc, &got);
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

/* Combinations MPI-3.1 5.9.2 leaves undefined and both libraries refuse.
 * (Open MPI also takes MPI_BYTE for arithmetic, which the standard does
 * not define, so that is not tested.) */
static void errors(void)
{
    float f[2] = { 1, 2 }, g[2] = { 3, 4 };
    bool p[2] = { 1, 0 }, q[2] = { 1, 1 };
    double _Complex z[1] = { 1 }, w[1] = { 2 };
    int x[2] = { 1, 2 }, y[2] = { 3, 4 };
    int commute = -1;

    expect_class(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_LAND), MPI_ERR_OP, "float land");
    expect_class(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_BXOR), MPI_ERR_OP, "float bxor");
    expect_class(MPI_Reduce_local(p, q, 2, MPI_C_BOOL, MPI_SUM), MPI_ERR_OP, "bool sum");
    expect_class(MPI_Reduce_local(z, w, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX), MPI_ERR_OP,
                 "complex max");
    expect_class(MPI_Reduce_local(x, y, 1, MPI_2INT, MPI_SUM), MPI_ERR_OP, "2int sum");
    expect_class(MPI_Reduce_local(x, y, 2, MPI_INT, MPI_MAXLOC), MPI_ERR_OP, "int maxloc");
    expect_class(MPI_Reduce_local(x, y, 2, MPI_INT, MPI_REPLACE), MPI_ERR_OP, "replace");
    expect_class(MPI_Reduce_local(x, y, 2, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "null op");
    expect_class(MPI_Reduce_local(x, y, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT, "count -1");
    expect_class(MPI_Reduce_local(f, g, 0, MPI_FLOAT, MPI_BAND), MPI_ERR_OP, "float band, 0");
    CHECK(g[0] == 3 && g[1] == 4 && y[0] == 3 && y[1] == 4 && q[1] == 1,
          "a failed reduction wrote its output");
    MPI_OK(MPI_Reduce_local(x, y, 0, MPI_INT, MPI_SUM));

    MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
    CHECK(commute == 1, "MPI_SUM commutative: %d", commute);
    MPI_OK(MPI_Op_commutative(MPI_MINLOC, &commute));
    CHECK(commute == 1, "MPI_MINLOC commutative: %d", commute);
    expect_class(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP, "commutative null");
}

/* A derived type of one basic type: the standard defines predefined ops
 * on predefined types only; Weft (like MPICH) reduces over the basic
 * elements, Open MPI refuses with MPI_ERR_OP. Both answers are accepted
 * from other libraries, Weft's must be right. */
static void derived(void)
{
    MPI_Datatype vec;
    int a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 10, 20, 30, 40, 50, 60 };
    int rc;

    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    rc = MPI_Reduce_local(a, b, 1, vec, MPI_SUM);
#ifdef WEFT_MPI
    CHECK(rc == MPI_SUCCESS, "derived vector sum: %d", rc);
#endif
    if (rc == MPI_SUCCESS) {
        CHECK(b[0] == 11 && b[2] == 33 && b[4] == 55, "vector elements summed");
        CHECK(b[1] == 20 && b[3] == 40 && b[5] == 60, "vector gaps untouched");
    } else {
        expect_class(rc, MPI_ERR_OP, "derived vector sum");
    }
    MPI_OK(MPI_Type_free(&vec));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    integers();
    chars();
    reals_and_complex();
    logicals_and_bytes();
    pairs();
    errors();
    derived();
    MPI_OK(MPI_Finalize());
    return 0;
}
