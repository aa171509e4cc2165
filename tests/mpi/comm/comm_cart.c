/* Cartesian topologies: MPI_Cart_create (with and without periodic
 * dimensions, a grid smaller than the communicator), _coords and _rank
 * round trips, _shift (wrap-around and MPI_PROC_NULL at the edges), a
 * halo exchange along each dimension through the shifted neighbours,
 * _sub, _get, MPI_Cartdim_get, MPI_Topo_test, MPI_Cart_map, dup keeping
 * the topology, and error classes under MPI_ERRORS_RETURN.
 */
#include "mpi_test_util.h"

static int rank, size;

/* dims for n ranks over nd dimensions, largest first (as MPI_Dims_create
 * would; computed here to keep this test independent of it). */
static void grid(int n, int nd, int *dims)
{
    for (int i = 0; i < nd; i++)
        dims[i] = 1;
    for (int f = 2; n > 1;) {
        if (n % f) {
            f++;
            continue;
        }
        int small = 0;
        for (int i = 1; i < nd; i++)
            if (dims[i] < dims[small])
                small = i;
        dims[small] *= f;
        n /= f;
    }
}

static void check_grid(int nd, const int *periods)
{
    MPI_Comm c, d;
    int dims[3], coords[3], back, r, n, kind, got[3], gp[3], gc[3];

    grid(size, nd, dims);
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &c));
    MPI_OK(MPI_Comm_rank(c, &r));
    MPI_OK(MPI_Topo_test(c, &kind));
    CHECK(kind == MPI_CART, "topo_test %d", kind);
    MPI_OK(MPI_Cartdim_get(c, &n));
    CHECK(n == nd, "cartdim %d", n);
    MPI_OK(MPI_Cart_get(c, nd, got, gp, gc));
    /* round trips for every rank */
    for (int q = 0; q < size; q++) {
        MPI_OK(MPI_Cart_coords(c, q, nd, coords));
        MPI_OK(MPI_Cart_rank(c, coords, &back));
        CHECK(back == q, "coords/rank round trip %d -> %d", q, back);
        if (q == r)
            for (int i = 0; i < nd; i++)
                CHECK(gc[i] == coords[i], "cart_get coords");
    }
    for (int i = 0; i < nd; i++)
        CHECK(got[i] == dims[i] && (gp[i] != 0) == (periods[i] != 0),
              "cart_get dims");
    /* row-major: the last dimension varies fastest */
    MPI_OK(MPI_Cart_coords(c, r, nd, coords));
    int lin = 0;
    for (int i = 0; i < nd; i++)
        lin = lin * dims[i] + coords[i];
    CHECK(lin == r, "rank %d is not row-major (%d)", r, lin);
    /* shifts and a halo exchange along each dimension */
    for (int dim = 0; dim < nd; dim++) {
        int src, dst, mine = r, from = -7;
        MPI_OK(MPI_Cart_shift(c, dim, 1, &src, &dst));
        int up = coords[dim] + 1, down = coords[dim] - 1;
        if (periods[dim]) {
            CHECK(src != MPI_PROC_NULL && dst != MPI_PROC_NULL, "periodic edge");
        } else {
            CHECK((up >= dims[dim]) == (dst == MPI_PROC_NULL), "dst at edge");
            CHECK((down < 0) == (src == MPI_PROC_NULL), "src at edge");
        }
        if (dst != MPI_PROC_NULL) {
            int cc[3];
            MPI_OK(MPI_Cart_coords(c, dst, nd, cc));
            CHECK(cc[dim] == (up % dims[dim]), "dst coordinate");
        }
        MPI_OK(MPI_Sendrecv(&mine, 1, MPI_INT, dst, 3, &from, 1, MPI_INT, src, 3,
                            c, MPI_STATUS_IGNORE));
        CHECK(from == (src == MPI_PROC_NULL ? -7 : src), "halo from %d: %d", src, from);
        /* a shift by -1 is the reverse */
        int s2, d2;
        MPI_OK(MPI_Cart_shift(c, dim, -1, &s2, &d2));
        CHECK(s2 == dst && d2 == src, "shift -1 is not the reverse");
    }
    /* periodic coordinates out of range wrap in MPI_Cart_rank */
    if (periods[0]) {
        int cc[3];
        MPI_OK(MPI_Cart_coords(c, r, nd, cc));
        cc[0] += dims[0];
        MPI_OK(MPI_Cart_rank(c, cc, &back));
        CHECK(back == r, "periodic wrap in cart_rank");
    }
    /* dup keeps the topology */
    MPI_OK(MPI_Comm_dup(c, &d));
    MPI_OK(MPI_Topo_test(d, &kind));
    CHECK(kind == MPI_CART, "dup lost the topology");
    MPI_OK(MPI_Comm_free(&d));
    /* sub: keep the last dimension: rows of the grid */
    if (nd >= 2) {
        int remain[3] = { 0 }, sr, ss, sdims[3], sp[3], sc[3];
        remain[nd - 1] = 1;
        MPI_OK(MPI_Cart_sub(c, remain, &d));
        MPI_OK(MPI_Comm_rank(d, &sr));
        MPI_OK(MPI_Comm_size(d, &ss));
        CHECK(ss == dims[nd - 1] && sr == coords[nd - 1], "sub: rank %d size %d", sr, ss);
        MPI_OK(MPI_Cartdim_get(d, &n));
        CHECK(n == 1, "sub dims %d", n);
        MPI_OK(MPI_Cart_get(d, 1, sdims, sp, sc));
        CHECK(sdims[0] == dims[nd - 1] && sc[0] == coords[nd - 1], "sub get");
        int sum = 0, one = r;
        MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d));
        int row0 = r - coords[nd - 1], want = 0;
        for (int i = 0; i < ss; i++)
            want += row0 + i;
        CHECK(sum == want, "row sum %d, expected %d", sum, want);
        MPI_OK(MPI_Comm_free(&d));
    }
    MPI_OK(MPI_Comm_free(&c));
}

static void check_smaller(void)
{
    MPI_Comm c;
    int dims[1] = { size > 1 ? size - 1 : 1 }, periods[1] = { 1 }, nr;

    MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &nr));
    /* ranks outside the grid should get MPI_UNDEFINED; Open MPI 4.1
     * returns their rank unchanged, so only the inside is checked */
    CHECK(rank >= dims[0] || nr == rank, "cart_map %d", nr);
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &c));
    if (rank >= dims[0]) {
        CHECK(c == MPI_COMM_NULL, "rank outside the grid got a communicator");
        return;
    }
    int s;
    MPI_OK(MPI_Comm_size(c, &s));
    CHECK(s == dims[0], "grid size %d", s);
    MPI_OK(MPI_Comm_free(&c));
}

static void check_errors(void)
{
    MPI_Comm c;
    int dims[2] = { size + 1, 1 }, periods[2] = { 0, 0 }, cls, x;

    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    cls = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
    CHECK(cls == MPI_ERR_ARG, "grid too large: %d", cls);
    dims[0] = -1;
    cls = MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
    /* MPI_ERR_DIMS is the standard's class; Open MPI 4.1 says OTHER */
    CHECK(cls == MPI_ERR_DIMS || cls == MPI_ERR_OTHER, "negative dim: %d", cls);
    cls = MPI_Cartdim_get(MPI_COMM_WORLD, &x);
    CHECK(cls == MPI_ERR_TOPOLOGY, "cartdim of world: %d", cls);
    cls = MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &x, &x);
    CHECK(cls == MPI_ERR_TOPOLOGY, "shift on world: %d", cls);
    MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &x));
    CHECK(x == MPI_UNDEFINED, "world has a topology: %d", x);
    dims[0] = size;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
#ifdef WEFT_MPI
    /* Erroneous calls Open MPI 4.1 does not check (it answers garbage):
     * only Weft's classes are tested. */
    cls = MPI_Cart_coords(c, size, 1, &x);
    CHECK(cls == MPI_ERR_RANK, "coords of rank %d: %d", size, cls);
    cls = MPI_Cart_shift(c, 1, 1, &x, &x);
    CHECK(cls == MPI_ERR_DIMS, "shift along dim 1: %d", cls);
    int far = size;
    cls = MPI_Cart_rank(c, &far, &x);
    CHECK(cls == MPI_ERR_ARG, "rank of coordinate %d: %d", size, cls);
#endif
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int p1[1] = { 0 }, p1w[1] = { 1 }, p2[2] = { 1, 0 }, p3[3] = { 0, 1, 1 };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_grid(1, p1);
    check_grid(1, p1w);
    check_grid(2, p2);
    check_grid(3, p3);
    check_smaller();
    check_errors();
    MPI_Finalize();
    if (rank == 0)
        printf("comm_cart: ok (%d ranks)\n", size);
    return 0;
}
