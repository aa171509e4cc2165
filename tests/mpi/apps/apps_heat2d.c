/* A 2-D Jacobi heat solver, written the way an MPI application is: the
 * ranks form a Cartesian grid (MPI_Dims_create, MPI_Cart_create with
 * reordering allowed), each owns a block of the plate plus one ring of
 * ghost cells, rows are exchanged contiguously and columns through an
 * MPI_Type_vector, both with MPI_Sendrecv to the MPI_Cart_shift
 * neighbours (MPI_PROC_NULL at the edges). The convergence test is an
 * MPI_Allreduce(MPI_MAX) of the largest change, the result goes to rank 0
 * with MPI_Gatherv and is compared with a serial run of the same grid.
 *
 * Every cell is updated by the same expression in the parallel and the
 * serial run, and a maximum does not depend on the reduction order, so
 * the two must agree bit for bit, iteration count included.
 * Row communicators from MPI_Cart_sub check the decomposition covers the
 * plate (an exact integer sum), and MPI_Cart_rank/_coords/_get agree.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPS_NAME "heat2d"
#include "apps_util.h"

#define NX 37 /* interior rows */
#define NY 29 /* interior columns */
#define TOL 1e-2
#define MAX_ITERS 5000

/* Fixed temperature on the border of the plate (global coordinates,
 * interior cells are 1..NX x 1..NY, the border is row/column 0 and N+1). */
static double border(int i, int j)
{
    if (i == 0)
        return 100.0;
    if (j == 0)
        return 50.0 * (double)i / (NX + 1);
    if (i == NX + 1)
        return 0.0;
    return 25.0 + (double)(j % 7);
}

/* First index and length of block b of n items split over p blocks. */
static void block(int n, int p, int b, int *first, int *len)
{
    *first = (int)((long)n * b / p);
    *len = (int)((long)n * (b + 1) / p) - *first;
}

/* One Jacobi sweep over an (rows+2) x (cols+2) array; returns max change. */
static double sweep(const double *u, double *v, int rows, int cols)
{
    int w = cols + 2;
    double diff = 0.0;

    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= cols; j++) {
            double x = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
                               u[i * w + j - 1] + u[i * w + j + 1]);
            double d = fabs(x - u[i * w + j]);
            v[i * w + j] = x;
            if (d > diff)
                diff = d;
        }
    return diff;
}

/* Fill the ghost ring of a block at (r0, c0) with the border values where
 * it lies on the border of the plate; zero everywhere else. */
static void init_block(double *u, int r0, int rows, int c0, int cols)
{
    int w = cols + 2;

    memset(u, 0, sizeof(double) * (size_t)(rows + 2) * w);
    for (int i = 0; i < rows + 2; i++)
        for (int j = 0; j < cols + 2; j++) {
            int gi = r0 + i, gj = c0 + j; /* r0, c0: global index of ghost 0 */
            if (gi == 0 || gj == 0 || gi == NX + 1 || gj == NY + 1)
                u[i * w + j] = border(gi, gj);
        }
}

static int serial(double *plate)
{
    size_t n = (size_t)(NX + 2) * (NY + 2);
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    int it = 0;

    init_block(u, 0, NX, 0, NY);
    memcpy(v, u, n * sizeof *u);
    for (double diff = 1.0; diff > TOL && it < MAX_ITERS; it++) {
        diff = sweep(u, v, NX, NY);
        double *t = u;
        u = v;
        v = t;
    }
    memcpy(plate, u, n * sizeof *u);
    free(u);
    free(v);
    return it;
}

int main(int argc, char **argv)
{
    int size, rank, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    int up, down, left, right;
    MPI_Comm cart, row;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    CHECK(dims[0] * dims[1] == size && dims[0] >= dims[1], "dims %d x %d",
          dims[0], dims[1]);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);

    {
        int ndims, gd[2], gp[2], gc[2], back;
        MPI_Cartdim_get(cart, &ndims);
        MPI_Cart_get(cart, 2, gd, gp, gc);
        MPI_Cart_rank(cart, coords, &back);
        CHECK(ndims == 2 && gd[0] == dims[0] && gd[1] == dims[1] && !gp[0] &&
                  !gp[1] && gc[0] == coords[0] && gc[1] == coords[1] &&
                  back == rank,
              "cart_get/cart_rank disagree with cart_coords");
        CHECK((up == MPI_PROC_NULL) == (coords[0] == 0) &&
                  (right == MPI_PROC_NULL) == (coords[1] == dims[1] - 1),
              "shift at the edges");
    }

    int r0, rows, c0, cols;
    block(NX, dims[0], coords[0], &r0, &rows);
    block(NY, dims[1], coords[1], &c0, &cols);

    /* The blocks of one grid row must cover all NY columns. */
    int keep[2] = {0, 1}, total_cols = 0, row_size;
    MPI_Cart_sub(cart, keep, &row);
    MPI_Comm_size(row, &row_size);
    MPI_Allreduce(&cols, &total_cols, 1, MPI_INT, MPI_SUM, row);
    CHECK(row_size == dims[1] && total_cols == NY, "row: %d ranks, %d columns",
          row_size, total_cols);
    MPI_Comm_free(&row);

    int w = cols + 2;
    size_t n = (size_t)(rows + 2) * w;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    init_block(u, r0, rows, c0, cols);
    memcpy(v, u, n * sizeof *u);

    MPI_Datatype column;
    MPI_Type_vector(rows, 1, w, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    int it = 0;
    for (double diff = 1.0; diff > TOL && it < MAX_ITERS; it++) {
        /* halo exchange: rows up and down, columns left and right */
        MPI_Sendrecv(&u[1 * w + 1], cols, MPI_DOUBLE, up, 0,
                     &u[(rows + 1) * w + 1], cols, MPI_DOUBLE, down, 0, cart,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[rows * w + 1], cols, MPI_DOUBLE, down, 1, &u[0 * w + 1],
                     cols, MPI_DOUBLE, up, 1, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * w + 1], 1, column, left, 2, &u[1 * w + cols + 1], 1,
                     column, right, 2, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1 * w + cols], 1, column, right, 3, &u[1 * w + 0], 1,
                     column, left, 3, cart, MPI_STATUS_IGNORE);
        double local = sweep(u, v, rows, cols);
        MPI_Allreduce(&local, &diff, 1, MPI_DOUBLE, MPI_MAX, cart);
        double *t = u;
        u = v;
        v = t;
    }
    MPI_Type_free(&column);
    CHECK(column == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");

    /* Gather the blocks (packed contiguous) and their places to rank 0. */
    double *mine = malloc(sizeof(double) * (size_t)(rows * cols + 1));
    for (int i = 0; i < rows; i++)
        memcpy(&mine[i * cols], &u[(i + 1) * w + 1], sizeof(double) * cols);
    int place[4] = {r0, rows, c0, cols}, *places = NULL, *counts = NULL,
        *displs = NULL;
    double *all = NULL;
    if (rank == 0) {
        places = malloc(sizeof(int) * 4 * size);
        counts = malloc(sizeof(int) * size);
        displs = malloc(sizeof(int) * size);
        all = malloc(sizeof(double) * NX * NY);
    }
    MPI_Gather(place, 4, MPI_INT, places, 4, MPI_INT, 0, cart);
    if (rank == 0)
        for (int q = 0, at = 0; q < size; q++) {
            counts[q] = places[4 * q + 1] * places[4 * q + 3];
            displs[q] = at;
            at += counts[q];
        }
    MPI_Gatherv(mine, rows * cols, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0,
                cart);

    int serial_it = -1;
    MPI_Barrier(cart);
    if (rank == 0) {
        double *plate = malloc(sizeof(double) * (NX + 2) * (NY + 2));
        serial_it = serial(plate);
        CHECK(serial_it == it, "parallel took %d iterations, serial %d", it,
              serial_it);
        long cells = 0;
        for (int q = 0; q < size; q++) {
            const int *p = &places[4 * q];
            const double *b = &all[displs[q]];
            for (int i = 0; i < p[1]; i++)
                for (int j = 0; j < p[3]; j++, cells++) {
                    double want = plate[(p[0] + i + 1) * (NY + 2) + p[2] + j + 1];
                    CHECK(b[i * p[3] + j] == want,
                          "cell (%d,%d) of rank %d: %.17g, serial %.17g",
                          p[0] + i, p[2] + j, q, b[i * p[3] + j], want);
                }
        }
        CHECK(cells == (long)NX * NY, "%ld cells gathered", cells);
        CHECK(it > 10 && it < MAX_ITERS, "converged after %d iterations", it);
        printf("heat2d: %d ranks (%d x %d), converged after %d iterations, "
               "equal to the serial run\n", size, dims[0], dims[1], it);
        free(plate);
        free(places);
        free(counts);
        free(displs);
        free(all);
    }
    /* Everyone learns the agreed iteration count. */
    MPI_Bcast(&serial_it, 1, MPI_INT, 0, cart);
    CHECK(serial_it == it, "rank %d: %d iterations, serial %d", rank, it,
          serial_it);

    free(mine);
    free(u);
    free(v);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
