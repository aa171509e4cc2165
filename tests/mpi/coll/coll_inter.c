/* Every collective on an intercommunicator, blocking and nonblocking:
 * world split by rank parity (odd rank counts give groups of different
 * sizes), roots in either group at either end (MPI_ROOT at the root,
 * MPI_PROC_NULL beside it, whose buffers must stay untouched, the root's
 * rank in the other group), exact data both ways; then four nonblocking
 * ones outstanding together, completed in reverse; then MPI_Scan, which
 * MPI does not define on an intercommunicator (MPI_ERR_COMM).
 * Needs two ranks or more.
 */
#include <stdlib.h>
#include <string.h>

#include "mpi_test_util.h"

#define N 5          /* elements of a block */
#define SENTINEL (-77)

static int rank, size, me, lrank, lsize, rsize;
static MPI_Comm inter;

/* world rank of rank r of group g (0: even world ranks, 1: odd) */
static int world_of(int g, int r)
{
    return 2 * r + g;
}

static int val(int w, int i)
{
    return w * 100 + i;
}

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        b[i] = v;
}

/* Complete a call blocking (r NULL) or through its request. */
static void done(MPI_Request *r)
{
    if (r)
        MPI_OK(MPI_Wait(r, MPI_STATUS_IGNORE));
}

/* This rank's root argument when the root is rank `rr` of group `rg`. */
static int root_arg(int rg, int rr)
{
    if (me != rg)
        return rr;
    return lrank == rr ? MPI_ROOT : MPI_PROC_NULL;
}

static void check_bcast(int rg, int rr, int nb)
{
    int buf[N], root = root_arg(rg, rr);
    MPI_Request r, *rp = nb ? &r : NULL;

    for (int i = 0; i < N; i++)
        buf[i] = root == MPI_ROOT ? val(rank, i) : SENTINEL;
    if (nb)
        MPI_OK(MPI_Ibcast(buf, N, MPI_INT, root, inter, rp));
    else
        MPI_OK(MPI_Bcast(buf, N, MPI_INT, root, inter));
    done(rp);
    for (int i = 0; i < N; i++) {
        int want = root == MPI_ROOT ? val(rank, i)
                   : root == MPI_PROC_NULL ? SENTINEL : val(world_of(rg, rr), i);
        CHECK(buf[i] == want, "bcast root %d/%d [%d]: %d, want %d", rg, rr, i, buf[i],
              want);
    }
}

static void check_reduce(int rg, int rr, int nb)
{
    int sbuf[N], rbuf[N], root = root_arg(rg, rr);
    MPI_Request r, *rp = nb ? &r : NULL;

    for (int i = 0; i < N; i++)
        sbuf[i] = (rank + 1) * (i + 1);
    fill(rbuf, N, SENTINEL);
    if (nb)
        MPI_OK(MPI_Ireduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, root, inter, rp));
    else
        MPI_OK(MPI_Reduce(sbuf, rbuf, N, MPI_INT, MPI_SUM, root, inter));
    done(rp);
    int wsum = 0; /* sum of (w + 1) over the other group */
    for (int q = 0; q < rsize; q++)
        wsum += world_of(1 - me, q) + 1;
    for (int i = 0; i < N; i++) {
        int want = root == MPI_ROOT ? wsum * (i + 1) : SENTINEL;
        CHECK(rbuf[i] == want, "reduce root %d/%d [%d]: %d, want %d", rg, rr, i,
              rbuf[i], want);
    }
}

/* Gather(v) to the root: remote rank q sends q + 1 elements (v) or N;
 * the root lays them out backwards (v) or in order. */
static void check_gather(int rg, int rr, int v, int nb)
{
    int root = root_arg(rg, rr), mine[N + 64], *all, *cnt, *dsp, total = 0;
    MPI_Request r, *rp = nb ? &r : NULL;
    int n = v ? lrank + 1 : N;

    cnt = malloc((size_t)rsize * sizeof *cnt);
    dsp = malloc((size_t)rsize * sizeof *dsp);
    for (int q = rsize - 1; q >= 0; q--) {
        cnt[q] = v ? q + 1 : N;
        dsp[q] = total;
        total += cnt[q];
    }
    all = malloc((size_t)(total + 1) * sizeof *all);
    fill(all, total, SENTINEL);
    for (int i = 0; i < n; i++)
        mine[i] = val(rank, i);
    if (v && nb)
        MPI_OK(MPI_Igatherv(mine, n, MPI_INT, all, cnt, dsp, MPI_INT, root, inter, rp));
    else if (v)
        MPI_OK(MPI_Gatherv(mine, n, MPI_INT, all, cnt, dsp, MPI_INT, root, inter));
    else if (nb)
        MPI_OK(MPI_Igather(mine, N, MPI_INT, all, N, MPI_INT, root, inter, rp));
    else
        MPI_OK(MPI_Gather(mine, N, MPI_INT, all, N, MPI_INT, root, inter));
    done(rp);
    for (int q = 0; q < rsize; q++)
        for (int i = 0; i < cnt[q]; i++) {
            int at = v ? dsp[q] + i : q * N + i;
            int want = root == MPI_ROOT ? val(world_of(1 - me, q), i) : SENTINEL;
            CHECK(all[at] == want, "gather%s root %d/%d from %d [%d]: %d, want %d",
                  v ? "v" : "", rg, rr, q, i, all[at], want);
        }
    free(all);
    free(dsp);
    free(cnt);
}

static void check_scatter(int rg, int rr, int v, int nb)
{
    int root = root_arg(rg, rr), got[N + 64], *all, *cnt, *dsp, total = 0;
    MPI_Request r, *rp = nb ? &r : NULL;
    int n = v ? lrank + 1 : N;

    cnt = malloc((size_t)rsize * sizeof *cnt);
    dsp = malloc((size_t)rsize * sizeof *dsp);
    for (int q = rsize - 1; q >= 0; q--) {
        cnt[q] = v ? q + 1 : N;
        dsp[q] = total;
        total += cnt[q];
    }
    all = malloc((size_t)(total + 1) * sizeof *all);
    for (int q = 0; q < rsize; q++)
        for (int i = 0; i < cnt[q]; i++)
            all[v ? dsp[q] + i : q * N + i] = val(world_of(1 - me, q), i) + 7;
    fill(got, n, SENTINEL);
    if (v && nb)
        MPI_OK(MPI_Iscatterv(all, cnt, dsp, MPI_INT, got, n, MPI_INT, root, inter, rp));
    else if (v)
        MPI_OK(MPI_Scatterv(all, cnt, dsp, MPI_INT, got, n, MPI_INT, root, inter));
    else if (nb)
        MPI_OK(MPI_Iscatter(all, N, MPI_INT, got, N, MPI_INT, root, inter, rp));
    else
        MPI_OK(MPI_Scatter(all, N, MPI_INT, got, N, MPI_INT, root, inter));
    done(rp);
    for (int i = 0; i < n; i++) {
        int want = me != rg ? val(rank, i) + 7 : SENTINEL;
        CHECK(got[i] == want, "scatter%s root %d/%d [%d]: %d, want %d", v ? "v" : "",
              rg, rr, i, got[i], want);
    }
    free(all);
    free(dsp);
    free(cnt);
}

static void check_allreduce(int nb)
{
    int s[N], g[N];
    MPI_Request r, *rp = nb ? &r : NULL;

    for (int i = 0; i < N; i++)
        s[i] = rank * (i + 1);
    if (nb)
        MPI_OK(MPI_Iallreduce(s, g, N, MPI_INT, MPI_SUM, inter, rp));
    else
        MPI_OK(MPI_Allreduce(s, g, N, MPI_INT, MPI_SUM, inter));
    done(rp);
    int wsum = 0;
    for (int q = 0; q < rsize; q++)
        wsum += world_of(1 - me, q);
    for (int i = 0; i < N; i++)
        CHECK(g[i] == wsum * (i + 1), "allreduce [%d]: %d", i, g[i]);
}

/* Allgather(v): remote rank q's q + 1 elements (v) or N, backwards (v). */
static void check_allgather(int v, int nb)
{
    int mine[N + 64], *all, *cnt, *dsp, total = 0, n = v ? lrank + 1 : N;
    MPI_Request r, *rp = nb ? &r : NULL;

    cnt = malloc((size_t)rsize * sizeof *cnt);
    dsp = malloc((size_t)rsize * sizeof *dsp);
    for (int q = rsize - 1; q >= 0; q--) {
        cnt[q] = v ? q + 1 : N;
        dsp[q] = total;
        total += cnt[q];
    }
    all = malloc((size_t)total * sizeof *all);
    for (int i = 0; i < n; i++)
        mine[i] = val(rank, i);
    if (v && nb)
        MPI_OK(MPI_Iallgatherv(mine, n, MPI_INT, all, cnt, dsp, MPI_INT, inter, rp));
    else if (v)
        MPI_OK(MPI_Allgatherv(mine, n, MPI_INT, all, cnt, dsp, MPI_INT, inter));
    else if (nb)
        MPI_OK(MPI_Iallgather(mine, N, MPI_INT, all, N, MPI_INT, inter, rp));
    else
        MPI_OK(MPI_Allgather(mine, N, MPI_INT, all, N, MPI_INT, inter));
    done(rp);
    for (int q = 0; q < rsize; q++)
        for (int i = 0; i < cnt[q]; i++) {
            int at = v ? dsp[q] + i : q * N + i;
            CHECK(all[at] == val(world_of(1 - me, q), i), "allgather%s %d [%d]: %d",
                  v ? "v" : "", q, i, all[at]);
        }
    free(all);
    free(dsp);
    free(cnt);
}

/* Alltoall in its three forms: block q (N ints) for remote rank q holds
 * val(rank, q); v and w lay the blocks out backwards. */
static void check_alltoall(int form, int nb)
{
    int *s = malloc((size_t)rsize * N * sizeof *s), *g = malloc((size_t)rsize * N * sizeof *g);
    int *cnt = malloc((size_t)rsize * sizeof *cnt), *dsp = malloc((size_t)rsize * sizeof *dsp);
    MPI_Datatype *t = malloc((size_t)rsize * sizeof *t);
    MPI_Request r, *rp = nb ? &r : NULL;

    for (int q = 0; q < rsize; q++) {
        int at = form ? (rsize - 1 - q) * N : q * N;
        cnt[q] = N;
        dsp[q] = form == 2 ? at * (int)sizeof(int) : at;
        t[q] = MPI_INT;
        fill(s + at, N, val(rank, q));
    }
    fill(g, rsize * N, SENTINEL);
    if (form == 0 && nb)
        MPI_OK(MPI_Ialltoall(s, N, MPI_INT, g, N, MPI_INT, inter, rp));
    else if (form == 0)
        MPI_OK(MPI_Alltoall(s, N, MPI_INT, g, N, MPI_INT, inter));
    else if (form == 1 && nb)
        MPI_OK(MPI_Ialltoallv(s, cnt, dsp, MPI_INT, g, cnt, dsp, MPI_INT, inter, rp));
    else if (form == 1)
        MPI_OK(MPI_Alltoallv(s, cnt, dsp, MPI_INT, g, cnt, dsp, MPI_INT, inter));
    else if (nb)
        MPI_OK(MPI_Ialltoallw(s, cnt, dsp, t, g, cnt, dsp, t, inter, rp));
    else
        MPI_OK(MPI_Alltoallw(s, cnt, dsp, t, g, cnt, dsp, t, inter));
    done(rp);
    for (int q = 0; q < rsize; q++) {
        int at = form ? (rsize - 1 - q) * N : q * N;
        for (int i = 0; i < N; i++)
            CHECK(g[at + i] == val(world_of(1 - me, q), lrank), "alltoall form %d from %d: %d",
                  form, q, g[at + i]);
    }
    free(t);
    free(dsp);
    free(cnt);
    free(g);
    free(s);
}

/* Reduce_scatter(_block): both groups reduce `total` = lsize(0) * lsize(1)
 * elements; local rank l gets its counts[l] of the other group's sum. The
 * v form moves one element from the last rank to the first. */
static void check_reduce_scatter(int v, int nb)
{
    int total = lsize * rsize, *s = malloc((size_t)total * sizeof *s);
    int *cnt = malloc((size_t)lsize * sizeof *cnt), g[64], first = 0;
    MPI_Request r, *rp = nb ? &r : NULL;

    for (int l = 0; l < lsize; l++)
        cnt[l] = rsize;
    if (v && lsize > 1) {
        cnt[0]++;
        cnt[lsize - 1]--;
    }
    for (int l = 0; l < lrank; l++)
        first += cnt[l];
    for (int j = 0; j < total; j++)
        s[j] = (rank + 1) * (j + 1);
    fill(g, 64, SENTINEL);
    if (v && nb)
        MPI_OK(MPI_Ireduce_scatter(s, g, cnt, MPI_INT, MPI_SUM, inter, rp));
    else if (v)
        MPI_OK(MPI_Reduce_scatter(s, g, cnt, MPI_INT, MPI_SUM, inter));
    else if (nb)
        MPI_OK(MPI_Ireduce_scatter_block(s, g, rsize, MPI_INT, MPI_SUM, inter, rp));
    else
        MPI_OK(MPI_Reduce_scatter_block(s, g, rsize, MPI_INT, MPI_SUM, inter));
    done(rp);
    int wsum = 0;
    for (int q = 0; q < rsize; q++)
        wsum += world_of(1 - me, q) + 1;
    for (int i = 0; i < cnt[lrank]; i++)
        CHECK(g[i] == wsum * (first + i + 1), "reduce_scatter%s [%d]: %d, want %d",
              v ? "" : "_block", i, g[i], wsum * (first + i + 1));
    CHECK(g[cnt[lrank]] == SENTINEL, "reduce_scatter wrote past its block");
    free(cnt);
    free(s);
}

static void rooted(int nb)
{
    for (int rg = 0; rg < 2; rg++) {
        int gs = (size - rg + 1) / 2;
        for (int rr = 0; rr < gs; rr += gs > 1 ? gs - 1 : 1) {
            check_bcast(rg, rr, nb);
            check_reduce(rg, rr, nb);
            for (int v = 0; v < 2; v++) {
                check_gather(rg, rr, v, nb);
                check_scatter(rg, rr, v, nb);
            }
        }
    }
}

static void everyone(int nb)
{
    if (nb) {
        MPI_Request r;
        MPI_OK(MPI_Ibarrier(inter, &r));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Barrier(inter));
    }
    check_allreduce(nb);
    for (int v = 0; v < 2; v++) {
        check_allgather(v, nb);
        check_reduce_scatter(v, nb);
    }
    for (int form = 0; form < 3; form++)
        check_alltoall(form, nb);
}

/* Four outstanding at once, completed from the last one started. */
static void overlapped(void)
{
    MPI_Request r[4];
    int b = lrank == 0 ? 5 : SENTINEL, x = rank, sum = -1, ag[64];
    int root = me == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;

    MPI_OK(MPI_Ibarrier(inter, &r[0]));
    MPI_OK(MPI_Ibcast(&b, 1, MPI_INT, root, inter, &r[1]));
    MPI_OK(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, inter, &r[2]));
    MPI_OK(MPI_Iallgather(&x, 1, MPI_INT, ag, 1, MPI_INT, inter, &r[3]));
    for (int i = 3; i >= 0; i--)
        MPI_OK(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    int wsum = 0;
    for (int q = 0; q < rsize; q++) {
        wsum += world_of(1 - me, q);
        CHECK(ag[q] == world_of(1 - me, q), "overlapped allgather %d: %d", q, ag[q]);
    }
    CHECK(sum == wsum, "overlapped allreduce %d", sum);
    if (me == 1 || lrank == 0)
        CHECK(b == 5, "overlapped bcast %d", b);
    else
        CHECK(b == SENTINEL, "overlapped bcast touched MPI_PROC_NULL's buffer");
}

static void scans_refused(void)
{
    int x = 1, y = 0, rc, cls;

    MPI_OK(MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN));
    rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_COMM, "MPI_Scan on an intercommunicator: class %d", cls);
    /* MPI_Exscan alike; not called here, as Open MPI 4.1.4 calls a null
     * function for it and crashes */
}

int main(int argc, char **argv)
{
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2 && size <= 64, "needs 2..64 ranks");
    me = rank % 2;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me, rank, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - me, 17, &inter));
    MPI_OK(MPI_Comm_rank(inter, &lrank));
    MPI_OK(MPI_Comm_size(inter, &lsize));
    MPI_OK(MPI_Comm_remote_size(inter, &rsize));
    for (int nb = 0; nb < 2; nb++) {
        rooted(nb);
        everyone(nb);
    }
    for (int i = 0; i < 3; i++)
        overlapped();
    scans_refused();
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("coll_inter: ok\n");
    MPI_Finalize();
    return 0;
}
