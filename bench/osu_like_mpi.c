/* bench/osu_like, the MPI program: point-to-point latency, bandwidth and
 * bi-directional bandwidth between two ranks, measured by the shared loop
 * of osu_like_measure.c (see there for the method). Plain MPI: CMake builds
 * it once against Weft's mpi.h and libweft_mpi and, when Open MPI is
 * installed, once with mpicc.openmpi; the driver (osu_like.c) runs each
 * build with its own mpirun and reads what rank 0 prints.
 *
 *   osu_like_mpi [--quick] [--repeats N] [--variant NAME]
 *                [--kind latency|bw|bibw|mt_latency]   (default: all)
 *
 * Rank 0 leads: before each step it sends rank 1 a command (tag CMD_TAG)
 * naming the kind, size and iteration count, then times the step. Data
 * moves on DATA_TAG, acks on ACK_TAG, all as MPI_BYTE in MPI_COMM_WORLD:
 *   latency  MPI_Send + MPI_Recv, mirrored on rank 1;
 *   bw       64 MPI_Isend + MPI_Waitall on rank 0; 64 MPI_Irecv +
 *            MPI_Waitall then a 4-byte MPI_Send (the ack) on rank 1;
 *   bibw     64 MPI_Irecv + 64 MPI_Isend + one MPI_Waitall on both;
 *   mt_latency  OL_MT_PAIRS threads per rank (Weft user-level threads in
 *            Weft's build, pthreads in Open MPI's; MPI_THREAD_MULTIPLE),
 *            thread i doing the latency step with its twin on tag
 *            DATA_TAG + 1 + i, in its own slice of the buffers.
 * As in the OSU benchmarks, the 64 messages of a window share one send
 * buffer and one receive buffer (page-aligned, touched before use): the
 * contents do not matter, only the transfers.
 *
 * Output (rank 0, stdout): first a `segments` line, the shared-memory
 * segments MPI_Init mapped (mpi_segments.c), then after each kind `row ...`
 * and `note ...` lines in bench_util's child format. A self-destruct alarm
 * bounds its life even if its launcher's own time limit fails.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_segments.h"
#include "mpi_thread.h"
#include "osu_like.h"

#define CMD_TAG  1
#define DATA_TAG 2
#define ACK_TAG  3
#define LIFETIME_S 600

typedef struct mpi_ctx {
    char *sbuf, *rbuf;
    int peer;
    MPI_Request reqs[2 * OL_WINDOW];
} mpi_ctx;

typedef struct args {
    int quick, repeats;
    unsigned kinds;
    const char *variant;
} args;

/* ---------------------------------------------------------- commands */

static int mpi_send_cmd(void *ctx, const ol_cmd *c)
{
    mpi_ctx *m = ctx;
    return MPI_Send(c, (int)sizeof *c, MPI_BYTE, m->peer, CMD_TAG,
                    MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_recv_cmd(void *ctx, ol_cmd *c)
{
    mpi_ctx *m = ctx;
    return MPI_Recv(c, (int)sizeof *c, MPI_BYTE, m->peer, CMD_TAG,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -1;
}

/* ------------------------------------------------------------- steps */

/* One side of `iters` ping-pongs on `tag`, from sbuf into rbuf. */
static int ping_pong_on(mpi_ctx *m, char *sbuf, char *rbuf, int bytes,
                        int64_t iters, int leader, int tag)
{
    int rc = MPI_SUCCESS;
    for (int64_t i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        if (leader)
            rc = MPI_Send(sbuf, bytes, MPI_BYTE, m->peer, tag,
                          MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(rbuf, bytes, MPI_BYTE, m->peer, tag,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!leader && rc == MPI_SUCCESS)
            rc = MPI_Send(sbuf, bytes, MPI_BYTE, m->peer, tag,
                          MPI_COMM_WORLD);
    }
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int ping_pong(mpi_ctx *m, int bytes, int64_t iters, int leader)
{
    return ping_pong_on(m, m->sbuf, m->rbuf, bytes, iters, leader, DATA_TAG);
}

/* ------------------------------------------------- thread pairs (mt) */

typedef struct pair {
    mpi_ctx *m;
    const ol_cmd *c;
    int index, leader, rc;
} pair;

static void *pair_main(void *arg)
{
    pair *p = arg;
    size_t off = (size_t)p->index * OL_MT_SLOT;
    p->rc = ping_pong_on(p->m, p->m->sbuf + off, p->m->rbuf + off,
                         (int)p->c->bytes, p->c->iters, p->leader,
                         DATA_TAG + 1 + p->index);
    return NULL;
}

/* OL_MT_PAIRS threads, each ping-ponging with its twin on the other rank
 * on a tag of its own, all at once. */
static int thread_pairs(mpi_ctx *m, const ol_cmd *c, int leader)
{
    thread_t t[OL_MT_PAIRS];
    pair p[OL_MT_PAIRS];
    int started = 0, rc = 0;
    if (c->bytes > OL_MT_SLOT)
        return -1;
    for (; started < OL_MT_PAIRS; started++) {
        p[started] = (pair){m, c, started, leader, 0};
        if (thread_start(&t[started], pair_main, &p[started]) != 0)
            break;
    }
    for (int i = 0; i < started; i++) {
        thread_join(t[i]);
        rc |= p[i].rc;
    }
    return started == OL_MT_PAIRS && rc == 0 ? 0 : -1;
}

/* Start one window: `nrecv` receives then `nsend` sends, all of `bytes`. */
static int start_window(mpi_ctx *m, int bytes, int nrecv, int nsend)
{
    int rc = MPI_SUCCESS;
    for (int w = 0; w < nrecv && rc == MPI_SUCCESS; w++)
        rc = MPI_Irecv(m->rbuf, bytes, MPI_BYTE, m->peer, DATA_TAG,
                       MPI_COMM_WORLD, &m->reqs[w]);
    for (int w = 0; w < nsend && rc == MPI_SUCCESS; w++)
        rc = MPI_Isend(m->sbuf, bytes, MPI_BYTE, m->peer, DATA_TAG,
                       MPI_COMM_WORLD, &m->reqs[nrecv + w]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Waitall(nrecv + nsend, m->reqs, MPI_STATUSES_IGNORE);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int ack(mpi_ctx *m, int leader)
{
    int rc = leader ? MPI_Recv(m->rbuf, OL_ACK_BYTES, MPI_BYTE, m->peer,
                               ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
                    : MPI_Send(m->sbuf, OL_ACK_BYTES, MPI_BYTE, m->peer,
                               ACK_TAG, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int windows(mpi_ctx *m, const ol_cmd *c, int leader)
{
    int bytes = (int)c->bytes, rc = 0;
    for (int64_t i = 0; i < c->iters && rc == 0; i++) {
        if (c->kind == OL_BIBW)
            rc = start_window(m, bytes, OL_WINDOW, OL_WINDOW);
        else if (leader)
            rc = start_window(m, bytes, 0, OL_WINDOW);
        else
            rc = start_window(m, bytes, OL_WINDOW, 0);
        if (rc == 0 && c->kind == OL_BW)
            rc = ack(m, leader);
    }
    return rc;
}

static int mpi_run(void *ctx, const ol_cmd *c, int leader)
{
    mpi_ctx *m = ctx;
    if (c->kind == OL_LATENCY)
        return ping_pong(m, (int)c->bytes, c->iters, leader);
    if (c->kind == OL_MT_LATENCY)
        return thread_pairs(m, c, leader);
    return windows(m, c, leader);
}

/* -------------------------------------------------------------- main */

static int parse_kind(const char *name, args *a)
{
    int k = ol_kind_parse(name);
    if (k < 0)
        return -1;
    a->kinds = 1u << k;
    return 0;
}

static int parse_args(int argc, char **argv, args *a)
{
    a->quick = 0;
    a->repeats = 0;
    a->kinds = OL_ALL_KINDS;
    a->variant = "mpi";
    for (int i = 1; i < argc; i++) {
        if (bench_mpi_common_opt(argc, argv, &i, &a->quick, &a->repeats,
                                 &a->variant))
            continue;
        if (strcmp(argv[i], "--kind") != 0 || i + 1 >= argc ||
            parse_kind(argv[++i], a) != 0)
            return -1;
    }
    a->repeats = bench_default_repeats(a->repeats, a->quick);
    return 0;
}

static char *page_buffer(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, OL_MAX_BYTES) != 0)
        return NULL;
    memset(p, 0x5a, OL_MAX_BYTES);
    return p;
}

static void emit_kind(void *arg, const bench_table *t)
{
    (void)arg;
    bench_table_emit(t, stdout);
}

static int run_rank(int rank, const args *a)
{
    static mpi_ctx m;
    ol_ops ops = {&m, mpi_send_cmd, mpi_recv_cmd, mpi_run};
    m.sbuf = page_buffer();
    m.rbuf = page_buffer();
    m.peer = 1 - rank;
    if (!m.sbuf || !m.rbuf) {
        fprintf(stderr, "osu_like_mpi: out of memory\n");
        return -1;
    }
    ol_plan p = ol_make_plan(a->quick, a->repeats);
    p.kinds = a->kinds;
    if (rank == 0)
        ms_emit(stdout, a->variant, 2);
    int rc = rank == 0 ? ol_measure_all(&ops, &p, a->variant, emit_kind, NULL)
                       : ol_serve(&ops);
    free(m.sbuf);
    free(m.rbuf);
    return rc;
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    args a;
    alarm(LIFETIME_S);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parse_args(argc, argv, &a) != 0 || size != 2 ||
        ((a.kinds & 1u << OL_MT_LATENCY) && provided < MPI_THREAD_MULTIPLE)) {
        if (rank == 0)
            fprintf(stderr, "usage: mpirun -n 2 osu_like_mpi [--quick] "
                    "[--repeats N] [--variant NAME] [--kind K] (mt_latency "
                    "needs MPI_THREAD_MULTIPLE)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (run_rank(rank, &a) != 0) {
        fprintf(stderr, "osu_like_mpi: rank %d: a step failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
