/* Conjugate gradients on the 2-D Poisson matrix (5-point stencil on an
 * M x M grid, N = M*M unknowns), distributed by block rows of uneven
 * sizes, the way a textbook MPI solver does it: each rank finds its first
 * row with MPI_Exscan (and checks it against MPI_Scan), the search
 * direction is assembled on every rank with MPI_Allgatherv before the
 * matrix-vector product, dot products are MPI_Allreduce sums, and the
 * residual norm of each step is an MPI_Iallreduce overlapped with the
 * update of x (completed by MPI_Wait); the final true residual is an
 * MPI_Iallreduce completed by polling MPI_Test. A power iteration then
 * estimates the largest eigenvalue of the same matrix.
 *
 * The right-hand side is b = A x* for a known x*; the solve must reach
 * x* within 1e-8 (max norm) and agree with a serial CG on rank 0 within
 * 1e-9 (the sums are taken in another order, so the answers are equal
 * only up to rounding). The eigenvalue must be within 1e-3 of the exact
 * 8 sin^2(M pi / (2 (M+1))).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPS_NAME "cg"
#include "apps_util.h"

#define M 23
#define N (M * M)
#define MAX_ITERS 1000
#define POWER_ITERS 600

/* y[i - first] = (A x)[i] for rows first .. first+rows-1; x is global. */
static void matvec(const double *x, double *y, int first, int rows)
{
    for (int r = 0; r < rows; r++) {
        int i = first + r, gi = i / M, gj = i % M;
        double s = 4.0 * x[i];
        if (gi > 0)
            s -= x[i - M];
        if (gi < M - 1)
            s -= x[i + M];
        if (gj > 0)
            s -= x[i - 1];
        if (gj < M - 1)
            s -= x[i + 1];
        y[r] = s;
    }
}

static double dot(const double *a, const double *b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static double solution(int i)
{
    return sin(0.1 * i) + (double)(i % 5) / 4.0;
}

/* CG over the rows of one rank; comm may be MPI_COMM_SELF for the serial
 * run. counts/displs describe every rank's rows. Returns the iterations. */
static int cg(MPI_Comm comm, const int *counts, const int *displs, int first,
              int rows, const double *b, double *x)
{
    double *p = calloc(N, sizeof *p), *r = malloc(rows * sizeof *r + 1),
           *ap = malloc(rows * sizeof *ap + 1), *pl = malloc(rows * sizeof *pl + 1);
    double rr, local, bb;
    int it;

    memset(x, 0, rows * sizeof *x);
    memcpy(r, b, rows * sizeof *r);
    memcpy(pl, b, rows * sizeof *pl);
    local = dot(r, r, rows);
    MPI_Allreduce(&local, &rr, 1, MPI_DOUBLE, MPI_SUM, comm);
    bb = rr;
    for (it = 0; it < MAX_ITERS && rr > 1e-24 * bb; it++) {
        MPI_Allgatherv(pl, rows, MPI_DOUBLE, p, counts, displs, MPI_DOUBLE, comm);
        matvec(p, ap, first, rows);
        double pap, alpha, rr_new;
        local = dot(pl, ap, rows);
        MPI_Allreduce(&local, &pap, 1, MPI_DOUBLE, MPI_SUM, comm);
        alpha = rr / pap;
        for (int i = 0; i < rows; i++)
            r[i] -= alpha * ap[i];
        /* start the next residual norm, update x while it travels */
        MPI_Request req;
        local = dot(r, r, rows);
        MPI_Iallreduce(&local, &rr_new, 1, MPI_DOUBLE, MPI_SUM, comm, &req);
        for (int i = 0; i < rows; i++)
            x[i] += alpha * pl[i];
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(req == MPI_REQUEST_NULL, "MPI_Wait left the request");
        double beta = rr_new / rr;
        rr = rr_new;
        for (int i = 0; i < rows; i++)
            pl[i] = r[i] + beta * pl[i];
    }
    free(p);
    free(r);
    free(ap);
    free(pl);
    return it;
}

/* Largest eigenvalue of A by power iteration (Rayleigh quotient). */
static double power(MPI_Comm comm, const int *counts, const int *displs,
                    int first, int rows)
{
    double *v = malloc(N * sizeof *v), *w = malloc(rows * sizeof *w + 1);
    double lambda = 0.0;

    for (int i = 0; i < N; i++)
        v[i] = 1.0 + (double)(i % 3);
    for (int k = 0; k < POWER_ITERS; k++) {
        double sums[2], local[2];
        matvec(v, w, first, rows);
        local[0] = dot(&v[first], w, rows);
        local[1] = dot(w, w, rows);
        MPI_Allreduce(local, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
        double vv = 0.0;
        for (int i = 0; i < N; i++)
            vv += v[i] * v[i];
        lambda = sums[0] / vv;
        double scale = 1.0 / sqrt(sums[1]);
        for (int i = 0; i < rows; i++)
            w[i] *= scale;
        MPI_Allgatherv(w, rows, MPI_DOUBLE, v, counts, displs, MPI_DOUBLE, comm);
    }
    free(v);
    free(w);
    return lambda;
}

int main(int argc, char **argv)
{
    int size, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    /* uneven block rows: rank q gets N/size rows, the last ones one more */
    int rows = N / size + (rank >= size - N % size ? 1 : 0);
    int first = 0, upto = 0;
    MPI_Exscan(&rows, &first, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        first = 0; /* MPI_Exscan leaves rank 0's result undefined */
    MPI_Scan(&rows, &upto, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(upto == first + rows, "scan %d, exscan %d + %d", upto, first, rows);

    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    MPI_Allgather(&rows, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgather(&first, 1, MPI_INT, displs, 1, MPI_INT, MPI_COMM_WORLD);
    CHECK(displs[size - 1] + counts[size - 1] == N, "rows do not add up");

    double *xs = malloc(N * sizeof *xs), *b = malloc(rows * sizeof *b + 1),
           *x = malloc(rows * sizeof *x + 1);
    for (int i = 0; i < N; i++)
        xs[i] = solution(i);
    matvec(xs, b, first, rows);

    double t0 = MPI_Wtime();
    int it = cg(MPI_COMM_WORLD, counts, displs, first, rows, b, x);
    double t1 = MPI_Wtime();
    CHECK(t1 >= t0, "MPI_Wtime went backwards");
    /* The true residual |b - A x| against |b|, reduced in the background
     * while each rank measures its error, then completed by polling
     * MPI_Test (the progress rule says repeated tests must succeed). */
    double *xfull = malloc(N * sizeof *xfull), *ax = malloc(rows * sizeof *ax + 1);
    double norms[2] = {0.0, 0.0}, gnorms[2];
    MPI_Allgatherv(x, rows, MPI_DOUBLE, xfull, counts, displs, MPI_DOUBLE,
                   MPI_COMM_WORLD);
    matvec(xfull, ax, first, rows);
    for (int i = 0; i < rows; i++) {
        norms[0] += (b[i] - ax[i]) * (b[i] - ax[i]);
        norms[1] += b[i] * b[i];
    }
    MPI_Request req;
    int flag = 0;
    MPI_Iallreduce(norms, gnorms, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    double err = 0.0, gerr;
    for (int i = 0; i < rows; i++)
        err = fmax(err, fabs(x[i] - xs[first + i]));
    while (!flag)
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    CHECK(sqrt(gnorms[0]) < 1e-11 * sqrt(gnorms[1]), "residual %g of %g",
          sqrt(gnorms[0]), sqrt(gnorms[1]));
    MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(it < MAX_ITERS && gerr < 1e-8, "%d iterations, error %g", it, gerr);
    free(xfull);
    free(ax);

    /* the whole x on rank 0, against a serial solve there */
    double *xall = rank == 0 ? malloc(N * sizeof *xall) : NULL;
    MPI_Gatherv(x, rows, MPI_DOUBLE, xall, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        int one = N, zero = 0;
        double *bs = malloc(N * sizeof *bs), *xser = malloc(N * sizeof *xser);
        matvec(xs, bs, 0, N);
        int sit = cg(MPI_COMM_SELF, &one, &zero, 0, N, bs, xser);
        for (int i = 0; i < N; i++)
            CHECK(fabs(xall[i] - xser[i]) < 1e-9, "x[%d] = %.17g, serial %.17g",
                  i, xall[i], xser[i]);
        CHECK(abs(sit - it) <= 2, "%d iterations, serial %d", it, sit);
        free(bs);
        free(xser);
        free(xall);
    }

    double lambda = power(MPI_COMM_WORLD, counts, displs, first, rows);
    double s = sin(M * acos(-1.0) / (2.0 * (M + 1)));
    double exact = 8.0 * s * s, lambdas[2] = {lambda, -lambda}, range[2];
    /* every rank must hold the same estimate: max(l) == -max(-l) */
    MPI_Allreduce(lambdas, range, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(range[0] == -range[1], "ranks disagree on lambda");
    CHECK(fabs(lambda - exact) < 1e-3, "lambda %.10f, exact %.10f", lambda, exact);
    if (rank == 0)
        printf("cg: %d ranks, %d iterations, error %.3g, lambda_max %.6f "
               "(exact %.6f)\n", size, it, gerr, lambda, exact);

    free(xs);
    free(b);
    free(x);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
