/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with
 * "external32" (MPI-3.1 13.5.2): big-endian bytes at the standard's sizes
 * for basic types, a padded struct and a strided vector packed without
 * their gaps, positions that accumulate, round trips, a buffer too small,
 * and a message packed on one rank and unpacked on another (sent as
 * MPI_BYTE). Also MPI_Type_match_size. Runs on 1 or 2 ranks. */
#include "mpi_test_util.h"

static void expect_bytes(const unsigned char *got, const char *what,
                         const unsigned char *want, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: byte %d is %02x, want %02x", what, i,
              got[i], want[i]);
}

/* Pack one value, check its external32 bytes, unpack it back. */
static void one_value(MPI_Datatype t, const void *val, const char *what,
                      const unsigned char *want, int n)
{
    unsigned char buf[64], back[64];
    MPI_Aint pos = 0, size;

    MPI_OK(MPI_Pack_external_size("external32", 1, t, &size));
#ifdef OPEN_MPI /* Open MPI 4.1 reports an upper bound (8 for MPI_LONG) */
    CHECK(size >= n, "%s: size %ld", what, (long)size);
#else
    CHECK(size == n, "%s: size %ld, want %d", what, (long)size, n);
#endif
    MPI_OK(MPI_Pack_external("external32", val, 1, t, buf, sizeof buf, &pos));
    CHECK(pos == n, "%s: position %ld, want %d", what, (long)pos, n);
    expect_bytes(buf, what, want, n);
    memset(back, 0, sizeof back);
    pos = 0;
    MPI_OK(MPI_Unpack_external("external32", buf, n, &pos, back, 1, t));
    CHECK(pos == n, "%s: unpack position %ld", what, (long)pos);
}

static void basic_types(void)
{
    int i = 0x01020304;
    short s = -2;
    double d = 1.0;
    float f = -1.5f;
    long long ll = 0x0102030405060708LL;
    long l = -3;
    unsigned char u8 = 0xab;
    static const unsigned char wi[] = { 1, 2, 3, 4 }, ws[] = { 0xff, 0xfe },
        wd[] = { 0x3f, 0xf0, 0, 0, 0, 0, 0, 0 }, wf[] = { 0xbf, 0xc0, 0, 0 },
        wll[] = { 1, 2, 3, 4, 5, 6, 7, 8 }, wl[] = { 0xff, 0xff, 0xff, 0xfd },
        wu8[] = { 0xab };

    one_value(MPI_INT, &i, "MPI_INT", wi, 4);
    one_value(MPI_SHORT, &s, "MPI_SHORT", ws, 2);
    one_value(MPI_DOUBLE, &d, "MPI_DOUBLE", wd, 8);
    one_value(MPI_FLOAT, &f, "MPI_FLOAT", wf, 4);
    one_value(MPI_LONG_LONG, &ll, "MPI_LONG_LONG", wll, 8);
    one_value(MPI_LONG, &l, "MPI_LONG", wl, 4); /* 4 bytes in external32 */
    one_value(MPI_UNSIGNED_CHAR, &u8, "MPI_UNSIGNED_CHAR", wu8, 1);
#ifndef OPEN_MPI /* Open MPI 4.1 packs long double wrongly */
    {
        long double x = 1.5L;
        static const unsigned char wx[16] = { 0x3f, 0xff, 0x80 };

        one_value(MPI_LONG_DOUBLE, &x, "MPI_LONG_DOUBLE", wx, 16);
    }
#endif
}

struct rec {
    char c;
    double d;
    int v[2];
};

static MPI_Datatype rec_type(void)
{
    int bl[3] = { 1, 1, 2 };
    MPI_Aint disp[3] = { offsetof(struct rec, c), offsetof(struct rec, d),
                         offsetof(struct rec, v) };
    MPI_Datatype types[3] = { MPI_CHAR, MPI_DOUBLE, MPI_INT }, t, r;

    MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &t));
    MPI_OK(MPI_Type_create_resized(t, 0, sizeof(struct rec), &r));
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_commit(&r));
    return r;
}

/* Two records then a vector, packed one after the other. */
static MPI_Aint pack_message(unsigned char *buf, MPI_Aint cap,
                             MPI_Datatype rec, MPI_Datatype vec)
{
    struct rec r[2] = { { 'A', -2.0, { 1, -1 } }, { 'z', 0.5, { 256, 7 } } };
    int a[6] = { 10, 11, 12, 13, 14, 15 };
    MPI_Aint pos = 0;

    MPI_OK(MPI_Pack_external("external32", r, 2, rec, buf, cap, &pos));
    MPI_OK(MPI_Pack_external("external32", a, 1, vec, buf, cap, &pos));
    return pos;
}

static void check_message(const unsigned char *buf, MPI_Aint n,
                          MPI_Datatype rec, MPI_Datatype vec)
{
    static const unsigned char want[] = {
        'A', 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff,
        'z', 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 7,
        0, 0, 0, 10, 0, 0, 0, 12, 0, 0, 0, 14,
    };
    struct rec r[2];
    int a[6] = { 0 };
    MPI_Aint pos = 0;

    CHECK(n == (MPI_Aint)sizeof want, "message is %ld bytes, want %zu",
          (long)n, sizeof want);
    expect_bytes(buf, "records + vector", want, (int)n);
    memset(r, 0, sizeof r);
    MPI_OK(MPI_Unpack_external("external32", buf, n, &pos, r, 2, rec));
    MPI_OK(MPI_Unpack_external("external32", buf, n, &pos, a, 1, vec));
    CHECK(pos == n, "unpacked %ld of %ld bytes", (long)pos, (long)n);
    CHECK(r[0].c == 'A' && r[0].d == -2.0 && r[0].v[0] == 1 &&
          r[0].v[1] == -1, "record 0 after the round trip");
    CHECK(r[1].c == 'z' && r[1].d == 0.5 && r[1].v[0] == 256 &&
          r[1].v[1] == 7, "record 1 after the round trip");
    CHECK(a[0] == 10 && a[1] == 0 && a[2] == 12 && a[3] == 0 &&
          a[4] == 14 && a[5] == 0, "vector after the round trip");
}

static void errors(MPI_Datatype rec)
{
    struct rec r = { 'x', 1.0, { 1, 2 } };
    unsigned char buf[64];
    MPI_Aint pos = 0, size;
    int rc, cls;

    MPI_OK(MPI_Pack_external_size("external32", 3, rec, &size));
    CHECK(size >= 3 * 17, "struct size %ld", (long)size);
    rc = MPI_Pack_external("external32", &r, 1, rec, buf, 16, &pos);
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && pos == 0, "packing 17 bytes into 16: %d", rc);
#ifndef OPEN_MPI
    CHECK(cls == MPI_ERR_TRUNCATE, "class %d", cls);
#endif
    pos = 0;
    rc = MPI_Unpack_external("external32", buf, 10, &pos, &r, 1, rec);
    CHECK(rc != MPI_SUCCESS && pos == 0, "unpacking 17 bytes from 10: %d", rc);
}

static void match_size(void)
{
    MPI_Datatype t;
    int size, rc;

    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size == 4, "integer of 4 bytes has size %d", size);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size == 8, "integer of 8 bytes has size %d", size);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size == 8, "real of 8 bytes has size %d", size);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    MPI_OK(MPI_Type_size(t, &size));
    CHECK(size == 16, "complex of 16 bytes has size %d", size);
    rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t);
    CHECK(rc != MPI_SUCCESS, "an integer of 3 bytes matched");
    rc = MPI_Type_match_size(12345, 4, &t);
    CHECK(rc != MPI_SUCCESS, "an unknown type class matched");
}

int main(int argc, char **argv)
{
    unsigned char buf[256];
    MPI_Datatype rec, vec;
    MPI_Aint n;
    int rank, size;

    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rec = rec_type();
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));

    basic_types();
    n = pack_message(buf, sizeof buf, rec, vec);
    check_message(buf, n, rec, vec);
    errors(rec);
    match_size();
    if (size >= 2 && rank == 0) {
        MPI_OK(MPI_Send(buf, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
    } else if (size >= 2 && rank == 1) {
        unsigned char in[256];
        MPI_Status st;
        int got;

        MPI_OK(MPI_Recv(in, sizeof in, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st));
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
        check_message(in, got, rec, vec);
    }
    MPI_OK(MPI_Type_free(&rec));
    MPI_OK(MPI_Type_free(&vec));
    MPI_OK(MPI_Finalize());
    return 0;
}
