/* bench/earth, the driver's side: the configurations it runs, the
 * figures it collects (earth.c) and the report it makes of them
 * (earth_report.c). */
#ifndef BENCH_EARTH_DRIVER_H
#define BENCH_EARTH_DRIVER_H

#include "bench_util.h"
#include "earth.h"

typedef enum earth_variant { EARTH_WEFT, EARTH_OMPI, EARTH_NVARIANTS } earth_variant;

#define EARTH_CONFIGS_MAX 8

/* A point of the curves: ranks x workers per rank. */
typedef struct earth_config {
    int ranks, workers;
} earth_config;

typedef enum earth_state { EARTH_ST_OK, EARTH_ST_ABSENT, EARTH_ST_FAILED } earth_state;

typedef struct earth_results {
    int quick, launches, runs;           /* launches per point, runs per launch */
    int n[EARTH_NPROBLEMS];              /* problem sizes */
    earth_config configs[EARTH_CONFIGS_MAX];
    int nconfigs;
    bench_table times;                   /* metric time, ms, merged launches */
    bench_table speedups;                /* metric speedup, x */
    bench_table notes[EARTH_NVARIANTS];  /* the jobs' steal counts */
    earth_state state[EARTH_NVARIANTS];
} earth_results;

const char *earth_variant_name(earth_variant v);

/* The time row of (problem, config, variant), or NULL. */
const bench_row *earth_find_time(const earth_results *r, earth_problem p,
                                 earth_config c, earth_variant v);

/* Fill r->speedups from r->times: each variant against its own 1 x 1. */
void earth_compute_speedups(earth_results *r);

/* The tables, the paper's figures, goal lines and `result:` lines. */
void earth_report_print(const earth_results *r);

/* The CSV (bench_util's columns, then problem, pes, ranks, workers).
 * Returns 0 or -1. */
int earth_report_csv(const earth_results *r, const char *path);

#endif /* BENCH_EARTH_DRIVER_H */
