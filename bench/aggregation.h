/* bench/aggregation: the parts shared by aggregation.c (driver, message
 * stream, report) and aggregation_server.c (the Weft server child). See
 * aggregation.c for what is measured and how. */
#ifndef BENCH_AGGREGATION_H
#define BENCH_AGGREGATION_H

#include <stddef.h>
#include <stdint.h>

#define AG_BENCH "aggregation"

typedef enum ag_variant {
    AG_AGGREGATED = 0, /* WEFT_IO_ADAPTIVE (the default): the server waits */
    AG_NAIVE = 1,      /* WEFT_IO_NAIVE: each service thread tests, yields */
    AG_NVARIANTS
} ag_variant;

const char *ag_variant_name(ag_variant v);

/* What a server child runs; passed as
 * `--case agg,<variant>,<k>,<runs>,<chunks>,<budget_ms>,<fd>`. */
typedef struct ag_server_spec {
    ag_variant variant;
    int k;             /* service threads = sockets */
    int runs;          /* timed runs of the compute task (at most) */
    int chunks;        /* yields per run of the compute task */
    int64_t budget_ms; /* no new timed run after this much time */
    int listen_fd;     /* inherited listening socket */
} ag_server_spec;

int ag_spec_format(char *buf, size_t size, const ag_server_spec *s);
int ag_spec_parse(const char *text, ag_server_spec *s); /* 0 or -1 */

/* Server child's main (stdout is the pipe to the parent): prints
 * "ready" once its service threads wait, then
 * "done <messages received> <runs> <wall ms> <cpu ms> <wall ms> <cpu ms>...".
 * Returns the exit status. */
int ag_server_main(const ag_server_spec *s);

#endif /* BENCH_AGGREGATION_H */
