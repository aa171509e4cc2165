/* bench/ab: the types and figures shared by its runs (ab.c) and its
 * report (ab_report.c). */
#ifndef WEFT_BENCH_AB_H
#define WEFT_BENCH_AB_H

#include "bench_util.h"

#define AB "ab"
#define PAIRS_MAX 100
#define ENV_MAX 16
#define FIELD_MAX 64
#define TAIL_LINES 8
#define TAIL_LEN 200

enum { A, B };
enum { F_BENCH, F_CASE, F_VARIANT, F_METRIC, F_VALUE, F_UNIT, F_COUNT };

typedef struct ab_opts {
    int pairs;
    char disable[256];       /* --disable names, comma-joined */
    char *env[ENV_MAX];      /* --env VAR=VALUE, for B */
    int nenv;
    const char *versus;      /* --versus CMD_B, or NULL */
    char label[2][FIELD_MAX];
    const char *variant;     /* --variant NAME, or "all" */
    char csv_path[512];
    const char *png_path;    /* --png PATH, or NULL: no chart */
    int verbose;
    char **argv[2];          /* A's and B's command lines */
} ab_opts;

typedef struct figure {
    char f[F_COUNT][FIELD_MAX]; /* the result line's fields (value unused) */
    double v[2][PAIRS_MAX];     /* per side and pair; NAN if not printed */
} figure;

typedef struct fig_stats {
    int n;                  /* kept pairs with the figure on both sides */
    bench_stats side[2];
    double ratio;           /* B median / A median; NAN if A's is 0 */
    bench_stats pair;       /* min and max of the per-pair ratios */
    double r[PAIRS_MAX];    /* per-pair ratio, NAN if none */
} fig_stats;

typedef struct run_info {
    int status;             /* waitpid's; -1 if it could not start */
    int results, kept;      /* result lines read; kept by --variant */
    double seconds, steal;
    char tail[TAIL_LINES][TAIL_LEN]; /* last lines, shown if it fails */
    int ntail;
} run_info;

extern figure *figs;
extern int nfigs;
extern int pair_ok[PAIRS_MAX];
extern char drop_why[PAIRS_MAX][160];
extern int duplicates, unit_clashes, malformed;

/* B's WEFT_DISABLE: its value after --env, a comma, the --disable names. */
void ab_b_disable(const ab_opts *o, char *buf, size_t size);

/* Table, notes, result lines, CSV, chart. Returns the figures shown, or
 * -1 if an output could not be written. */
int ab_report(const ab_opts *o, int used);

#endif
