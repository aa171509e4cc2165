/* bench/osu_like: the parts shared by the driver (osu_like.c, which also
 * runs the raw TCP floor, osu_like_raw.c, and prints the report,
 * osu_like_report.c), the MPI program (osu_like_mpi.c, built once against
 * Weft's MPI and once against Open MPI's) and the measurement loop they
 * both use (osu_like_measure.c). See osu_like.c for what is measured and
 * how.
 */
#ifndef BENCH_OSU_LIKE_H
#define BENCH_OSU_LIKE_H

#include <stdint.h>

#include "bench_util.h"
#include "mpi_segments.h"

#define OL_BENCH     "osu_like"
#define OL_WINDOW    64            /* messages in flight per bandwidth step */
#define OL_MAX_BYTES (4 << 20)     /* largest message: 4 MiB */
#define OL_ACK_BYTES 4             /* the receiver's "window done" reply */
#define OL_MAX_SIZES 16

/* ------------------------------------------------------------- kinds */

typedef enum ol_kind {
    OL_LATENCY = 0, /* ping-pong; one-way time = round trip / 2 */
    OL_BW,          /* 64 sends in flight, then a 4-byte ack back */
    OL_BIBW,        /* 64 sends and 64 receives in flight both ways */
    OL_MT_LATENCY,  /* OL_MT_PAIRS thread pairs ping-ponging at once
                       (MPI_THREAD_MULTIPLE); one-way time per message */
    OL_NKINDS
} ol_kind;

#define OL_MT_PAIRS 4          /* threads per rank in OL_MT_LATENCY */
#define OL_MT_SLOT  (1 << 20)  /* each pair's share of the buffers */

/* "latency", "bw", "bibw", "mt_latency": the prefix of the case names. */
const char *ol_kind_name(ol_kind k);

/* The message sizes of a kind, in bytes; returns how many. */
int ol_sizes(ol_kind k, int quick, const int **sizes);

/* ------------------------------------------------------- the peers */

/* What the leader (rank 0) tells the peer (rank 1) before each step. */
typedef struct ol_cmd {
    int64_t kind;  /* an ol_kind, or OL_CMD_STOP */
    int64_t bytes; /* message size */
    int64_t iters; /* how many ping-pongs / windows */
} ol_cmd;

#define OL_CMD_STOP (-1)

/* One way of moving bytes between the two sides (MPI, or raw sockets). */
typedef struct ol_ops {
    void *ctx;
    int (*send_cmd)(void *ctx, const ol_cmd *c); /* leader -> peer */
    int (*recv_cmd)(void *ctx, ol_cmd *c);       /* peer side */
    /* One side of c->iters steps of c->kind; leader != 0 on rank 0.
     * Returns 0 or -1. */
    int (*run)(void *ctx, const ol_cmd *c, int leader);
} ol_ops;

/* How long to measure. */
typedef struct ol_plan {
    int quick;
    int repeats;
    unsigned kinds;         /* bit k set: measure kind k */
    int64_t target_ns;      /* one timed step of one size */
    int64_t kind_budget_ns; /* no new repeat of a kind after this */
} ol_plan;

/* All kinds; see osu_like_measure.c for the targets and budgets. */
ol_plan ol_make_plan(int quick, int repeats);

#define OL_ALL_KINDS ((1u << OL_NKINDS) - 1)

/* The kind named `name` ("latency", "bw", "bibw"), or -1. */
int ol_kind_parse(const char *name);

/* Called with the rows (and notes) of one kind once it is measured. */
typedef void (*ol_kind_done_fn)(void *arg, const bench_table *t);

/* Leader: measure every size of the kinds in p->kinds, then tell the peer
 * to stop.
 * Returns 0, or -1 if a step failed (the kinds done so far were
 * reported). */
int ol_measure_all(const ol_ops *ops, const ol_plan *p, const char *variant,
                   ol_kind_done_fn done, void *arg);

/* Peer: obey commands until OL_CMD_STOP. Returns 0 or -1. */
int ol_serve(const ol_ops *ops);

/* ------------------------------------------------ raw TCP (driver) */

/* Measure the raw TCP floor (a forked peer over loopback, spinning
 * non-blocking sockets) for the kinds in p->kinds, passing each kind's
 * rows to `done`. */
int ol_raw_measure(const ol_plan *p, ol_kind_done_fn done, void *arg);

/* ------------------------------------------------- driver and report */

typedef enum ol_variant {
    OL_WEFT = 0,  /* Weft's MPI at its defaults (shared memory), its mpirun */
    OL_WEFT_TCP,  /* the same, WEFT_MPI_TRANSPORT=tcp */
    OL_OMPI,      /* Open MPI at its defaults (vader shared memory) */
    OL_OMPI_TCP,  /* Open MPI, mpirun.openmpi --mca btl tcp,self */
    OL_RAW_TCP,   /* the floor: osu_like_raw.c (not for OL_MT_LATENCY) */
    OL_NVARIANTS
} ol_variant;

const char *ol_variant_name(ol_variant v);

typedef struct ol_results {
    bench_table tables[OL_NVARIANTS]; /* the rows of each variant */
    int state[OL_NVARIANTS];          /* OL_ST_* */
    int quick, repeats;
    char ompi_version[64];
    bench_table notes;                /* notes only */
    ms_table segments;                /* the jobs' `segments` lines */
} ol_results;

enum { OL_ST_NOT_RUN = 0, OL_ST_OK, OL_ST_FAILED, OL_ST_ABSENT };

/* Print the side-by-side tables, goal lines, the shared-memory segments
 * and the `result:` lines. */
void ol_report_print(const ol_results *r);
/* CSV: bench_util's columns plus kind,bytes. Returns 0 or -1. */
int ol_report_csv(const ol_results *r, const char *path);

#endif /* BENCH_OSU_LIKE_H */
