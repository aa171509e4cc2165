/* bench/osu_like, collective latency: the parts shared by the driver side
 * (osu_like_coll.c runs the jobs, osu_like_coll_report.c prints and writes
 * the results) and the MPI program (osu_like_coll_mpi.c, built against
 * Weft's MPI and Open MPI's), which both also compile
 * osu_like_coll_common.c. See osu_like_coll.c for what is measured.
 */
#ifndef BENCH_OSU_LIKE_COLL_H
#define BENCH_OSU_LIKE_COLL_H

#include <stdint.h>

#include "bench_util.h"
#include "mpi_segments.h"

#define OLC_MAX_BYTES (1 << 20) /* largest message: 1 MiB */
#define OLC_MAX_SIZES 8
#define OLC_NNPS 3              /* rank counts measured */

typedef enum olc_coll {
    OLC_BARRIER = 0,
    OLC_BCAST,     /* root 0, MPI_BYTE */
    OLC_REDUCE,    /* root 0, MPI_FLOAT, MPI_SUM: bytes / 4 floats */
    OLC_ALLREDUCE, /* MPI_FLOAT, MPI_SUM */
    OLC_ALLGATHER, /* `bytes` from each rank, MPI_BYTE */
    OLC_ALLTOALL,  /* `bytes` to each rank, MPI_BYTE */
    OLC_NCOLLS
} olc_coll;

/* "barrier", "bcast", ...: the prefix of the case names. */
const char *olc_coll_name(olc_coll c);
/* The collective named `name`, or -1. */
int olc_coll_parse(const char *name);

/* Message sizes of a collective in bytes (the barrier has one, 0);
 * returns how many. */
int olc_sizes(olc_coll c, int quick, const int **sizes);

/* The rank counts measured: 2, 4 and 8. */
int olc_np(int index);

/* "allreduce_8_np4": the case name of a figure, in buf. */
const char *olc_case(char *buf, size_t size, olc_coll c, int bytes, int np);

/* How long the MPI program measures. */
typedef struct olc_plan {
    int quick, repeats;
    unsigned colls;      /* bit c set: measure collective c */
    int64_t target_ns;   /* one timed step of one size */
    int64_t budget_ns;   /* no new repeat after this (per job) */
} olc_plan;

olc_plan olc_make_plan(int quick, int repeats);

#define OLC_ALL_COLLS ((1u << OLC_NCOLLS) - 1)

/* ------------------------------------------------- driver and report */

typedef enum olc_variant {
    OLC_WEFT = 0,  /* Weft at its defaults (shared memory) */
    OLC_OMPI,      /* Open MPI at its defaults (vader shared memory) */
    OLC_OMPI_TCP,  /* Open MPI, --mca btl tcp,self */
    OLC_WEFT_MSG,  /* Weft with WEFT_MPI_SHM_COLL=0: message schedules
                      only, the A/B of its shared-memory collectives */
    OLC_NVARIANTS
} olc_variant;

const char *olc_variant_name(olc_variant v);

enum { OLC_ST_NOT_RUN = 0, OLC_ST_OK, OLC_ST_FAILED, OLC_ST_ABSENT };

typedef struct olc_results {
    bench_table tables[OLC_NVARIANTS][OLC_NNPS]; /* rows per variant, np */
    int state[OLC_NVARIANTS][OLC_NNPS];          /* OLC_ST_*, the worst */
    int quick, repeats;
    bench_table notes;                           /* notes only */
    ms_table segments;                           /* the jobs' `segments` */
} olc_results;

/* Measure every collective at every rank count for every variant, print
 * the tables, goal lines, segments and `result:` lines, write the CSV and the PNG
 * (next to o->csv_path / o->png_path, with "_coll" before the suffix).
 * Returns 0, or 1 if a variant failed or the CSV could not be written. */
int olc_run(const bench_opts *o);

/* The report (osu_like_coll_report.c). */
void olc_report_print(const olc_results *r);
int olc_report_csv(const olc_results *r, const char *path);

#endif /* BENCH_OSU_LIKE_COLL_H */
