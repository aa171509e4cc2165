/* Derived datatypes over point-to-point: vector -> contiguous and back
 * (small and large: eager and rendezvous), structs with gaps, subarrays,
 * partial receives (MPI_Get_count undefined, MPI_Get_elements counting
 * the basic elements that came), truncation, probe, persistent, buffered,
 * synchronous, Sendrecv_replace, MPI_PACKED messages, a type freed while
 * a receive using it is pending, and types shared and freed by several
 * threads at once (MPI_THREAD_MULTIPLE). Ranks 0 and 1 talk; any other rank
 * runs the same exchanges with itself. Gaps of receive buffers must come
 * back untouched. */
#include <pthread.h>
#include <stddef.h>

#include "mpi_test_util.h"

#define BIG 300000 /* doubles: 2.4 MB packed, above any eager limit */

static int me, peer; /* peer: the rank this one exchanges with */

static void fill(double *a, int n, double base)
{
    for (int i = 0; i < n; i++)
        a[i] = base + i;
}

/* Vector of n doubles, stride 2: sent as one element, received as n
 * contiguous doubles, sent back contiguous and received as the vector. */
static void vector_round_trip(int n, int tag)
{
    double *a = malloc(2 * (size_t)n * sizeof *a), *c = malloc((size_t)n * sizeof *c);
    MPI_Datatype v;
    MPI_Status st;
    int count;

    CHECK(a && c, "memory");
    MPI_OK(MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v));
    MPI_OK(MPI_Type_commit(&v));
    fill(a, 2 * n, me * 1e7);
    MPI_OK(MPI_Sendrecv(a, 1, v, peer, tag, c, n, MPI_DOUBLE, peer, tag,
                        MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == n, "vector -> contiguous: %d doubles, want %d", count, n);
    for (int i = 0; i < n; i++)
        CHECK(c[i] == peer * 1e7 + 2 * i, "vector -> contiguous [%d] = %g", i, c[i]);
    for (int i = 0; i < 2 * n; i++)
        a[i] = -1;
    MPI_OK(MPI_Sendrecv(c, n, MPI_DOUBLE, peer, tag + 1, a, 1, v, peer,
                        tag + 1, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, v, &count));
    CHECK(count == 1, "contiguous -> vector: count %d", count);
    MPI_OK(MPI_Get_elements(&st, v, &count));
    CHECK(count == n, "contiguous -> vector: %d elements", count);
    for (int i = 0; i < 2 * n; i++)
        CHECK(a[i] == (i % 2 ? -1 : me * 1e7 + i), "contiguous -> vector [%d] = %g",
              i, a[i]);
    MPI_OK(MPI_Type_free(&v));
    free(a);
    free(c);
}

struct rec {
    char c;
    double d;
    int i[3];
};

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t;

    MPI_OK(MPI_Type_create_struct(3, (int[]){ 1, 1, 3 },
                                  (MPI_Aint[]){ offsetof(struct rec, c),
                                                offsetof(struct rec, d),
                                                offsetof(struct rec, i) },
                                  (MPI_Datatype[]){ MPI_CHAR, MPI_DOUBLE, MPI_INT },
                                  &t));
    MPI_OK(MPI_Type_commit(&t));
    return t;
}

/* Structs with gaps, nonblocking, both directions at once. */
static void structs(int n, int tag)
{
    struct rec *s = calloc((size_t)n, sizeof *s), *r = malloc((size_t)n * sizeof *r);
    MPI_Datatype t = rec_type();
    MPI_Request rq[2];

    CHECK(s && r, "memory");
    for (int k = 0; k < n; k++)
        s[k] = (struct rec){ (char)(k + me), k * 0.5 + me, { k, me, -k } };
    memset(r, 0x77, (size_t)n * sizeof *r);
    MPI_OK(MPI_Irecv(r, n, t, peer, tag, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(s, n, t, peer, tag, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    for (int k = 0; k < n; k++) {
        CHECK(r[k].c == (char)(k + peer) && r[k].d == k * 0.5 + peer &&
              r[k].i[0] == k && r[k].i[1] == peer && r[k].i[2] == -k,
              "struct %d of %d", k, n);
        CHECK(((unsigned char *)&r[k])[3] == 0x77, "struct %d: gap written", k);
    }
    MPI_OK(MPI_Type_free(&t));
    free(s);
    free(r);
}

/* A 2-D block of a Fortran-order grid goes to another position of the
 * peer's C-order grid (same shape of block). */
static void subarrays(int tag)
{
    enum { R = 60, C = 70 };
    static int g[R * C], h[R * C];
    MPI_Datatype fs, cs;

    for (int i = 0; i < R * C; i++) {
        g[i] = me * 100000 + i;
        h[i] = -1;
    }
    /* Fortran: sizes (C, R) with the first index fastest = a C grid R x C */
    MPI_OK(MPI_Type_create_subarray(2, (int[]){ C, R }, (int[]){ 20, 10 },
                                    (int[]){ 5, 3 }, MPI_ORDER_FORTRAN, MPI_INT, &fs));
    MPI_OK(MPI_Type_create_subarray(2, (int[]){ R, C }, (int[]){ 10, 20 },
                                    (int[]){ 40, 50 }, MPI_ORDER_C, MPI_INT, &cs));
    MPI_OK(MPI_Type_commit(&fs));
    MPI_OK(MPI_Type_commit(&cs));
    MPI_OK(MPI_Sendrecv(g, 1, fs, peer, tag, h, 1, cs, peer, tag, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) {
            int in = i >= 40 && i < 50 && j >= 50 && j < 70;
            int want = in ? peer * 100000 + (i - 40 + 3) * C + (j - 50 + 5) : -1;

            CHECK(h[i * C + j] == want, "grid (%d,%d) = %d, want %d", i, j,
                  h[i * C + j], want);
        }
    MPI_OK(MPI_Type_free(&fs));
    MPI_OK(MPI_Type_free(&cs));
}

/* A message of 5 basic elements (int, double, double, int, double) into
 * a receive of 3 {int, double, double}: one whole element and 2 basic
 * elements of the next. Then a receive too small: MPI_ERR_TRUNCATE. */
static void partial_and_truncated(int tag)
{
    double sbuf[8] = { 0 }, rbuf[12];
    MPI_Datatype s5, r3, rr;
    MPI_Status st;
    MPI_Count cx;
    int count, rc, cls;

    MPI_OK(MPI_Type_create_struct(5, (int[]){ 1, 1, 1, 1, 1 },
                                  (MPI_Aint[]){ 0, 8, 16, 24, 32 },
                                  (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE, MPI_DOUBLE,
                                                    MPI_INT, MPI_DOUBLE }, &s5));
    MPI_OK(MPI_Type_create_struct(2, (int[]){ 1, 2 }, (MPI_Aint[]){ 0, 8 },
                                  (MPI_Datatype[]){ MPI_INT, MPI_DOUBLE }, &r3));
    MPI_OK(MPI_Type_commit(&s5));
    MPI_OK(MPI_Type_commit(&r3));
    int i11 = 11, i33 = 33, j0, j3;

    memcpy(&sbuf[0], &i11, sizeof i11);
    sbuf[1] = 1.5;
    sbuf[2] = 2.5;
    memcpy(&sbuf[3], &i33, sizeof i33);
    sbuf[4] = 4.5;
    memset(rbuf, 0, sizeof rbuf);
    MPI_OK(MPI_Sendrecv(sbuf, 1, s5, peer, tag, rbuf, 3, r3, peer, tag,
                        MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, r3, &count));
    CHECK(count == MPI_UNDEFINED, "partial: count %d, want MPI_UNDEFINED", count);
    MPI_OK(MPI_Get_elements(&st, r3, &count));
    CHECK(count == 5, "partial: %d basic elements, want 5", count);
    MPI_OK(MPI_Get_elements_x(&st, r3, &cx));
    CHECK(cx == 5, "partial: elements_x %lld", (long long)cx);
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == 4 + 8 + 8 + 4 + 8, "partial: %d bytes", count);
    memcpy(&j0, &rbuf[0], sizeof j0);
    memcpy(&j3, &rbuf[3], sizeof j3);
    CHECK(j0 == 11 && rbuf[1] == 1.5 && rbuf[2] == 2.5 && j3 == 33 &&
          rbuf[4] == 4.5 && rbuf[5] == 0, "partial: data");

    /* truncation: 2 elements of r3 arrive where 1 fits */
    MPI_OK(MPI_Type_contiguous(1, r3, &rr));
    MPI_OK(MPI_Type_commit(&rr));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Sendrecv(rbuf, 2, r3, peer, tag + 1, sbuf, 1, rr, peer, tag + 1,
                      MPI_COMM_WORLD, &st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncation: class %d", cls);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_OK(MPI_Type_free(&rr));
    MPI_OK(MPI_Type_free(&s5));
    MPI_OK(MPI_Type_free(&r3));
}

/* Persistent, buffered and synchronous sends, probe, Sendrecv_replace and
 * MPI_PACKED with one vector type; the receive's type is freed while the
 * receive is pending. */
static void modes(int n, int tag)
{
    double *a = malloc(3 * (size_t)n * sizeof *a), *b = malloc(3 * (size_t)n * sizeof *b);
    int bsize = n * 8 + MPI_BSEND_OVERHEAD + 64, count, pos = 0;
    void *battach = malloc((size_t)bsize), *bdet;
    char *pk = malloc((size_t)n * 8 + 16);
    MPI_Datatype v, w;
    MPI_Request rq, ps;
    MPI_Status st;

    CHECK(a && b && battach && pk, "memory");
    MPI_OK(MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &v));
    MPI_OK(MPI_Type_commit(&v));
    MPI_OK(MPI_Type_dup(v, &w));
    MPI_OK(MPI_Send_init(a, 1, v, peer, tag, MPI_COMM_WORLD, &ps));
    for (int round = 0; round < 2; round++) {
        fill(a, 3 * n, me * 1e7 + round * 1e6);
        MPI_OK(MPI_Irecv(b, n, MPI_DOUBLE, peer, tag, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Start(&ps));
        MPI_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int i = 0; i < n; i++)
            CHECK(b[i] == peer * 1e7 + round * 1e6 + 3 * i, "persistent %d [%d]",
                  round, i);
    }
    MPI_OK(MPI_Request_free(&ps));

    /* the receive's type (a dup) is freed while the receive is pending */
    for (int i = 0; i < 3 * n; i++)
        b[i] = -1;
    MPI_OK(MPI_Irecv(b, 1, w, peer, tag + 1, MPI_COMM_WORLD, &rq));
    MPI_OK(MPI_Type_free(&w));
    MPI_OK(MPI_Buffer_attach(battach, bsize));
    MPI_OK(MPI_Bsend(a, 1, v, peer, tag + 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&rq, &st));
    MPI_OK(MPI_Buffer_detach(&bdet, &bsize));
    for (int i = 0; i < 3 * n; i++)
        CHECK(b[i] == (i % 3 ? -1 : peer * 1e7 + 1e6 + i), "bsend [%d] = %g", i, b[i]);

    /* synchronous send, received after a probe sized with the vector */
    MPI_OK(MPI_Issend(a, 1, v, peer, tag + 2, MPI_COMM_WORLD, &ps));
    MPI_OK(MPI_Probe(peer, tag + 2, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, v, &count));
    CHECK(count == 1, "probe: count %d", count);
    MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &count));
    CHECK(count == n, "probe: %d doubles", count);
    MPI_OK(MPI_Recv(b, 1, v, peer, tag + 2, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));

    /* Sendrecv_replace in place through the vector */
    fill(b, 3 * n, me * 1e7);
    MPI_OK(MPI_Sendrecv_replace(b, 1, v, peer, tag + 3, peer, tag + 3,
                                MPI_COMM_WORLD, &st));
    for (int i = 0; i < 3 * n; i++)
        CHECK(b[i] == (i % 3 ? me * 1e7 : peer * 1e7) + i, "replace [%d]", i);

    /* MPI_PACKED both ways */
    MPI_OK(MPI_Pack(a, 1, v, pk, n * 8 + 16, &pos, MPI_COMM_WORLD));
    MPI_OK(MPI_Sendrecv_replace(pk, pos, MPI_PACKED, peer, tag + 4, peer,
                                tag + 4, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 3 * n; i++)
        b[i] = -1;
    pos = 0;
    MPI_OK(MPI_Unpack(pk, n * 8 + 16, &pos, b, 1, v, MPI_COMM_WORLD));
    for (int i = 0; i < 3 * n; i++)
        CHECK(b[i] == (i % 3 ? -1 : peer * 1e7 + 1e6 + i), "packed [%d]", i);
    MPI_OK(MPI_Type_free(&v));
    free(a);
    free(b);
    free(battach);
    free(pk);
}

/* MPI_THREAD_MULTIPLE: threads share one vector type (its reference
 * count moves from all of them at once) and each builds, uses and frees
 * types of its own while its receives are pending. */
#define NTHREADS 4
#define TITERS 40

static MPI_Datatype shared_v; /* 8 ints, stride 2 */

static void *worker(void *arg)
{
    int tag = 1000 + (int)(intptr_t)arg, s[16], r[16];
    MPI_Datatype mine;
    MPI_Request rq;

    for (int it = 0; it < TITERS; it++) {
        for (int i = 0; i < 16; i++) {
            s[i] = me * 100000 + tag * 100 + it + i;
            r[i] = -1;
        }
        MPI_OK(MPI_Type_vector(8, 1, 2, MPI_INT, &mine));
        MPI_OK(MPI_Type_commit(&mine));
        MPI_OK(MPI_Irecv(r + 1, 1, mine, peer, tag, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Type_free(&mine));
        MPI_OK(MPI_Send(s, 1, shared_v, peer, tag, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int i = 0; i < 16; i++)
            CHECK(r[i] == (i % 2 ? peer * 100000 + tag * 100 + it + i - 1 : -1),
                  "thread %d iteration %d: int %d = %d", tag, it, i, r[i]);
    }
    return NULL;
}

static void threads(void)
{
    pthread_t t[NTHREADS];

    MPI_OK(MPI_Type_vector(8, 1, 2, MPI_INT, &shared_v));
    MPI_OK(MPI_Type_commit(&shared_v));
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0,
              "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    MPI_OK(MPI_Type_free(&shared_v));
}

int main(int argc, char **argv)
{
    int np, provided;

    MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &np));
    peer = me < 2 && np >= 2 ? 1 - me : me;
    vector_round_trip(5, 10);
    vector_round_trip(BIG, 20);
    structs(3, 30);
    structs(20000, 40); /* 420 KB packed */
    subarrays(50);
    partial_and_truncated(60);
    modes(7, 70);
    modes(BIG / 3, 80);
    threads();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Finalize());
    return 0;
}
