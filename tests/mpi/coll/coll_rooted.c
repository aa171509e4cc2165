/* Rooted collectives against serial computations of their results:
 * MPI_Bcast, MPI_Reduce (MPI_SUM, MPI_MAX and a non-commutative user op,
 * which must come out in rank order), MPI_Gather(v), MPI_Scatter(v), with
 * several roots, counts 0, 1, odd, and sizes on both sides of the
 * algorithm switches, MPI_IN_PLACE at the root, on MPI_COMM_WORLD and
 * MPI_COMM_SELF. Buffer regions a collective must not write (gaps of the
 * v forms, non-root receive buffers) are checked untouched.
 */
#include "coll_test.h"

static int rank, size;

static const int counts[] = { 0, 1, 37, 3001, 40000 };
#define NCOUNTS (int)(sizeof counts / sizeof counts[0])
#define POISON (-7)

static void test_bcast(MPI_Comm comm, int n, int root, int seed)
{
    int me, np, *buf = xmalloc((size_t)n * sizeof *buf);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    for (int i = 0; i < n; i++)
        buf[i] = me == root ? coll_val(root, i, seed) : POISON;
    MPI_OK(MPI_Bcast(buf, n, MPI_INT, root, comm));
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == coll_val(root, i, seed), "bcast n=%d root=%d [%d]=%d", n, root,
              i, buf[i]);
    free(buf);
}

static void test_reduce_sum(MPI_Comm comm, int n, int root, int seed, int in_place)
{
    int me, np, *s = xmalloc((size_t)n * sizeof *s), *r = xmalloc((size_t)n * sizeof *r);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    for (int i = 0; i < n; i++) {
        s[i] = coll_val(me, i, seed);
        r[i] = in_place && me == root ? s[i] : POISON;
    }
    MPI_OK(MPI_Reduce(in_place && me == root ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM,
                      root, comm));
    for (int i = 0; i < n; i++) {
        int want = 0;
        for (int q = 0; q < np; q++)
            want += coll_val(q, i, seed);
        if (me == root)
            CHECK(r[i] == want, "reduce sum n=%d root=%d [%d]=%d want %d", n, root, i,
                  r[i], want);
        else
            CHECK(r[i] == POISON, "reduce wrote a non-root buffer");
    }
    free(s);
    free(r);
}

static void test_reduce_max(MPI_Comm comm, int n, int root, int seed)
{
    int me, np;
    double *s = xmalloc((size_t)n * sizeof *s), *r = xmalloc((size_t)n * sizeof *r);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    for (int i = 0; i < n; i++)
        s[i] = (double)((me * 31 + i * 17 + seed) % 101) + 0.5;
    MPI_OK(MPI_Reduce(s, r, n, MPI_DOUBLE, MPI_MAX, root, comm));
    for (int i = 0; i < n && me == root; i++) {
        double want = -1;
        for (int q = 0; q < np; q++) {
            double v = (double)((q * 31 + i * 17 + seed) % 101) + 0.5;
            want = v > want ? v : want;
        }
        CHECK(r[i] == want, "reduce max n=%d [%d]=%g want %g", n, i, r[i], want);
    }
    free(s);
    free(r);
}

static void test_reduce_mat(MPI_Comm comm, int n, int root, int seed, int in_place)
{
    int me, np;
    mat2 *s = xmalloc((size_t)n * sizeof *s), *r = xmalloc((size_t)n * sizeof *r);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    for (int i = 0; i < n; i++)
        r[i] = s[i] = mat_of(me, i, seed);
    MPI_OK(MPI_Reduce(in_place && me == root ? MPI_IN_PLACE : s, r, n, mat_type, mat_op,
                      root, comm));
    for (int i = 0; i < n && me == root; i++)
        CHECK(mat_eq(r[i], mat_range(0, np, i, seed)),
              "non-commutative reduce n=%d root=%d: element %d not in rank order", n,
              root, i);
    free(s);
    free(r);
}

static void test_gather(MPI_Comm comm, int n, int root, int seed, int in_place)
{
    int me, np, *s, *r;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    s = xmalloc((size_t)n * sizeof *s);
    r = xmalloc((size_t)n * np * sizeof *r);
    for (int i = 0; i < n; i++)
        s[i] = coll_val(me, i, seed);
    for (long i = 0; i < (long)n * np; i++)
        r[i] = POISON;
    if (in_place && me == root)
        memcpy(r + (long)root * n, s, (size_t)n * sizeof *s);
    MPI_OK(MPI_Gather(in_place && me == root ? MPI_IN_PLACE : s, n, MPI_INT, r, n,
                      MPI_INT, root, comm));
    for (int q = 0; q < np && me == root; q++)
        for (int i = 0; i < n; i++)
            CHECK(r[(long)q * n + i] == coll_val(q, i, seed), "gather n=%d root=%d q=%d [%d]",
                  n, root, q, i);
    free(s);
    free(r);
}

static void test_scatter(MPI_Comm comm, int n, int root, int seed, int in_place)
{
    int me, np, *s = NULL, *r = xmalloc((size_t)n * sizeof *r);

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    if (me == root) {
        s = xmalloc((size_t)n * np * sizeof *s);
        for (int q = 0; q < np; q++)
            for (int i = 0; i < n; i++)
                s[(long)q * n + i] = coll_val(q, i, seed);
    }
    for (int i = 0; i < n; i++)
        r[i] = POISON;
    MPI_OK(MPI_Scatter(s, n, MPI_INT, in_place && me == root ? MPI_IN_PLACE : r, n, MPI_INT,
                       root, comm));
    for (int i = 0; i < n && !(in_place && me == root); i++)
        CHECK(r[i] == coll_val(me, i, seed), "scatter n=%d root=%d [%d]=%d", n, root, i,
              r[i]);
    for (int q = 0; q < np && me == root; q++) /* the send buffer is intact */
        for (int i = 0; i < n; i++)
            CHECK(s[(long)q * n + i] == coll_val(q, i, seed), "scatter wrote its input");
    free(s);
    free(r);
}

/* v forms: rank q's block has vcount(q) elements at displacement
 * vdisp(q), with gaps between blocks that must stay untouched. */
static int vcount(int q, int base)
{
    return (q * 5 + base) % 11;
}

static int vdisp(int q, int base)
{
    int d = 0;

    for (int p = 0; p < q; p++)
        d += vcount(p, base) + 3;
    return d + 2;
}

static void test_gatherv(MPI_Comm comm, int base, int root, int seed, int in_place)
{
    int me, np, total, *rc, *dp, *s, *r;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    rc = xmalloc((size_t)np * sizeof *rc);
    dp = xmalloc((size_t)np * sizeof *dp);
    for (int q = 0; q < np; q++)
        rc[q] = vcount(q, base), dp[q] = vdisp(q, base);
    total = vdisp(np, base);
    s = xmalloc((size_t)rc[me] * sizeof *s);
    r = xmalloc((size_t)total * sizeof *r);
    for (int i = 0; i < rc[me]; i++)
        s[i] = coll_val(me, i, seed);
    for (int i = 0; i < total; i++)
        r[i] = POISON;
    if (in_place && me == root)
        memcpy(r + dp[me], s, (size_t)rc[me] * sizeof *s);
    MPI_OK(MPI_Gatherv(in_place && me == root ? MPI_IN_PLACE : s, rc[me], MPI_INT, r, rc,
                       dp, MPI_INT, root, comm));
    for (int q = 0; q < np && me == root; q++) {
        for (int i = 0; i < rc[q]; i++)
            CHECK(r[dp[q] + i] == coll_val(q, i, seed), "gatherv root=%d q=%d [%d]", root,
                  q, i);
        CHECK(r[dp[q] - 1] == POISON && r[dp[q] - 2] == POISON, "gatherv wrote a gap");
    }
    free(rc), free(dp), free(s), free(r);
}

static void test_scatterv(MPI_Comm comm, int base, int root, int seed)
{
    int me, np, *sc, *dp, *s, *r;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    sc = xmalloc((size_t)np * sizeof *sc);
    dp = xmalloc((size_t)np * sizeof *dp);
    for (int q = 0; q < np; q++)
        sc[q] = vcount(q, base), dp[q] = vdisp(q, base);
    s = xmalloc((size_t)vdisp(np, base) * sizeof *s);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < sc[q]; i++)
            s[dp[q] + i] = coll_val(q, i, seed);
    r = xmalloc((size_t)(sc[me] + 1) * sizeof *r);
    for (int i = 0; i <= sc[me]; i++)
        r[i] = POISON;
    MPI_OK(MPI_Scatterv(s, sc, dp, MPI_INT, r, sc[me], MPI_INT, root, comm));
    for (int i = 0; i < sc[me]; i++)
        CHECK(r[i] == coll_val(me, i, seed), "scatterv root=%d [%d]=%d", root, i, r[i]);
    CHECK(r[sc[me]] == POISON, "scatterv wrote past the block");
    free(sc), free(dp), free(s), free(r);
}

/* Different datatypes of one type signature on different ranks: the
 * root uses 2n MPI_INTs, the others n elements of a strided type (two
 * ints with a hole), so the algorithm choices must not depend on the
 * local type, and non-contiguous data is packed on the way. */
static void test_mixed_types(MPI_Comm comm, int n, int root, int seed)
{
    MPI_Datatype vt;
    int me, np, *b;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vt));
    MPI_OK(MPI_Type_commit(&vt));
    b = xmalloc((size_t)(3 * n + 1) * (size_t)np * sizeof *b);
    for (long i = 0; i < (long)(3 * n + 1) * np; i++)
        b[i] = me == root && i < 2L * n ? coll_val(root, i, seed) : POISON;
    if (me == root)
        MPI_OK(MPI_Bcast(b, 2 * n, MPI_INT, root, comm));
    else
        MPI_OK(MPI_Bcast(b, n, vt, root, comm));
    for (long i = 0; i < n && me != root; i++) {
        CHECK(b[3 * i] == coll_val(root, 2 * i, seed) &&
              b[3 * i + 2] == coll_val(root, 2 * i + 1, seed), "typed bcast n=%d [%ld]", n, i);
        CHECK(b[3 * i + 1] == POISON, "typed bcast wrote a hole");
    }
    /* gather: strided blocks in, contiguous blocks out at the root */
    for (long i = 0; i < n && me != root; i++)
        b[3 * i] = coll_val(me, 2 * i, seed), b[3 * i + 2] = coll_val(me, 2 * i + 1, seed);
    if (me == root) {
        int *r = xmalloc((size_t)2 * n * np * sizeof *r);
        MPI_OK(MPI_Gather(MPI_IN_PLACE, 0, MPI_INT, r, 2 * n, MPI_INT, root, comm));
        for (int q = 0; q < np; q++)
            for (long i = 0; i < 2L * n && q != root; i++)
                CHECK(r[q * 2L * n + i] == coll_val(q, i, seed), "typed gather q=%d [%ld]", q, i);
        free(r);
    } else {
        MPI_OK(MPI_Gather(b, n, vt, NULL, 0, MPI_INT, root, comm));
    }
    free(b);
    MPI_OK(MPI_Type_free(&vt));
}

static void run_all(MPI_Comm comm)
{
    int np, seed = 0;

    MPI_Comm_size(comm, &np);
    int roots[3] = { 0, np - 1, np / 2 };
    for (int c = 0; c < NCOUNTS; c++) {
        for (int k = 0; k < 3; k++) {
            int n = counts[c], root = roots[k], ip = (c + k) % 2;
            if (k > 0 && roots[k] == roots[k - 1])
                continue;
            seed++;
            test_bcast(comm, n, root, seed);
            test_reduce_sum(comm, n, root, seed, ip);
            test_reduce_max(comm, n, root, seed);
            test_reduce_mat(comm, n > 5000 ? n / 8 : n, root, seed, !ip);
            test_gather(comm, n, root, seed, ip);
            test_scatter(comm, n, root, seed, !ip);
            test_mixed_types(comm, n, root, seed);
        }
    }
    for (int base = 0; base < 3; base++)
        for (int root = 0; root < np; root += (np > 4 ? 3 : 1)) {
            test_gatherv(comm, base, root, base + root, (base + root) % 2);
            test_scatterv(comm, base, root, base + root);
        }
}

int main(int argc, char **argv)
{
    MPI_OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mat_setup();
    run_all(MPI_COMM_WORLD);
    run_all(MPI_COMM_SELF);
    mat_teardown();
    MPI_OK(MPI_Finalize());
    return 0;
}
