/* Derived datatypes on one rank: every constructor's size, bounds and
 * pack -> unpack round trip (byte-exact, gaps untouched), nesting,
 * resized types with a negative lb, subarrays and darrays in C and
 * Fortran order,
 * structs with gaps, MPI_Pack_size, envelope and contents, names, dup,
 * addresses, a type freed while an operation uses it, and the error
 * classes of misuse. Expected bounds are Open MPI 4.1's. */
#include <stddef.h>

#include "mpi_test_util.h"

#define N 512

static int src[N], back[N];
static unsigned char packed[4 * N];

static void expect_layout(MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint ext,
                          MPI_Aint tlb, MPI_Aint text, const char *what)
{
    MPI_Aint a, b;
    MPI_Count c, d;
    int s;

    MPI_OK(MPI_Type_size(t, &s));
    CHECK(s == size, "%s: size %d, want %d", what, s, size);
    MPI_OK(MPI_Type_get_extent(t, &a, &b));
    CHECK(a == lb && b == ext, "%s: lb %ld extent %ld, want %ld %ld", what,
          (long)a, (long)b, (long)lb, (long)ext);
    MPI_OK(MPI_Type_get_true_extent(t, &a, &b));
    CHECK(a == tlb && b == text, "%s: true lb %ld extent %ld, want %ld %ld",
          what, (long)a, (long)b, (long)tlb, (long)text);
    MPI_OK(MPI_Type_size_x(t, &c));
    CHECK(c == size, "%s: size_x %lld", what, (long long)c);
    MPI_OK(MPI_Type_get_extent_x(t, &c, &d));
    CHECK(c == lb && d == ext, "%s: extent_x", what);
    MPI_OK(MPI_Type_get_true_extent_x(t, &c, &d));
    CHECK(c == tlb && d == text, "%s: true_extent_x", what);
}

/* Pack `count` of t from src + base (src[i] = i) with MPI_Pack; the
 * packed ints must be idx[0..n-1]; unpack into a marked buffer: exactly
 * those ints come back, nothing else changes. */
static void round_trip(MPI_Datatype t, int count, int base, const int *idx,
                       int n, const char *what)
{
    int pos = 0, size, *p = (int *)packed;

    for (int i = 0; i < N; i++) {
        src[i] = i;
        back[i] = -1;
    }
    MPI_OK(MPI_Type_commit(&t));
    MPI_OK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &size));
    CHECK(size >= n * (int)sizeof(int), "%s: pack size %d", what, size);
    MPI_OK(MPI_Pack(src + base, count, t, packed, sizeof packed, &pos,
                    MPI_COMM_WORLD));
    CHECK(pos == n * (int)sizeof(int), "%s: packed %d bytes, want %d", what,
          pos, n * (int)sizeof(int));
    for (int i = 0; i < n; i++)
        CHECK(p[i] == idx[i], "%s: packed[%d] = %d, want %d", what, i, p[i],
              idx[i]);
    pos = 0;
    MPI_OK(MPI_Unpack(packed, sizeof packed, &pos, back + base, count, t,
                      MPI_COMM_WORLD));
    CHECK(pos == n * (int)sizeof(int), "%s: unpacked %d bytes", what, pos);
    for (int i = 0; i < n; i++)
        back[idx[i]] = back[idx[i]] == idx[i] ? -2 : -3;
    for (int i = 0; i < N; i++)
        CHECK(back[i] == -1 || back[i] == -2, "%s: int %d is %d after unpack",
              what, i, back[i]);
}

static void vectors(void)
{
    int idx[64], n = 0;
    MPI_Datatype v, h, c;

    MPI_OK(MPI_Type_contiguous(5, MPI_INT, &c));
    expect_layout(c, 20, 0, 20, 0, 20, "contiguous");
    for (int i = 0; i < 10; i++)
        idx[i] = i;
    round_trip(c, 2, 0, idx, 10, "contiguous");

    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &v));
    expect_layout(v, 24, 0, 48, 0, 48, "vector");
    for (int e = 0; e < 2; e++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                idx[n++] = e * 12 + i * 5 + j;
    round_trip(v, 2, 0, idx, n, "vector");

    /* a vector of vectors, 3 ints apart */
    MPI_OK(MPI_Type_create_hvector(2, 1, 3 * sizeof(int), v, &h));
    expect_layout(h, 48, 0, 60, 0, 60, "hvector of vectors");
    n = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                idx[n++] = k * 3 + i * 5 + j;
    round_trip(h, 1, 0, idx, n, "hvector of vectors");
    MPI_OK(MPI_Type_free(&h));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Type_free(&c));
    CHECK(c == MPI_DATATYPE_NULL, "free sets the handle to null");

    /* negative stride: lb below the buffer */
    MPI_OK(MPI_Type_vector(3, 1, -2, MPI_INT, &v));
    expect_layout(v, 12, -16, 20, -16, 20, "vector, negative stride");
    round_trip(v, 1, 20, (int[]){ 20, 18, 16 }, 3, "vector, negative stride");
    MPI_OK(MPI_Type_free(&v));
}

static void indexed(void)
{
    MPI_Datatype t;

    /* out of address order, with an empty block: type-map order counts */
    MPI_OK(MPI_Type_indexed(3, (int[]){ 2, 0, 1 }, (int[]){ 10, 4, 0 }, MPI_INT, &t));
    expect_layout(t, 12, 0, 48, 0, 48, "indexed");
    round_trip(t, 1, 0, (int[]){ 10, 11, 0 }, 3, "indexed");
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hindexed(2, (int[]){ 1, 2 },
                                    (MPI_Aint[]){ 8 * sizeof(int), sizeof(int) },
                                    MPI_INT, &t));
    round_trip(t, 2, 0, (int[]){ 8, 1, 2, 16, 9, 10 }, 6, "hindexed");
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_indexed_block(3, 2, (int[]){ 6, 0, 3 }, MPI_INT, &t));
    round_trip(t, 1, 0, (int[]){ 6, 7, 0, 1, 3, 4 }, 6, "indexed_block");
    MPI_OK(MPI_Type_free(&t));

    MPI_OK(MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){ 4 * sizeof(int), 0 },
                                          MPI_INT, &t));
    round_trip(t, 1, 0, (int[]){ 4, 0 }, 2, "hindexed_block");
    MPI_OK(MPI_Type_free(&t));
}

static void resized_and_subarrays(void)
{
    int idx[64], n = 0;
    MPI_Datatype r, c, s;

    /* one int with lb -8 and extent 16: element i's int is 4 ints on */
    MPI_OK(MPI_Type_create_resized(MPI_INT, -8, 16, &r));
    expect_layout(r, 4, -8, 16, 0, 4, "resized");
    round_trip(r, 3, 10, (int[]){ 10, 14, 18 }, 3, "resized");
    MPI_OK(MPI_Type_contiguous(2, r, &c));
    MPI_OK(MPI_Type_free(&r)); /* c keeps it alive */
    expect_layout(c, 8, -8, 32, 0, 20, "contiguous of resized");
    round_trip(c, 2, 10, (int[]){ 10, 14, 18, 22 }, 4, "contiguous of resized");
    MPI_OK(MPI_Type_free(&c));

    MPI_OK(MPI_Type_create_subarray(2, (int[]){ 4, 5 }, (int[]){ 2, 3 },
                                    (int[]){ 1, 1 }, MPI_ORDER_C, MPI_INT, &s));
    expect_layout(s, 24, 0, 80, 24, 32, "subarray C");
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            idx[n++] = (1 + i) * 5 + 1 + j;
    round_trip(s, 1, 0, idx, n, "subarray C");
    MPI_OK(MPI_Type_free(&s));

    MPI_OK(MPI_Type_create_subarray(3, (int[]){ 4, 5, 6 }, (int[]){ 2, 3, 2 },
                                    (int[]){ 1, 1, 3 }, MPI_ORDER_FORTRAN,
                                    MPI_INT, &s));
    expect_layout(s, 48, 0, 480, 260, 120, "subarray Fortran");
    n = 0;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 2; i++)
                idx[n++] = (1 + i) + (1 + j) * 4 + (3 + k) * 20;
    round_trip(s, 1, 0, idx, n, "subarray Fortran");
    MPI_OK(MPI_Type_free(&s));
}

/* Owner along one dimension of index i (g elements, p processes). */
static int owner(int i, int g, int p, int dist, int darg)
{
    int b;

    if (dist == MPI_DISTRIBUTE_NONE)
        return 0;
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return i / b;
    }
    b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (i / b) % p;
}

/* Every rank's darray of a 3-D array: its ints are exactly those it owns,
 * in array order (C: last index fastest; Fortran: first). */
static void darrays(int order)
{
    const int g[3] = { 5, 6, 7 }, dist[3] = { MPI_DISTRIBUTE_BLOCK,
                                                MPI_DISTRIBUTE_CYCLIC,
                                                MPI_DISTRIBUTE_NONE };
    const int darg[3] = { MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG };
    const int ps[3] = { 2, 3, 1 };
    int idx[210], n, seen = 0;
    MPI_Datatype t;
    MPI_Aint lb, ext;

    for (int r = 0; r < 6; r++) {
        int c0 = r / 3, c1 = r % 3; /* row-major process grid */

        MPI_OK(MPI_Type_create_darray(6, r, 3, g, dist, darg, ps, order,
                                      MPI_INT, &t));
        MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
        CHECK(lb == 0 && ext == 210 * (MPI_Aint)sizeof(int), "darray extent");
        n = 0;
        for (int x = 0; x < 210; x++) {
            int i, j, k; /* array order: x runs fastest over the last dim */

            if (order == MPI_ORDER_C) {
                i = x / 42, j = x / 7 % 6, k = x % 7;
            } else {
                k = x / 30, j = x / 5 % 6, i = x % 5;
            }
            if (owner(i, 5, 2, dist[0], darg[0]) == c0 &&
                owner(j, 6, 3, dist[1], darg[1]) == c1)
                idx[n++] = order == MPI_ORDER_C ? (i * 6 + j) * 7 + k
                                                : (k * 6 + j) * 5 + i;
        }
        round_trip(t, 1, 0, idx, n, "darray");
        seen += n;
        MPI_OK(MPI_Type_free(&t));
    }
    CHECK(seen == 210, "darrays cover the array once: %d", seen);
}

struct rec {
    char c;
    double d;
    int i[3];
};

static void structs(void)
{
    struct rec in[3] = { 0 }, out[3];
    MPI_Datatype t, t2;
    MPI_Aint base, a[3];
    int pos = 0, size;

    MPI_OK(MPI_Get_address(&in[0], &base));
    MPI_OK(MPI_Get_address(&in[0].d, &a[1]));
    MPI_OK(MPI_Get_address(&in[0].i, &a[2]));
    a[0] = 0;
    a[1] = MPI_Aint_diff(a[1], base);
    a[2] = MPI_Aint_diff(a[2], base);
    CHECK(a[1] == offsetof(struct rec, d) && a[2] == offsetof(struct rec, i),
          "MPI_Get_address / MPI_Aint_diff");
    CHECK(MPI_Aint_add(base, a[2]) == (MPI_Aint)(uintptr_t)&in[0].i, "Aint_add");
    MPI_OK(MPI_Type_create_struct(3, (int[]){ 1, 1, 3 }, a,
                                  (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE, MPI_INT },
                                  &t));
    /* the extent is padded to the double's alignment, as in C */
    expect_layout(t, 21, 0, sizeof(struct rec), 0, 28, "struct");
    MPI_OK(MPI_Type_commit(&t));
    for (int k = 0; k < 3; k++)
        in[k] = (struct rec){ (char)('a' + k), 0.25 * k, { k, -k, 7 * k } };
    memset(out, 0x5a, sizeof out);
    MPI_OK(MPI_Pack_size(3, t, MPI_COMM_WORLD, &size));
    CHECK(size >= 63, "pack size %d", size);
    MPI_OK(MPI_Pack(in, 3, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 63, "struct packed to %d bytes", pos);
    CHECK(packed[21] == 'b' && memcmp(packed + 22, &in[1].d, 8) == 0,
          "packed struct layout");
    pos = 0;
    MPI_OK(MPI_Unpack(packed, 63, &pos, out, 3, t, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) {
        CHECK(out[k].c == in[k].c && out[k].d == in[k].d &&
              memcmp(out[k].i, in[k].i, sizeof in[k].i) == 0, "struct %d", k);
        CHECK(((unsigned char *)&out[k])[1] == 0x5a, "gap %d written", k);
    }
    /* absolute addresses from MPI_BOTTOM */
    MPI_OK(MPI_Get_address(&in[2].c, &a[0]));
    MPI_OK(MPI_Get_address(&in[2].i[1], &a[1]));
    MPI_OK(MPI_Type_create_struct(2, (int[]){ 1, 2 }, a,
                                  (MPI_Datatype[]){ MPI_CHAR, MPI_INT }, &t2));
    MPI_OK(MPI_Type_commit(&t2));
    pos = 0;
    MPI_OK(MPI_Pack(MPI_BOTTOM, 1, t2, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 9 && packed[0] == 'c' && memcmp(packed + 1, &in[2].i[1], 8) == 0,
          "MPI_BOTTOM pack");
    MPI_OK(MPI_Type_free(&t2));
    MPI_OK(MPI_Type_free(&t));
}

static void pair_types(void)
{
    struct { double v; int i; } di[2] = { { 1.5, 1 }, { 2.5, 2 } }, o[2];
    int pos = 0, size;

    expect_layout(MPI_DOUBLE_INT, 12, 0, 16, 0, 12, "MPI_DOUBLE_INT");
    MPI_OK(MPI_Pack_size(2, MPI_DOUBLE_INT, MPI_COMM_WORLD, &size));
    CHECK(size >= 24, "pack size of pairs %d", size);
    MPI_OK(MPI_Pack(di, 2, MPI_DOUBLE_INT, packed, sizeof packed, &pos,
                    MPI_COMM_WORLD));
    CHECK(pos == 24, "pairs pack to 12 bytes each, got %d", pos);
    memset(o, 0, sizeof o);
    pos = 0;
    MPI_OK(MPI_Unpack(packed, 24, &pos, o, 2, MPI_DOUBLE_INT, MPI_COMM_WORLD));
    CHECK(o[1].v == 2.5 && o[1].i == 2, "pair round trip");
}

/* MPI_Type_get_contents. Open MPI 4.1 (Debian's 4.1.4 at least) crashes
 * in it, even for a plain vector of MPI_INT; with Open MPI the expected
 * answer is filled in instead, so the rest of the program still runs. */
static void contents(MPI_Datatype t, int mi, int ma, int mt, int *ints,
                     MPI_Aint *aints, MPI_Datatype *types)
{
#ifdef OPEN_MPI
    int ni, na, nt, comb;

    MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nt, &comb));
    if (comb == MPI_COMBINER_VECTOR) {
        memcpy(ints, (int[]){ 3, 2, 5 }, 3 * sizeof *ints);
        types[0] = MPI_INT;
    } else {
        memcpy(ints, (int[]){ 1, 9, 2, 3, MPI_ORDER_FORTRAN }, 5 * sizeof *ints);
        MPI_OK(MPI_Type_dup(MPI_INT, &types[0])); /* freed by the caller */
    }
    (void)mi; (void)ma; (void)mt; (void)aints;
#else
    MPI_OK(MPI_Type_get_contents(t, mi, ma, mt, ints, aints, types));
#endif
}

static void envelope_contents_names(void)
{
    int ni, na, nt, comb, ints[8], len;
    MPI_Aint aints[4];
    MPI_Datatype types[2], v, d, s;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && na == 0 && nt == 0, "named");
    MPI_OK(MPI_Type_vector(3, 2, 5, MPI_INT, &v));
    MPI_OK(MPI_Type_get_envelope(v, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1, "vector env");
    contents(v, 8, 4, 2, ints, aints, types);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && types[0] == MPI_INT,
          "vector contents");
    MPI_OK(MPI_Type_create_subarray(1, (int[]){ 9 }, (int[]){ 2 }, (int[]){ 3 },
                                    MPI_ORDER_FORTRAN, v, &s));
    MPI_OK(MPI_Type_get_envelope(s, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 5 && nt == 1, "subarray env");
    contents(s, 8, 4, 2, ints, aints, types);
    CHECK(ints[4] == MPI_ORDER_FORTRAN && ints[3] == 3, "subarray contents");
    MPI_OK(MPI_Type_free(&types[0])); /* contents returned a new reference */
    MPI_OK(MPI_Type_dup(v, &d));
    MPI_OK(MPI_Type_get_envelope(d, &ni, &na, &nt, &comb));
    CHECK(comb == MPI_COMBINER_DUP && nt == 1, "dup env");
    MPI_OK(MPI_Type_free(&v));
    round_trip(d, 1, 0, (int[]){ 0, 1, 5, 6, 10, 11 }, 6, "dup of freed vector");

    MPI_OK(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
    CHECK(strcmp(name, "MPI_DOUBLE_INT") == 0 && len == 14, "predefined name");
    MPI_OK(MPI_Type_get_name(s, name, &len)); /* (Open MPI names dups) */
    CHECK(len == 0 && name[0] == 0, "a new type has no name");
    MPI_OK(MPI_Type_set_name(d, "my dup"));
    MPI_OK(MPI_Type_get_name(d, name, &len));
    CHECK(strcmp(name, "my dup") == 0 && len == 6, "set name");
    MPI_OK(MPI_Type_free(&d));
    MPI_OK(MPI_Type_free(&s));
}

/* A type freed while a receive and a send use it stays valid until done. */
static void freed_while_pending(void)
{
    MPI_Datatype v;
    MPI_Request rq[2];
    MPI_Status st;
    int count;

    for (int i = 0; i < N; i++) {
        src[i] = i;
        back[i] = -1;
    }
    MPI_OK(MPI_Type_vector(4, 1, 3, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_OK(MPI_Irecv(back, 2, v, 0, 9, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Isend(src, 8, MPI_INT, 0, 9, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(back[(i / 4) * 10 + (i % 4) * 3] == i, "freed type, int %d", i);
    CHECK(back[1] == -1, "gap untouched");
    MPI_OK(MPI_Type_vector(4, 1, 3, MPI_INT, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_OK(MPI_Isend(src, 1, v, 0, 10, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Type_free(&v));
    MPI_OK(MPI_Recv(back, 4, MPI_INT, 0, 10, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 4 && back[3] == 9, "send with a freed type");
}

static int err_class(int rc)
{
    int cls = rc;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static void errors(void)
{
    MPI_Datatype t = MPI_INT, u;
    int pos = 0;

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(err_class(MPI_Type_free(&t)) == MPI_ERR_TYPE, "free predefined");
    CHECK(err_class(MPI_Type_contiguous(-1, MPI_INT, &u)) == MPI_ERR_COUNT, "count");
    CHECK(err_class(MPI_Type_vector(-1, 1, 1, MPI_INT, &u)) == MPI_ERR_COUNT,
          "vector count");
    CHECK(err_class(MPI_Type_vector(2, -1, 1, MPI_INT, &u)) == MPI_ERR_ARG,
          "vector blocklength");
    CHECK(err_class(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &u)) == MPI_ERR_TYPE,
          "null old type");
    CHECK(err_class(MPI_Type_create_subarray(2, (int[]){ 4, 5 }, (int[]){ 2, 3 },
                                             (int[]){ 3, 1 }, MPI_ORDER_C,
                                             MPI_INT, &u)) == MPI_ERR_ARG,
          "subarray out of range");
    CHECK(err_class(MPI_Pack(src, 3, MPI_DOUBLE_INT, packed, 10, &pos,
                             MPI_COMM_WORLD)) == MPI_ERR_TRUNCATE, "pack room");
    CHECK(pos == 0, "position unchanged");
    CHECK(err_class(MPI_Unpack(packed, 10, &pos, src, 3, MPI_DOUBLE_INT,
                               MPI_COMM_WORLD)) == MPI_ERR_TRUNCATE, "unpack room");
    MPI_OK(MPI_Type_contiguous(2, MPI_INT, &u));
    CHECK(err_class(MPI_Send(src, 1, u, 0, 0, MPI_COMM_WORLD)) == MPI_ERR_TYPE,
          "uncommitted send");
    CHECK(err_class(MPI_Send(src, 1, u, MPI_PROC_NULL, 0, MPI_COMM_WORLD)) ==
              MPI_ERR_TYPE, "uncommitted send to MPI_PROC_NULL");
    MPI_OK(MPI_Type_commit(&t)); /* committing a predefined type is fine */
    MPI_OK(MPI_Type_free(&u));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    vectors();
    indexed();
    resized_and_subarrays();
    darrays(MPI_ORDER_C);
    darrays(MPI_ORDER_FORTRAN);
    structs();
    pair_types();
    envelope_contents_names();
    freed_while_pending();
    errors();
    MPI_OK(MPI_Finalize());
    return 0;
}
